// CUDA incomplete factorizations, values in V's device type.
//
// The IKJ factorization (ILU(0), ILU(k), IC) is ONE sync-free launch: a group of G lanes per
// row, rows handed out by a ticket in the level order of the symbolic phase's schedule
// (src/sparse/sptrsv/sync_free.cuh: why level order, why no deadlock). Row i walks its
// strictly lower entries (i, k) in column order; for each it waits on row k's done flag,
// computes l_ik = a_ik / u_kk, and the lanes share row k's upper entries (k, j), each
// finding column j in row i's remaining entries by binary search and subtracting
// l_ik u_kj there. The targets of one k are distinct, so the lanes never collide, and each
// entry sees the same operations in the same order as rows.hpp's factorize_row: the same
// numbers as the host backends (up to fused multiply-adds), the same first bad pivot.
//
// The sweeps, the assembly, the pivot check and the extraction are a thread per row
// (rows.hpp), one launch each over all rows.
#include <cstdint>
#include <vector>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "loom/base/array.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/sptrsv/sync_free.cuh"

namespace loom::sparse::cuda {

using loom::cuda::as_device;
using loom::cuda::ceildiv;
using loom::cuda::check_launch;
using loom::cuda::device_type_t;
using loom::cuda::stream_of;

namespace ilu_kernels {

constexpr const char* where = "loom::sparse::ilu_numeric";
constexpr int block_size = 256;

template <typename I>
__device__ __forceinline__ bool row_of_thread(const detail::FactorPattern<I>& f, I& i)
{
    i = static_cast<I>(blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
    return i < static_cast<I>(f.n);
}

template <typename D, typename I>
__global__ void assemble(detail::FactorPattern<I> f, const D* a, const I* gather_ptrs,
                         const I* sources, const D* scale, D shift, D* a_f)
{
    I i;
    if (row_of_thread(f, i)) detail::assemble_row(f, i, a, gather_ptrs, sources, scale, shift, a_f);
}

template <typename D, typename I>
__global__ void copy_values(I nnz, const D* from, D* to)
{
    const auto k = static_cast<I>(blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
    if (k < nnz) to[k] = from[k];
}

/// The IKJ factorization of every row, rows in level order (order[ticket]); flags[i] == 1
/// once row i is final, flags[n] is the ticket counter (all zero before the launch). Values
/// are read through L2: other SMs write them during the launch.
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    factorize_sync_free(detail::FactorPattern<I> f, const I* order, std::uint32_t* flags,
                        D* values)
{
    using sync_free::load_coherent;
    constexpr std::uint32_t done = 1;
    const unsigned mask = sync_free::group_mask<G>();
    const int lane = threadIdx.x % G;
    I i;
    if (!sync_free::take_row<G, block_size>(static_cast<I>(f.n), order, flags, i)) return;
    const I end = f.row_ptrs[i + 1];
    for (I p = f.row_ptrs[i]; p < end && f.col_idxs[p] < i; ++p) {
        const I k = f.col_idxs[p];
        // Row k's pattern is fixed: read before waiting on its values.
        const I pivot = f.diag[k];
        const I k_end = f.row_ptrs[k + 1];
        sync_free::wait_for(flags, k, done);
        const D l = load_coherent(values + p) / load_coherent(values + pivot);
        for (I q = pivot + 1 + lane; q < k_end; q += G) {
            const I target = detail::find_column(f.col_idxs, p + 1, end, f.col_idxs[q]);
            if (target >= 0) {
                values[target] = load_coherent(values + target) - l * load_coherent(values + q);
            }
        }
        // Every lane has read a_ik (replaced by l_ik next), and the next k reads entries of
        // row i the lanes just updated.
        __syncwarp(mask);
        if (lane == 0) values[p] = l;
    }
    sync_free::publish(flags, i, done, mask, lane);
}

template <typename D, typename I>
__global__ void initial_guess(detail::FactorPattern<I> f, const D* a_f, D* values)
{
    I i;
    if (!row_of_thread(f, i)) return;
    for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
        values[p] = detail::initial_entry(f, i, p, a_f);
    }
}

template <typename D, typename I>
__global__ void sweep(detail::FactorPattern<I> f, const D* a_f, const D* old, D* values)
{
    I i;
    if (!row_of_thread(f, i)) return;
    for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
        values[p] = detail::sweep_entry(f, i, p, a_f, old);
    }
}

template <typename D, typename I>
__global__ void first_bad_pivot(detail::FactorPattern<I> f, const D* a_f, const D* values,
                                bool cholesky, unsigned long long* first)
{
    I i;
    if (row_of_thread(f, i) && detail::bad_pivot(f, i, a_f, values, cholesky)) {
        atomicMin(first, static_cast<unsigned long long>(i));
    }
}

template <typename D, typename I>
__global__ void extract(detail::FactorPattern<I> f, const D* values, const I* l_index,
                        const I* u_index, bool cholesky, D* l, D* u)
{
    I i;
    if (row_of_thread(f, i)) detail::extract_row(f, i, values, l_index, u_index, cholesky, l, u);
}

template <typename I>
unsigned blocks_for(I count)
{
    return static_cast<unsigned>(ceildiv(count, block_size));
}

}  // namespace ilu_kernels

template <typename V, typename I>
void ilu_assemble(const CudaExecutor& exec, const detail::FactorPattern<I>& f, const V* a,
                  const I* gather_ptrs, const I* sources, const V* scale, V shift, V* a_f)
{
    if (f.n == 0) return;
    ilu_kernels::assemble<<<ilu_kernels::blocks_for(f.n), ilu_kernels::block_size, 0,
                            stream_of(exec)>>>(f, as_device(a), gather_ptrs, sources,
                                               as_device(scale), as_device(shift), as_device(a_f));
    check_launch(ilu_kernels::where);
}

template <typename V, typename I>
void ilu_factorize(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                   const detail::LevelSchedule<I>& schedule, const V* a_f, V* values)
{
    if (f.n == 0) return;
    const auto stream = stream_of(exec);
    const auto entries = static_cast<I>(f.nnz);
    ilu_kernels::copy_values<<<ilu_kernels::blocks_for(entries), ilu_kernels::block_size, 0,
                               stream>>>(entries, as_device(a_f), as_device(values));
    check_launch(ilu_kernels::where);
    Array<std::uint32_t> flags(exec.shared_from_this(), f.n + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(flags.data(), 0, flags.size() * sizeof(std::uint32_t), stream),
                    ilu_kernels::where);
    // Lanes per row as SpTRSV chooses them: 4 for short rows, a warp for long ones.
    const auto* order = schedule.order.const_data();
    if (f.nnz > 8 * f.n) {
        ilu_kernels::factorize_sync_free<32><<<ilu_kernels::blocks_for(f.n * 32),
                                               ilu_kernels::block_size, 0, stream>>>(
            f, order, flags.data(), as_device(values));
    } else {
        ilu_kernels::factorize_sync_free<4><<<ilu_kernels::blocks_for(f.n * 4),
                                              ilu_kernels::block_size, 0, stream>>>(
            f, order, flags.data(), as_device(values));
    }
    check_launch(ilu_kernels::where);
}

template <typename V, typename I>
void ilu_initial_guess(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                       const V* a_f, V* values)
{
    if (f.n == 0) return;
    ilu_kernels::initial_guess<<<ilu_kernels::blocks_for(f.n), ilu_kernels::block_size, 0,
                                 stream_of(exec)>>>(f, as_device(a_f), as_device(values));
    check_launch(ilu_kernels::where);
}

template <typename V, typename I>
void ilu_sweep(const CudaExecutor& exec, const detail::FactorPattern<I>& f, const V* a_f,
               const V* old, V* values)
{
    if (f.n == 0) return;
    ilu_kernels::sweep<<<ilu_kernels::blocks_for(f.n), ilu_kernels::block_size, 0,
                         stream_of(exec)>>>(f, as_device(a_f), as_device(old),
                                            as_device(values));
    check_launch(ilu_kernels::where);
}

template <typename V, typename I>
size_type ilu_first_bad_pivot(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                              const V* a_f, const V* values, bool cholesky)
{
    if (f.n == 0) return 0;
    auto shared = exec.shared_from_this();
    Array<unsigned long long> first(shared, std::vector<unsigned long long>(1, static_cast<unsigned long long>(f.n)));
    ilu_kernels::first_bad_pivot<<<ilu_kernels::blocks_for(f.n), ilu_kernels::block_size, 0,
                                   stream_of(exec)>>>(f, as_device(a_f), as_device(values),
                                                      cholesky, first.data());
    check_launch(ilu_kernels::where);
    return static_cast<size_type>(first.to_host()[0]);
}

template <typename V, typename I>
void ilu_extract(const CudaExecutor& exec, const detail::FactorPattern<I>& f, const V* values,
                 const I* l_index, const I* u_index, bool cholesky, V* l, V* u)
{
    if (f.n == 0) return;
    ilu_kernels::extract<<<ilu_kernels::blocks_for(f.n), ilu_kernels::block_size, 0,
                           stream_of(exec)>>>(f, as_device(values), l_index, u_index, cholesky,
                                              as_device(l), as_device(u));
    check_launch(ilu_kernels::where);
}

#define LOOM_INSTANTIATE(V, I) LOOM_INSTANTIATE_ILU_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::cuda
