// Per-backend entry points of the SpGEMM family, declared once with one signature for every
// backend, and what the symbolic phase keeps in a handle (SpgemmState). spgemm.cpp checks
// arguments and dispatches; reference.cpp, omp.cpp, cuda.cu and cusparse.cu define them.
// Arguments arrive checked: A.cols() == B.rows() (A square for the Jacobi product), one
// executor, and for the numeric phase the patterns the symbolic phase saw.
#pragma once

#include <memory>
#include <optional>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "loom/sparse/spgemm.hpp"

namespace loom::sparse::detail {

/// The symbolic result of one product. Backends fill row_ptrs, nnz, row_flops,
/// multiply_adds and (if they need it) backend; spgemm.cpp fills the rest.
template <typename I>
struct SpgemmState {
    std::shared_ptr<const Executor> exec;
    SpgemmAlgorithm algorithm = SpgemmAlgorithm::native;
    bool sort_output = true;
    bool jacobi = false;
    PatternFingerprint a;
    PatternFingerprint b;
    dim2 size;  ///< of C
    size_type nnz = 0;
    size_type multiply_adds = 0;
    Array<I> row_ptrs;
    Array<int64> row_flops;
    /// What one backend keeps for its numeric phase (the OpenMP row partition, the CUDA row
    /// bins, cuSPARSE's descriptors and buffers), type-erased.
    std::shared_ptr<void> backend;
    /// C's pattern (row pointers and columns) as this handle's last full numeric call wrote
    /// it, kept only where a values-only numeric path exists (native CUDA, sorted rows) and
    /// SpgemmOptions::reuse_columns asks for it:
    /// a later call whose C still has this pattern computes values only. Empty before the
    /// first numeric call and while one runs (a failed call may leave C half written).
    std::optional<PatternFingerprint> written_c;
    /// Numeric calls that took the values-only path (SpgemmHandle::values_only_calls).
    size_type values_only_calls = 0;
    SpgemmValuesPath values_path = SpgemmValuesPath::full;
    /// SpgemmOptions::deterministic (CUDA adds every entry's products in product order).
    bool deterministic = true;
    /// Bytes the numeric phase may keep in `recorded` (0: never records; a one-shot product).
    size_type record_limit = 0;
    /// A one-shot product's (spgemm, no handle) cap on a record made by the CUDA symbolic
    /// phase for its single numeric call, where recording costs less than the full phase's
    /// heavy rows (SpgemmOptions::reuse_memory_limit); 0 for a handle's.
    size_type one_shot_record_limit = 0;
    /// Bytes a full numeric call may take for a record it makes and drops (CUDA, heavy rows:
    /// SpgemmOptions::reuse_memory_limit).
    size_type transient_record_limit = 0;
    /// Where in C each multiply-add lands, as the values-only numeric phases need it: OpenMP
    /// (omp::spgemm_numeric_recorded) a position per multiply-add, made by a full numeric
    /// call; CUDA (cuda::spgemm_numeric_known_columns) every entry's multiply-adds, made by
    /// the first values-only call. Only with sorted rows, when it fits record_limit, for C's
    /// columns as the full phase writes them (the same on every call: the patterns of A and
    /// B are checked). Null: none.
    std::shared_ptr<void> recorded;
    size_type recorded_bytes = 0;
    /// CUDA: whether a values-only call tried to make the record (made or declined once).
    bool record_tried = false;
    /// Whether the symbolic phase should find C's columns too where that is cheap (sorted
    /// output, and numeric calls that compute values only once C's columns are known).
    bool columns_in_symbolic = false;
    /// C's columns as the symbolic phase found them (CUDA, every row light), until C takes
    /// them; columns_from_symbolic stays true: C's first numeric call computes values only.
    Array<I> columns;
    bool columns_from_symbolic = false;
};

/// The row scaling of the Jacobi-fused product: row i of C is B_i + s_i * (A B)_i with
/// s_i = -omega * d_inv[i * stride].
template <typename V>
struct JacobiScaling {
    V omega;
    const V* d_inv;
    size_type stride;
};

}  // namespace loom::sparse::detail

