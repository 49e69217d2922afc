// Front-level batched SpMV, y_b = alpha A_b x_b + beta y_b for every matrix of a batch in one
// launch, on the reference, OpenMP and CUDA executors:
//
//   loom::batched::spmv(1.0, A, x, 0.0, y);          // A: BatchCsr or BatchEll, x, y: BatchDense
//   loom::batched::spmv(1.0, H, xs, 0.0, ys);        // H: HeteroBatch, xs, ys: pooled Arrays
//
// Shared-pattern batches take x and y as batches of n x 1 columns. A heterogeneous batch
// takes one array of inputs and one of outputs in which the matrices' vectors follow each
// other (HeteroBatch::layout(b).x_offset / y_offset). Sizes are checked before anything runs:
// DimensionMismatch naming the batch entry whose vector does not fit. y is not read when
// beta is zero. x and y must not overlap.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/analysis.hpp"
#include "loom/base/array.hpp"
#include "loom/base/names.hpp"
#include "loom/batched/sparse/batch_csr.hpp"
#include "loom/batched/sparse/hetero_batch.hpp"
#include "loom/matrix/batch_dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::batched {

/// The kernel a heterogeneous batched SpMV runs for a matrix. The CSR kernels apply to the
/// matrices stored as CSR; a COO, ELL or hybrid matrix always runs its format's kernel.
///   automatic   per matrix from its format and statistics (below)
///   csr_scalar  a thread per row
///   csr_vector  a warp per row
///   csr_smart   a slice of w lanes per row, w the smallest power of two >= the mean row
///               length (at most 32), chosen per matrix inside the launch
///   csr_i       nnz-balanced: the block's threads take equal runs of entries, each starting
///               in the row the analysis found for it (kept in the handle), summing rows cut
///               between threads with atomics
///   coo         (COO matrices) equal runs of entries per thread, segmented by row
///   ell         (ELL matrices) a thread per row, slot after slot
///   hybrid      (hybrid matrices) the ELL part by rows, then the COO remainder
/// automatic gives a CSR matrix csr_i when its longest row is more than 8 times its mean row
/// length and longer than 64 (a very long row), else csr_smart. On the host the kernels
/// differ only in their summation order (a team is one thread).
enum class SpmvKernel : int32 { automatic, csr_scalar, csr_vector, csr_smart, csr_i, coo, ell, hybrid };

LOOM_NAME_TABLE(SpmvKernel, spmv_kernel_names, "batched SpMV kernel",
    {SpmvKernel::automatic, "auto", "per matrix from its format and row statistics",
     {"automatic"}},
    {SpmvKernel::csr_scalar, "csr-scalar", "CSR, a thread per row", {"scalar"}},
    {SpmvKernel::csr_vector, "csr-vector", "CSR, a warp per row", {"vector"}},
    {SpmvKernel::csr_smart, "csr-smart", "CSR, lanes per row from the mean row length",
     {"smart"}},
    {SpmvKernel::csr_i, "csr-i", "CSR, nnz-balanced with a kept partition", {"csri"}},
    {SpmvKernel::coo, "coo", "COO, segmented reduction"},
    {SpmvKernel::ell, "ell", "ELL, a thread per row"},
    {SpmvKernel::hybrid, "hybrid", "ELL part then COO part", {"hyb"}},
);

/// Options of a heterogeneous batched SpMV handle.
struct BatchSpmvOptions {
    /// The CSR kernel, or automatic.
    SpmvKernel kernel = SpmvKernel::automatic;
};

/// What the analysis of a heterogeneous batch keeps: each matrix's kernel and the CSR-I
/// partitions. Defined in the library's sources.
struct BatchSpmvState;

/// The analysis of one heterogeneous batch for SpMV, reused by every product with it
/// (the batch's pattern cannot change; a different batch raises BadInput).
class BatchSpmvHandle : public AnalysisHandle<BatchSpmvOptions, BatchSpmvState> {
public:
    using AnalysisHandle::AnalysisHandle;
    /// The kernel each matrix runs (after an analysis; BadInput before).
    std::vector<SpmvKernel> kernels() const;
};

/// Analyses A into handle: the kernel of every matrix, and the CSR-I partitions.
template <typename V, typename I>
LOOM_EXPORT void spmv_analyze(BatchSpmvHandle& handle, const matrix::HeteroBatch<V, I>& A);

/// y_b = alpha A_b x_b + beta y_b, x and y batches of n x 1 columns.
template <typename V, typename I>
LOOM_EXPORT void spmv(V alpha, const matrix::BatchCsr<V, I>& A, const matrix::BatchDense<V>& x,
                      V beta, matrix::BatchDense<V>& y);
template <typename V, typename I>
LOOM_EXPORT void spmv(V alpha, const matrix::BatchEll<V, I>& A, const matrix::BatchDense<V>& x,
                      V beta, matrix::BatchDense<V>& y);

/// y_b = alpha A_b x_b + beta y_b over a heterogeneous batch with the analysis in handle
/// (made here when the handle has none).
template <typename V, typename I>
LOOM_EXPORT void spmv(BatchSpmvHandle& handle, V alpha, const matrix::HeteroBatch<V, I>& A,
                      const Array<V>& x, V beta, Array<V>& y);
/// The same with a throw-away analysis for kernel.
template <typename V, typename I>
void spmv(V alpha, const matrix::HeteroBatch<V, I>& A, const Array<V>& x, V beta, Array<V>& y,
          SpmvKernel kernel = SpmvKernel::automatic)
{
    BatchSpmvHandle handle({kernel});
    spmv(handle, alpha, A, x, beta, y);
}

}  // namespace loom::batched

LOOM_PUBLIC_END
