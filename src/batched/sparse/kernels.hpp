// Per-backend entry points of batched sparse (SpMV and Krylov solves over whole batches),
// declared once with one signature for every backend; front.cpp checks and dispatches.
// Arguments arrive checked: one executor, vectors that fit, valid options.
#pragma once

#include <vector>

#include "loom/base/executor.hpp"
#include "loom/batched/sparse/krylov.hpp"
#include "loom/batched/sparse/spmv.hpp"

namespace loom::batched {

/// Entries of a CSR-I matrix one chunk covers: t * nnz / csr_i_chunks onwards for chunk t. A
/// chunk per thread of the CUDA block that runs the matrix.
inline constexpr int csr_i_chunks = 256;

struct BatchSpmvState {
    /// The batch analysed (its layouts array) and its size: the pattern check.
    const void* batch = nullptr;
    size_type count = 0;
    /// Rows of the largest matrix (the launch's team size follows it).
    size_type max_rows = 0;
    std::vector<SpmvKernel> host_kernels;
    /// The kernel per matrix (as int32) on the batch's executor.
    Array<int32> kernels;
    /// Per matrix, where its csr_i_chunks + 1 chunk start rows sit in csr_i_rows (-1 when
    /// the matrix does not run CSR-I).
    Array<size_type> csr_i_offsets;
    Array<int32> csr_i_rows;
};

}  // namespace loom::batched

namespace loom::batched::bsparse {

using matrix::BatchCsr;
using matrix::BatchDense;
using matrix::BatchEll;
using matrix::HeteroBatch;

/// Workspace values a system's preconditioner takes (ahead of the solver's).
LOOM_HOST_DEVICE inline size_type precond_storage(BatchPrecond precond, size_type n, int block_size)
{
    switch (precond) {
    case BatchPrecond::jacobi: return n;
    case BatchPrecond::block_jacobi: return block_jacobi_storage(n, block_size);
    case BatchPrecond::none: break;
    }
    return 0;
}

/// Where a solve keeps its state: the handle's workspace, offsets and outcomes.
template <typename V>
struct SolveTarget {
    V* workspace;
    const size_type* offsets;
    KrylovOutcome* outcomes;
};

/// Declares a backend's entry points on executor type Exec; what follows Exec opens each
/// template parameter list (the team launches: `typename Exec,`).
#define LOOM_DECLARE_BATCH_SPARSE_KERNELS(Exec, ...)                                           \
    template <__VA_ARGS__ typename V, typename I>                                              \
    void spmv_csr(const Exec& exec, V alpha, const BatchCsr<V, I>& A, const BatchDense<V>& x,  \
                  V beta, BatchDense<V>& y);                                                   \
    template <__VA_ARGS__ typename V, typename I>                                              \
    void spmv_ell(const Exec& exec, V alpha, const BatchEll<V, I>& A, const BatchDense<V>& x,  \
                  V beta, BatchDense<V>& y);                                                   \
    template <__VA_ARGS__ typename V, typename I>                                              \
    void spmv_hetero(const Exec& exec, const BatchSpmvState& plan, V alpha,                    \
                     const HeteroBatch<V, I>& A, const Array<V>& x, V beta, Array<V>& y);      \
    template <__VA_ARGS__ typename V, typename I>                                              \
    void solve_csr(const Exec& exec, const KrylovOptions& options, const BatchCsr<V, I>& A,    \
                   const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target);           \
    template <__VA_ARGS__ typename V, typename I>                                              \
    void solve_ell(const Exec& exec, const KrylovOptions& options, const BatchEll<V, I>& A,    \
                   const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target);           \
    template <__VA_ARGS__ typename V, typename I>                                              \
    void solve_hetero(const Exec& exec, const KrylovOptions& options,                          \
                      const HeteroBatch<V, I>& A, const Array<V>& b, Array<V>& x,              \
                      SolveTarget<V> target)

/// The team launches of drivers.hpp over any executor: the reference and OpenMP backends (a
/// team is one thread there), instantiated by reference.cpp and omp.cpp.
namespace team {
LOOM_DECLARE_BATCH_SPARSE_KERNELS(Exec, typename Exec, );
}
namespace reference = team;
namespace omp = team;
namespace cuda {
LOOM_DECLARE_BATCH_SPARSE_KERNELS(CudaExecutor);

// The CUDA solves of method M with preconditioner P, a kernel each (cuda_solve_<methods>.cu);
// solve_csr, solve_ell and solve_hetero pick one per call.
template <KrylovMethod M, BatchPrecond P, typename V, typename I>
void solve_csr_as(const CudaExecutor& exec, const KrylovOptions& options,
                  const BatchCsr<V, I>& A, const BatchDense<V>& b, BatchDense<V>& x,
                  SolveTarget<V> target);
template <KrylovMethod M, BatchPrecond P, typename V, typename I>
void solve_ell_as(const CudaExecutor& exec, const KrylovOptions& options,
                  const BatchEll<V, I>& A, const BatchDense<V>& b, BatchDense<V>& x,
                  SolveTarget<V> target);
template <KrylovMethod M, BatchPrecond P, typename V, typename I>
void solve_hetero_as(const CudaExecutor& exec, const KrylovOptions& options,
                     const HeteroBatch<V, I>& A, const Array<V>& b, Array<V>& x,
                     SolveTarget<V> target);

/// Every system of A by cuSOLVER's batched sparse QR (cuda_qr.cu).
template <typename V, typename I>
void solve_vendor_qr(const CudaExecutor& exec, const BatchCsr<V, I>& A, const BatchDense<V>& b,
                     BatchDense<V>& x);
}

}  // namespace loom::batched::bsparse