#define LOOM_DECLARE_SPGEMM_KERNELS(Exec)                                                     \
    /* state.row_ptrs, nnz, row_flops, multiply_adds (and backend) for C = A * B, or for */   \
    /* (I + A) * B with with_identity */                                                      \
    template <typename V, typename I>                                                         \
    void spgemm_symbolic(const Exec& exec, const matrix::Csr<V, I>& A,                       \
                         const matrix::Csr<V, I>& B, bool with_identity,                     \
                         detail::SpgemmState<I>& state);                                      \
    /* d_inv[i] = 1 / (the sum of A's stored entries (i, i)) for the Jacobi product; the */ \
    /* first row where that sum is zero (or no such entry is stored), or -1 */                \
    template <typename V, typename I>                                                         \
    int64 inverse_diagonal(const Exec& exec, const matrix::Csr<V, I>& A, Array<V>& d_inv);   \
    /* C's columns and values; C has the size, nnz and row pointers of the state. jacobi */   \
    /* is null for the plain product, with a handle of the matching symbolic phase. May */    \
    /* record the products' positions into state.recorded (see there) */                     \
    template <typename V, typename I>                                                         \
    void spgemm_numeric(const Exec& exec, detail::SpgemmState<I>& state,                     \
                        const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,              \
                        const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)

namespace loom::sparse::reference {
LOOM_DECLARE_SPGEMM_KERNELS(ReferenceExecutor);
}
namespace loom::sparse::omp {
LOOM_DECLARE_SPGEMM_KERNELS(OmpExecutor);

/// C's values from state.recorded (made by spgemm_numeric of this state, C's columns as that
/// call wrote them): no hashing, no sorting, no column written; the same sums in the same
/// order as spgemm_numeric, so the same bits.
template <typename V, typename I>
void spgemm_numeric_recorded(const OmpExecutor& exec, const detail::SpgemmState<I>& state,
                             const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                             const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C);
}
namespace loom::sparse::cuda {
LOOM_DECLARE_SPGEMM_KERNELS(CudaExecutor);

/// spgemm_numeric for a C whose columns are exactly those that a previous spgemm_numeric of
/// this state (or its symbolic phase) wrote (state.sort_output, so every row sorted). Values
/// only: rows of at most 128 entries of a B with strictly ascending rows in entry order
/// (positions from state.recorded, or by binary search); the other rows from the record's
/// pairs (a thread per entry of C sums its multiply-adds in product order), or without them
/// the light rows look each product's column up in C's row and the others run as in
/// spgemm_numeric (which rewrites the same columns). The record is made by the first such
/// call when it fits state.record_limit and the device's free memory. The bits are
/// spgemm_numeric's (deterministic as state.deterministic says where ordered adds remain).
/// Returns the path taken: `recorded` when every row's values came from the record (kept
/// positions, pairs), else `known_columns`.
template <typename V, typename I>
SpgemmValuesPath spgemm_numeric_known_columns(const CudaExecutor& exec, detail::SpgemmState<I>& state,
                                  const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                  const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C);

/// Whether every row of M holds strictly ascending columns (sorted, no column twice); one
/// thread per row (cuda_symbolic.cu).
template <typename V, typename I>
bool rows_strictly_ascending(const CudaExecutor& exec, const matrix::Csr<V, I>& M,
                             const char* where);

// cuSPARSE (cusparse.cu), SpgemmAlgorithm::vendor.

/// cusparseSpGEMMreuse_workEstimation / _nnz / _copy: fills the state like spgemm_symbolic
/// and makes C (size, row pointers and columns); the descriptors and buffers that the
/// numeric phase needs stay in state.backend.
template <typename V, typename I>
void spgemm_vendor_symbolic(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                            const matrix::Csr<V, I>& B, detail::SpgemmState<I>& state,
                            matrix::Csr<V, I>& C);
/// cusparseSpGEMMreuse_compute: C's values.
template <typename V, typename I>
void spgemm_vendor_numeric(const CudaExecutor& exec, const detail::SpgemmState<I>& state,
                           const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                           matrix::Csr<V, I>& C);
/// C = A * B in one cuSPARSE call sequence (cusparseSpGEMM_workEstimation / _compute /
/// _copy), the fastest vendor path when the product is not repeated.
template <typename V, typename I>
matrix::Csr<V, I> spgemm_vendor(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                                const matrix::Csr<V, I>& B);
}  // namespace loom::sparse::cuda

/* Explicit instantiation of the kernels above for the reference or OpenMP backend, inside its
   namespace (CUDA instantiates each phase in its own file) */
#define LOOM_INSTANTIATE_SPGEMM_KERNELS(Exec, V, I)                                            \
    template int64 inverse_diagonal(const Exec&, const matrix::Csr<V, I>&,                     \
                                    Array<V>&);                                                \
    template void spgemm_symbolic(const Exec&, const matrix::Csr<V, I>&,                       \
                                  const matrix::Csr<V, I>&, bool, detail::SpgemmState<I>&);    \
    template void spgemm_numeric(const Exec&, detail::SpgemmState<I>&,                         \
                                 const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,           \
                                 const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);
