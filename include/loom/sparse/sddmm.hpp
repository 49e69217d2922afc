// Sampled dense-dense matrix product (SDDMM): S = alpha * (X Y^T) o pattern(S) + beta * S.
// Only the entries S stores are computed, each the dot product of a row of X and a row of Y:
//     s_ij = alpha * x_i . y_j + beta * s_ij     for every stored (i, j) of S.
// S is updated in place (its pattern never changes); copy A first to keep A's values:
//     Csr<float> S(A);  sddmm(1.0f, X, Y, 0.0f, S);      // S = (X Y^T) o pattern(A)
#pragma once

#include <string>

#include "loom/base/names.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmm.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// Which kernel computes an SDDMM: Loom's (chunks of nonzeros, a group of lanes per
/// nonzero on CUDA) or cuSPARSE's (`vendor`, CUDA only; NotSupported on the host backends).
enum class SddmmAlgorithm { automatic, native, vendor };

LOOM_NAME_TABLE(SddmmAlgorithm, sddmm_algorithm_names, "SDDMM algorithm",
    {SddmmAlgorithm::automatic, "automatic", "Loom's kernel", {"auto"}},
    {SddmmAlgorithm::native, "native", "Loom's kernel"},
    {SddmmAlgorithm::vendor, "vendor", "cuSPARSE (CUDA only)"},
);

SddmmAlgorithm parse_sddmm_algorithm(const std::string& text);

struct SddmmOptions {
    SddmmAlgorithm algorithm = SddmmAlgorithm::automatic;
    DenseLayout x_layout = DenseLayout::row_major;
    DenseLayout y_layout = DenseLayout::row_major;
};

/// s_ij = alpha * x_i . y_j + beta * s_ij for the stored entries of S. X is S.rows x k and Y
/// S.cols x k as logical matrices (their Dense objects are transposed for col_major). When
/// beta is zero S's values are only written. DimensionMismatch on wrong shapes, BadInput on
/// mixed executors; S is untouched on failure. V may be a 16-bit storage type (half,
/// bfloat16): X, Y and S stored in 16 bits, alpha, beta and the dot products in float.
template <typename V, typename I>
LOOM_EXPORT void sddmm(compute_type_t<V> alpha, const matrix::Dense<V>& X,
                       const matrix::Dense<V>& Y, compute_type_t<V> beta, matrix::Csr<V, I>& S,
                       const SddmmOptions& options = {});

}  // namespace loom::sparse

LOOM_PUBLIC_END
