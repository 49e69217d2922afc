// CUDA SpTRSV.
//
// Every kernel solves rows with a group of G lanes per row (G = 4 for short rows, a warp for
// long ones, from op(T)'s mean row length): the lanes stride over the row's entries, sum
// a_rc x_c and the diagonal, reduce by shuffles within the group, and the group's first lane
// writes x_r for every right-hand side.
//
// Level set: the host walks the stages of the analysis. A fat level is one launch over its
// rows. A stage of chained thin levels is one launch of a single block, which runs the
// levels one after the other with __syncthreads between them (TP1CHAIN): a bidiagonal
// matrix of 5000 rows costs one launch, not 5000.
//
// Sync-free: one launch. A block takes the next rows (one per group) from a global ticket,
// so a row is only taken once every row before it (in dependency order) has been taken by a
// running block: waiting on them cannot deadlock, whatever order blocks are scheduled in. A
// group spins on the ready flags of the rows its entries name, reads their x through L2
// (ld.cg: L1 is not coherent between SMs), writes x_r, fences and sets its own flag. Flags
// hold the number of the solve (an epoch) that set them, so no solve clears them.
#include <cstdint>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "sparse/sptrsv/kernels.hpp"
#include "sparse/sptrsv/supernodal.hpp"

namespace loom::sparse::cuda {

using loom::cuda::as_device;
using loom::cuda::ceildiv;
using loom::cuda::check_launch;
using loom::cuda::conj_dev;
using loom::cuda::device_type_t;
using loom::cuda::is_device_complex_v;
using loom::cuda::mul;
using loom::cuda::stream_of;

namespace sptrsv_kernels {

constexpr const char* where = "loom::sparse::sptrsv_solve";
constexpr int block_size = 256;
constexpr int chain_block_size = 1024;
constexpr int warp_size = 32;

template <typename D>
__device__ __forceinline__ D shuffle_xor(unsigned mask, const D& v, int offset)
{
    if constexpr (is_device_complex_v<D>) {
        return D(__shfl_xor_sync(mask, v.real(), offset), __shfl_xor_sync(mask, v.imag(), offset));
    } else {
        return __shfl_xor_sync(mask, v, offset);
    }
}

/// *p through L2 only: x of a row another SM solved during this launch.
template <typename D>
__device__ __forceinline__ D load_coherent(const D* p)
{
    if constexpr (is_device_complex_v<D>) {
        using Pair = typename loom::cuda::pair_of<typename D::value_type>::type;
        const Pair v = __ldcg(reinterpret_cast<const Pair*>(p));
        return D(v.x, v.y);
    } else {
        return __ldcg(p);
    }
}

/// The lanes of this thread's group of G within its warp.
template <int G>
__device__ __forceinline__ unsigned group_mask()
{
    if constexpr (G == warp_size) {
        return 0xffffffffu;
    } else {
        const int first = (threadIdx.x % warp_size) / G * G;
        return ((1u << G) - 1u) << first;
    }
}

/// Dense operands as kernels see them.
template <typename D>
struct Block {
    D* data;
    size_type stride;
    size_type cols;
};

/// Row r by a group of G lanes (`lane` in [0, G)); x of the rows it depends on must be final.
template <int G, bool coherent, typename D, typename I>
__device__ void solve_row(const detail::TriangularRows<D, I>& rows, I r, Block<const D> b,
                          Block<D> x, int lane)
{
    const unsigned mask = group_mask<G>();
    const I begin = rows.row_ptrs[r];
    const I end = rows.row_ptrs[r + 1];
    for (size_type j = 0; j < b.cols; ++j) {
        D sum{};
        D diagonal{};
        for (I k = begin + lane; k < end; k += G) {
            const I c = rows.col_idxs[k];
            const D a = rows.conjugate ? conj_dev(rows.value(k)) : rows.value(k);
            if (c != r) {
                const D* xc = x.data + c * x.stride + j;
                sum += mul(a, coherent ? load_coherent(xc) : *xc);
            } else if (!rows.unit) {
                diagonal += a;
            }
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2) {
            sum += shuffle_xor(mask, sum, offset);
            diagonal += shuffle_xor(mask, diagonal, offset);
        }
        if (lane == 0) {
            const D rhs = b.data[r * b.stride + j] - sum;
            x.data[r * x.stride + j] = rows.unit ? rhs : rhs / diagonal;
        }
    }
}

/// The rows order[begin .. end - 1] of one fat level, a group per row.
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    level_kernel(detail::TriangularRows<D, I> rows, const I* order, I begin, I end,
                 Block<const D> b, Block<D> x)
{
    const auto group = (blockIdx.x * static_cast<long long>(block_size) + threadIdx.x) / G;
    const int lane = threadIdx.x % G;
    if (begin + group < end) solve_row<G, false>(rows, order[begin + group], b, x, lane);
}

/// Levels first_level .. last_level - 1, thin ones, by one block, level after level.
template <int G, typename D, typename I>
__global__ void __launch_bounds__(chain_block_size)
    chain_kernel(detail::TriangularRows<D, I> rows, const I* order, const I* level_ptrs,
                 size_type first_level, size_type last_level, Block<const D> b, Block<D> x)
{
    constexpr int groups = chain_block_size / G;
    const int group = threadIdx.x / G;
    const int lane = threadIdx.x % G;
    for (auto l = first_level; l < last_level; ++l) {
        const I end = level_ptrs[l + 1];
        for (I i = level_ptrs[l] + group; i < end; i += groups) {
            solve_row<G, false>(rows, order[i], b, x, lane);
        }
        __syncthreads();
    }
}

/// Sync-free: rows in dependency order from a ticket; flags[n] is the ticket counter.
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    sync_free_kernel(detail::TriangularRows<D, I> rows, std::uint32_t* flags, std::uint32_t epoch,
                     Block<const D> b, Block<D> x)
{
    constexpr unsigned groups = block_size / G;
    const unsigned mask = group_mask<G>();
    const int lane = threadIdx.x % G;
    const auto n = static_cast<I>(rows.n);
    // One ticket per block, not per group: millions of atomics on one address would
    // serialise in L2.
    __shared__ unsigned int first_ticket;
    if (threadIdx.x == 0) {
        first_ticket = atomicAdd(reinterpret_cast<unsigned int*>(flags + n), groups);
    }
    __syncthreads();
    const unsigned long long ticket = first_ticket + threadIdx.x / G;
    if (ticket >= static_cast<unsigned long long>(n)) return;
    const I r = rows.lower ? static_cast<I>(ticket) : n - 1 - static_cast<I>(ticket);
    for (I k = rows.row_ptrs[r] + lane; k < rows.row_ptrs[r + 1]; k += G) {
        const I c = rows.col_idxs[k];
        if (c == r) continue;
        while (static_cast<volatile std::uint32_t*>(flags)[c] != epoch) {}
    }
    __syncwarp(mask);
    __threadfence();
    solve_row<G, true>(rows, r, b, x, lane);
    __syncwarp(mask);
    if (lane == 0) {
        __threadfence();
        static_cast<volatile std::uint32_t*>(flags)[r] = epoch;
    }
}

template <typename V, typename I>
detail::TriangularRows<device_type_t<V>, I> on_device(const detail::TriangularRows<V, I>& rows)
{
    detail::TriangularRows<device_type_t<V>, I> d;
    d.n = rows.n;
    d.nnz = rows.nnz;
    d.row_ptrs = rows.row_ptrs;
    d.col_idxs = rows.col_idxs;
    d.values = as_device(rows.values);
    d.value_index = rows.value_index;
    d.lower = rows.lower;
    d.unit = rows.unit;
    d.conjugate = rows.conjugate;
    return d;
}

template <typename V>
Block<const device_type_t<V>> block_of(const matrix::Dense<V>& d)
{
    return {as_device(d.data()), d.stride(), d.cols()};
}
template <typename V>
Block<device_type_t<V>> block_of(matrix::Dense<V>& d)
{
    return {as_device(d.data()), d.stride(), d.cols()};
}

/// Lanes per row: a warp for long rows, 4 for short ones.
template <typename V, typename I>
bool long_rows(const detail::TriangularRows<V, I>& rows)
{
    return rows.nnz > 8 * rows.n;
}

template <int G, typename V, typename I>
void level_set(const CudaExecutor& exec, const detail::TriangularRows<V, I>& host_rows,
               const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
               matrix::Dense<V>& x)
{
    const auto rows = on_device(host_rows);
    const auto* order = schedule.order.const_data();
    const auto stream = stream_of(exec);
    for (size_type s = 0; s < schedule.stages(); ++s) {
        const auto first = schedule.stage_ptrs[s];
        const auto last = schedule.stage_ptrs[s + 1];
        if (schedule.chained[s]) {
            chain_kernel<G>
                <<<1, chain_block_size, 0, stream>>>(rows, order, schedule.level_ptrs.const_data(),
                                                     first, last, block_of(b), block_of(x));
        } else {
            const I begin = schedule.host_level_ptrs[first];
            const I end = schedule.host_level_ptrs[first + 1];
            const auto blocks = ceildiv(static_cast<long long>(end - begin) * G, block_size);
            level_kernel<G><<<static_cast<unsigned>(blocks), block_size, 0, stream>>>(
                rows, order, begin, end, block_of(b), block_of(x));
        }
        check_launch(where);
    }
}

template <int G, typename V, typename I>
void sync_free(const CudaExecutor& exec, const detail::TriangularRows<V, I>& host_rows,
               const matrix::Dense<V>& b, matrix::Dense<V>& x, Array<std::uint32_t>& flags,
               std::uint32_t epoch)
{
    const auto stream = stream_of(exec);
    LOOM_CUDA_CHECK(cudaMemsetAsync(flags.data() + host_rows.n, 0, sizeof(std::uint32_t), stream),
                    where);
    const auto blocks = ceildiv(host_rows.n * G, block_size);
    sync_free_kernel<G><<<static_cast<unsigned>(blocks), block_size, 0, stream>>>(
        on_device(host_rows), flags.data(), epoch, block_of(b), block_of(x));
    check_launch(where);
}

}  // namespace sptrsv_kernels

template <typename V, typename I>
void sptrsv_level_set(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    if (sptrsv_kernels::long_rows(rows)) {
        sptrsv_kernels::level_set<32>(exec, rows, schedule, b, x);
    } else {
        sptrsv_kernels::level_set<4>(exec, rows, schedule, b, x);
    }
}

template <typename V, typename I>
void sptrsv_sync_free(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                      const matrix::Dense<V>& b, matrix::Dense<V>& x, Array<std::uint32_t>& flags,
                      std::uint32_t epoch)
{
    if (sptrsv_kernels::long_rows(rows)) {
        sptrsv_kernels::sync_free<32>(exec, rows, b, x, flags, epoch);
    } else {
        sptrsv_kernels::sync_free<4>(exec, rows, b, x, flags, epoch);
    }
}

LOOM_DEFINE_SPTRSV_SUPERNODAL(CudaExecutor)

#define LOOM_INSTANTIATE(V, I)                                                               \
    LOOM_INSTANTIATE_SPTRSV_KERNELS(CudaExecutor, V, I)                                      \
    template void sptrsv_sync_free(const CudaExecutor&, const detail::TriangularRows<V, I>&, \
                                   const matrix::Dense<V>&, matrix::Dense<V>&,               \
                                   Array<std::uint32_t>&, std::uint32_t);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::cuda
