// The CUDA batched solves, a kernel per method and preconditioner: cuda_solve_<methods>.cu
// instantiates its methods' kernels with each preconditioner and kind of batch, cuda.cu picks
// one per call. Keeping the method and the preconditioner out of a run-time switch keeps each
// kernel's registers to what its own solver needs (one kernel for all ran 3x slower), and
// the split keeps any one translation unit's compile time small.
#pragma once

#include <climits>

#include "base/cuda/helpers.cuh"
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "batched/sparse/drivers.hpp"
#include "loom/launch/cuda_team.cuh"

namespace loom::batched::bsparse {

/// The team size that keeps the most threads resident per multiprocessor (by the occupancy
/// of the solve's kernel with its scratch), at most the system's rows x lanes; on a tie the
/// smaller team, which puts more systems in flight. A thread per row unless rows average more
/// than 16 entries: a thread keeps the loads of its short row in flight together, where lanes
/// that load an entry each wait on memory once per row and then shuffle (an earlier
/// thread-per-row build ran the CG benchmark in 55 ms, against 166 ms with 8 lanes per row and
/// a run-time preconditioner). Small systems get small teams (at most a thread per row),
/// several to a block below 32 threads.
template <typename F>
launch::TeamPolicy solve_policy(const CudaExecutor& exec, size_type count, size_type rows,
                                int lanes, size_type scratch_bytes, const F&)
{
    namespace ld = launch::detail;
    constexpr const char* where = "loom::batched::solve";
    if (lanes < 32) lanes = 1;
    const auto kernel = ld::team_kernel<F>;
    const size_type work = std::max<size_type>(1, rows * lanes);
    const size_type stride = ld::align_up(scratch_bytes, ld::cuda_scratch_alignment);
    const CudaExecutor::DeviceScope scope(exec.device_id());
    int best_threads = lanes;
    long long best_resident = -1;
    for (int threads = lanes; threads <= 1024; threads *= 2) {
        // The block the team launcher makes for teams of this size (cuda_team.cuh): small
        // teams share a block, as many as their scratch lets into 48 KB, in whole warps.
        int teams_per_block = threads >= 32 ? 1 : ld::cuda_small_team_block / threads;
        if (stride > 0 && 48 * 1024 / stride < teams_per_block) {
            const int fit = static_cast<int>(48 * 1024 / stride);
            const int per_warp = threads >= 32 ? 1 : 32 / threads;
            teams_per_block =
                std::max(1, fit / per_warp * per_warp > 0 ? fit / per_warp * per_warp : fit);
        }
        const size_type shared = (threads > 32 ? threads / 32 * ld::cuda_reduce_slot_bytes : 0) +
                                 teams_per_block * stride;
        int blocks = 0;
        LOOM_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, kernel, threads * teams_per_block, static_cast<std::size_t>(shared)),
            where);
        const long long resident = static_cast<long long>(blocks) * threads * teams_per_block;
        if (resident > best_resident) {
            best_resident = resident;
            best_threads = threads;
        }
        if (threads >= work) break;
    }
    return launch::TeamPolicy{count, best_threads / lanes, lanes}.set_scratch_bytes(scratch_bytes);
}

/// A system's matrix that the CUDA solvers multiply by, and read entries of, out of line: a
/// kernel holds one copy of the SpMV instead of one per call site (a solver has up to seven),
/// which cuts the solves' nvcc time by a third; a call per product costs nothing next to the
/// product. (entry and the block inversion serve the preconditioner setups, once per solve.)
template <typename View>
struct OutOfLine : View {
    LOOM_HOST_DEVICE __noinline__ auto entry(int r, int c) const { return View::entry(r, c); }
};

template <typename Par, typename Alpha, typename View, typename VX, typename VY>
LOOM_HOST_DEVICE __noinline__ int spmv(const Par& par, const Alpha& alpha, const OutOfLine<View>& A,
                                       const VX& x, const Alpha& beta, const VY& y)
{
    return detail::spmv(par, alpha, static_cast<const View&>(A), x, beta, y);
}

template <typename Par, typename View, typename T>
LOOM_HOST_DEVICE __noinline__ int invert_blocks(const Par& par, const OutOfLine<View>& A,
                                                int block_size, T* inv_blocks)
{
    return detail::block_jacobi_setup(par, A, block_size, inv_blocks);
}

template <typename Matrices>
struct OutOfLineMatrices {
    Matrices A;

    LOOM_HOST_DEVICE auto operator()(size_type b) const { return OutOfLine<decltype(A(b))>{A(b)}; }
};

template <typename Matrices>
OutOfLineMatrices<Matrices> solver_matrices(const CudaExecutor&, const Matrices& A)
{
    return {A};
}

namespace cuda {

// CSR batches (the common case) get a kernel per preconditioner; ELL and heterogeneous
// batches read theirs at run time, one kernel serving the three (their solves are not the
// hot path, and it keeps the kernels of a method to five).
template <KrylovMethod M, BatchPrecond P, typename V, typename I>
void solve_csr_as(const CudaExecutor& exec, const KrylovOptions& options, const BatchCsr<V, I>& A,
                  const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target)
{
    solve_shared<int(M), int(P)>(exec, options, A, b, x, target);
}
template <KrylovMethod M, BatchPrecond, typename V, typename I>
void solve_ell_as(const CudaExecutor& exec, const KrylovOptions& options, const BatchEll<V, I>& A,
                  const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target)
{
    solve_shared<int(M), any_kind>(exec, options, A, b, x, target);
}
template <KrylovMethod M, BatchPrecond, typename V, typename I>
void solve_hetero_as(const CudaExecutor& exec, const KrylovOptions& options,
                     const HeteroBatch<V, I>& A, const Array<V>& b, Array<V>& x,
                     SolveTarget<V> target)
{
    solve_pooled<int(M), any_kind>(exec, options, A, b, x, target);
}

}  // namespace cuda
}  // namespace loom::batched::bsparse

#define LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVE(M, P, V, I)                                      \
    template void solve_csr_as<M, P>(const CudaExecutor&, const KrylovOptions&,                   \
                                     const BatchCsr<V, I>&, const BatchDense<V>&, BatchDense<V>&, \
                                     SolveTarget<V>);                                             \
    template void solve_ell_as<M, P>(const CudaExecutor&, const KrylovOptions&,                   \
                                     const BatchEll<V, I>&, const BatchDense<V>&, BatchDense<V>&, \
                                     SolveTarget<V>);                                             \
    template void solve_hetero_as<M, P>(const CudaExecutor&, const KrylovOptions&,                \
                                        const HeteroBatch<V, I>&, const Array<V>&, Array<V>&,     \
                                        SolveTarget<V>);

/// Method M's solves with each preconditioner, for (V, I).
#define LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVES(M, V, I)                  \
    LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVE(M, BatchPrecond::none, V, I)   \
    LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVE(M, BatchPrecond::jacobi, V, I) \
    LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVE(M, BatchPrecond::block_jacobi, V, I)
