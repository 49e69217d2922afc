// Sparse matrix times (multi-)vector: y = alpha * op(A) * x + beta * y.
#pragma once

#include <string>

#include "loom/base/names.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/permutation.hpp"
#include "loom/matrix/sellp.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// op(A): A, A^T, conj(A) or A^H.
enum class Mode { none, transpose, conjugate, conj_transpose };

LOOM_NAME_TABLE(Mode, mode_names, "mode",
    {Mode::none, "none", "A", {"n"}},
    {Mode::transpose, "transpose", "A^T", {"t"}},
    {Mode::conjugate, "conjugate", "conj(A)", {"c"}},
    {Mode::conj_transpose, "conj_transpose", "A^H", {"h"}},
);

/// "n", "t", "c", "h" or the names of mode_names; BadInput otherwise.
Mode parse_mode(const std::string& text);

/// Which kernel computes a CSR SpMV. `automatic` picks among the native ones from the
/// row-length statistics; `vendor` is cuSPARSE on CUDA (NotSupported on the host backends).
/// `binned` is CUDA's kernel per class of row lengths (the host backends run it as automatic).
enum class SpmvAlgorithm { automatic, row_vector, stream, load_balanced, vendor, binned };

LOOM_NAME_TABLE(SpmvAlgorithm, spmv_algorithm_names, "SpMV algorithm",
    {SpmvAlgorithm::automatic, "automatic", "a native kernel chosen by row lengths", {"auto"}},
    {SpmvAlgorithm::row_vector, "row_vector", "a group of lanes per row"},
    {SpmvAlgorithm::stream, "stream", "rows streamed through shared memory in blocks"},
    {SpmvAlgorithm::load_balanced, "load_balanced", "equal shares of the nonzeros (merge path)"},
    {SpmvAlgorithm::vendor, "vendor", "cuSPARSE (CUDA only)"},
    {SpmvAlgorithm::binned, "binned", "rows binned by length, a kernel per bin (CUDA)"},
);

SpmvAlgorithm parse_spmv_algorithm(const std::string& text);

/// Options of one SpMV call. Analysis results are cached on the matrix (Csr::plans()).
struct SpmvOptions {
    SpmvAlgorithm algorithm = SpmvAlgorithm::automatic;
};

/// y = alpha * op(A) * x + beta * y. x is op(A).cols x k, y is op(A).rows x k; A, x and y
/// on one executor. When beta is zero y is only written (NaNs in y do not propagate).
/// DimensionMismatch on wrong shapes, BadInput when the executors differ.
template <typename V, typename I>
LOOM_EXPORT void spmv(Mode mode, V alpha, const matrix::Csr<V, I>& A, const matrix::Dense<V>& x,
                      V beta, matrix::Dense<V>& y, const SpmvOptions& options = {});
template <typename V, typename I>
LOOM_EXPORT void spmv(Mode mode, V alpha, const matrix::Coo<V, I>& A, const matrix::Dense<V>& x,
                      V beta, matrix::Dense<V>& y);
template <typename V, typename I>
LOOM_EXPORT void spmv(Mode mode, V alpha, const matrix::Ell<V, I>& A, const matrix::Dense<V>& x,
                      V beta, matrix::Dense<V>& y);
template <typename V, typename I>
LOOM_EXPORT void spmv(Mode mode, V alpha, const matrix::Sellp<V, I>& A, const matrix::Dense<V>& x,
                      V beta, matrix::Dense<V>& y);

/// The algorithm `automatic` would choose for A on its executor (for reports and benchmarks).
template <typename V, typename I>
LOOM_EXPORT SpmvAlgorithm choose_spmv_algorithm(const matrix::Csr<V, I>& A);

/// How spmv_reorder renumbers a square matrix's rows and columns alike.
enum class ReorderKind { rcm, degree };

LOOM_NAME_TABLE(ReorderKind, reorder_kind_names, "reordering",
    {ReorderKind::rcm, "rcm", "reverse Cuthill-McKee (graph::rcm): entries near the diagonal"},
    {ReorderKind::degree, "degree", "rows by decreasing length, ties in index order"},
);

ReorderKind parse_reorder_kind(const std::string& text);

/// A renumbered copy of a square A for repeated SpMVs: B = P A P^T. With x' = P x, the
/// product y' = B x' is P (A x), so y = P^T y' (permutation.inverse().apply(y', y)).
template <typename V, typename I>
struct SpmvReordering {
    matrix::Csr<V, I> matrix;
    matrix::Permutation<I> permutation;
};

/// One-time preprocessing that gathers the x values nearby rows read into fewer cache lines
/// (rcm: bandwidth; degree: the most used x values of power-law graphs side by side, rows of
/// equal length adjacent). Computed on the host, the result on A's executor. BadInput for a
/// matrix that is not square or has no executor; A is left untouched.
template <typename V, typename I>
LOOM_EXPORT SpmvReordering<V, I> spmv_reorder(const matrix::Csr<V, I>& A, ReorderKind kind);

}  // namespace loom::sparse

LOOM_PUBLIC_END
