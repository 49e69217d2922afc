// Sparse matrix times a tall dense matrix: C = alpha * op(A) * B + beta * C (SpMM), with B and
// C stored row-major or column-major. A is read once for all k columns of B on every backend.
//
//     spmm(Mode::none, 1.0, A, B, 0.0, C);                         // row-major B and C
//     SpmmOptions o;  o.b_layout = o.c_layout = DenseLayout::col_major;
//     spmm(Mode::none, 1.0, A, Bt, 0.0, Ct, o);   // Bt, Ct: k x n and k x m Dense objects
#pragma once

#include <string>

#include "loom/base/half.hpp"
#include "loom/base/names.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmv.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// How a dense operand of a sparse kernel is stored. Dense is row-major; a column-major
/// n x k operand is handed over as the Dense holding its transpose (k x n, same memory, its
/// stride the leading dimension), marked col_major.
enum class DenseLayout { row_major, col_major };

LOOM_NAME_TABLE(DenseLayout, dense_layout_names, "dense layout",
    {DenseLayout::row_major, "row_major", "rows contiguous (Dense as it is)", {"row", "r"}},
    {DenseLayout::col_major,
     "col_major",
     "columns contiguous (the Dense holds the transpose)",
     {"col", "c"}},
);

DenseLayout parse_dense_layout(const std::string& text);

/// Which kernel computes a CSR SpMM. `automatic` picks a native one from the row lengths;
/// `vendor` is cuSPARSE's SpMM on CUDA (NotSupported on the host backends).
enum class SpmmAlgorithm { automatic, row_split, nnz_balanced, vendor };

LOOM_NAME_TABLE(SpmmAlgorithm, spmm_algorithm_names, "SpMM algorithm",
    {SpmmAlgorithm::automatic, "automatic", "a native kernel chosen by row lengths", {"auto"}},
    {SpmmAlgorithm::row_split, "row_split", "a warp (a thread) per row, lanes along k"},
    {SpmmAlgorithm::nnz_balanced, "nnz_balanced", "equal shares of the nonzeros per warp"},
    {SpmmAlgorithm::vendor, "vendor", "cuSPARSE (CUDA only)"},
);

SpmmAlgorithm parse_spmm_algorithm(const std::string& text);

/// Which of cuSPARSE's SpMM algorithms SpmmAlgorithm::vendor calls (CUSPARSE_SPMM_ALG_DEFAULT,
/// CUSPARSE_SPMM_CSR_ALG1/2/3); cuSPARSE rejects some of them for some layouts (ALG2 and ALG3
/// want row-major B and C), which raises its error.
enum class VendorSpmmAlgorithm { default_algorithm, csr_alg1, csr_alg2, csr_alg3 };

LOOM_NAME_TABLE(VendorSpmmAlgorithm, vendor_spmm_algorithm_names, "cuSPARSE SpMM algorithm",
    {VendorSpmmAlgorithm::default_algorithm, "default", "CUSPARSE_SPMM_ALG_DEFAULT"},
    {VendorSpmmAlgorithm::csr_alg1, "csr_alg1", "CUSPARSE_SPMM_CSR_ALG1"},
    {VendorSpmmAlgorithm::csr_alg2, "csr_alg2", "CUSPARSE_SPMM_CSR_ALG2"},
    {VendorSpmmAlgorithm::csr_alg3, "csr_alg3", "CUSPARSE_SPMM_CSR_ALG3"},
);

struct SpmmOptions {
    SpmmAlgorithm algorithm = SpmmAlgorithm::automatic;
    /// cuSPARSE's algorithm under SpmmAlgorithm::vendor; ignored by the others.
    VendorSpmmAlgorithm vendor_algorithm = VendorSpmmAlgorithm::default_algorithm;
    DenseLayout b_layout = DenseLayout::row_major;
    DenseLayout c_layout = DenseLayout::row_major;
};

/// C = alpha * op(A) * B + beta * C. B is op(A).cols x k and C op(A).rows x k as logical
/// matrices (their Dense objects are transposed for col_major). A, B and C on one executor;
/// C shares no memory with B. When beta is zero C is only written. DimensionMismatch on wrong
/// shapes, BadInput on mixed executors or overlap; C is untouched on failure.
///
/// V is a value type, or a 16-bit storage type (half, bfloat16: A's values, B and C stored in
/// 16 bits; alpha, beta and every sum in float, C rounded once at the end). With the 16-bit
/// types the transposing modes build A^T first (a transpose per call: keep A^T yourself when
/// you multiply by it often).
template <typename V, typename I>
LOOM_EXPORT void spmm(Mode mode, compute_type_t<V> alpha, const matrix::Csr<V, I>& A,
                      const matrix::Dense<V>& B, compute_type_t<V> beta, matrix::Dense<V>& C,
                      const SpmmOptions& options = {});

/// The algorithm `automatic` would choose for A and k columns on A's executor.
template <typename V, typename I>
LOOM_EXPORT SpmmAlgorithm choose_spmm_algorithm(const matrix::Csr<V, I>& A, size_type k);

}  // namespace loom::sparse

LOOM_PUBLIC_END
