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
// Persistent level set (many fat levels): one cooperative launch on op(T)'s level-ordered
// copy, a grid barrier per level, each group's next row loaded before the barrier.
//
// Sync-free: one launch of resident blocks only (cooperative), whose groups take the rows of
// the level-ordered copy round-robin. x is its own ready flag: filled with a signalling NaN
// first, polled by the rows that read it (ready_values.cuh; NOTES.md says why).
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "loom/launch/row_search.hpp"
#include "sparse/sptrsv/kernels.hpp"
#include "sparse/sptrsv/ready_values.cuh"
#include "sparse/sptrsv/supernodal.hpp"
#include "sparse/sptrsv/sync_free.cuh"

namespace loom::sparse::cuda {

using loom::cuda::as_device;
using loom::cuda::ceildiv;
using loom::cuda::check_launch;
using loom::cuda::conj_dev;
using loom::cuda::device_type_t;
using loom::cuda::is_device_complex_v;
using loom::cuda::mul;
using loom::cuda::stream_of;
using sync_free::group_mask;

namespace sptrsv_kernels {

constexpr const char* where = "loom::sparse::sptrsv_solve";
constexpr const char* analysis_where = "loom::sparse::sptrsv_symbolic";
constexpr int block_size = 256;
constexpr int chain_block_size = 1024;
/// Sync-free: the most blocks per SM. H200, 160^3 ILU(0) L, sync-free on the level-ordered
/// copy: 2 / 4 per SM 2687 / 2512 us (session 9, on T's rows: 8 / 4 / 2 / 1 per SM 5161 /
/// 3533 / 4106 / 5248 us; sleeping between polls only slowed it): the polls of waiting warps
/// slow the warps they wait on, so fewer resident warps poll less.
constexpr int sync_free_blocks_per_sm = 4;

template <typename D>
__device__ __forceinline__ D shuffle_xor(unsigned mask, const D& v, int offset)
{
    if constexpr (is_device_complex_v<D>) {
        return D(__shfl_xor_sync(mask, v.real(), offset), __shfl_xor_sync(mask, v.imag(), offset));
    } else {
        return __shfl_xor_sync(mask, v, offset);
    }
}

/// Dense operands as kernels see them.
template <typename D>
struct Block {
    D* data;
    size_type stride;
    size_type cols;
};

/// Row r by a group of G lanes (`lane` in [0, G)): the lanes stride over the row's entries,
/// sum a_rc x_c and the diagonal, and reduce by shuffles; the group's first lane writes x_r.
template <int G, typename D, typename I>
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
                sum += mul(a, x.data[c * x.stride + j]);
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
            const D value = rows.unit ? rhs : rhs / diagonal;
            x.data[r * x.stride + j] = value;
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
    if (begin + group < end) {
        solve_row<G>(rows, order[begin + group], b, x, lane);
    }
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
            solve_row<G>(rows, order[i], b, x, lane);
        }
        __syncthreads();
    }
}

/// *p, ordering the caller's later loads after the writes that preceded a release of *p.
__device__ __forceinline__ unsigned int load_acquire(const unsigned int* p)
{
    unsigned int v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/// Adds v to *p with release semantics: the writes before it (the block's, through the
/// __syncthreads that precedes it) are seen by whoever acquires *p after it.
__device__ __forceinline__ void release_add(unsigned int* p, unsigned int v)
{
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

/// A level-ordered copy (detail::LevelOrderedRows) as kernels see it.
template <typename D, typename I>
struct OrderedRows {
    const I* order;
    const I* ptrs;
    const I* cols;
    const D* values;
    const D* inverse_diagonal;
};

/// What a group loads of the row at one position before it needs x: the row, its entries,
/// this lane's first entry and the inverse diagonal. row < 0: no row; col < 0: no entry.
template <typename D, typename I>
struct LoadedRow {
    I row = -1;
    I begin = 0;
    I end = 0;
    I col = -1;
    D value{};
    D inverse_diagonal{};
    /// Lane 0: the row's b (first right-hand side), loaded before the barrier too (H200,
    /// 160^3 ILU(0) L, session 12: 1128 us against 1272 with b loaded after it: b is not in
    /// L2, x just written is).
    D rhs{};
};

template <typename D, typename I>
__device__ __forceinline__ LoadedRow<D, I> load_row(const OrderedRows<D, I>& rows, long long i,
                                                    long long end, int lane, Block<const D> b)
{
    LoadedRow<D, I> p;
    if (i < end) {
        p.row = rows.order[i];
        if (lane == 0) p.rhs = b.data[p.row * b.stride];
        p.begin = rows.ptrs[i];
        p.end = rows.ptrs[i + 1];
        p.inverse_diagonal = rows.inverse_diagonal[i];
        if (p.begin + lane < p.end) {
            p.col = rows.cols[p.begin + lane];
            p.value = rows.values[p.begin + lane];
        }
    }
    return p;
}

/// x_r of a loaded row by its group of G lanes, reading x_c with `read` (through L2 after a
/// grid barrier, or waiting for it: sync-free) and storing x_r with `write`.
template <int G, typename D, typename I, typename Read, typename Write>
__device__ __forceinline__ void solve_loaded_row(const OrderedRows<D, I>& rows,
                                                 const LoadedRow<D, I>& p, Block<const D> b,
                                                 Block<D> x, int lane, Read read, Write write)
{
    const unsigned mask = group_mask<G>();
    for (size_type j = 0; j < b.cols; ++j) {
        D sum{};
        if (p.col >= 0) sum = mul(p.value, read(x.data + p.col * x.stride + j));
        for (I k = p.begin + lane + G; k < p.end; k += G) {
            sum += mul(rows.values[k], read(x.data + rows.cols[k] * x.stride + j));
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2) sum += shuffle_xor(mask, sum, offset);
        if (lane == 0) {
            const D rhs = j == 0 ? p.rhs : b.data[p.row * b.stride + j];
            write(x.data + p.row * x.stride + j, mul(rhs - sum, p.inverse_diagonal));
        }
    }
}

/// x_c written by another SM before the last grid barrier: through L2.
struct ReadCoherent {
    template <typename D>
    __device__ __forceinline__ D operator()(const D* p) const
    {
        return sync_free::load_coherent(p);
    }
};
struct WritePlain {
    template <typename D>
    __device__ __forceinline__ void operator()(D* p, const D& v) const
    {
        *p = v;
    }
};
/// Sync-free: x_c polled until solved; x_r published (ready_values.cuh).
struct ReadWaiting {
    template <typename D>
    __device__ __forceinline__ D operator()(const D* p) const
    {
        return ready_values::wait_value(p, 0);
    }
};
struct WritePublished {
    template <typename D>
    __device__ __forceinline__ void operator()(D* p, const D& v) const
    {
        ready_values::publish_value(p, v);
    }
};

/// Level set in ONE launch of resident blocks (cooperative) on the level-ordered copy: every
/// level's rows split over all groups, a grid barrier between levels (arrived: a counter
/// zeroed before the launch, one release reduction a block and level). Each group loads its
/// row of the next level (and its b) between its block's arrival and the wait, so that after
/// the barrier only the x loads remain (H200, 160^3 ILU(0) L: 1128 us against 1912 on T's
/// own rows with the loads after the barrier; NOTES.md).
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    persistent_levels_kernel(OrderedRows<D, I> rows, const I* level_ptrs, unsigned int levels,
                             Block<const D> b, Block<D> x, unsigned int* arrived)
{
    constexpr int groups_per_block = block_size / G;
    const long long groups = static_cast<long long>(gridDim.x) * groups_per_block;
    const long long group = blockIdx.x * static_cast<long long>(groups_per_block) + threadIdx.x / G;
    const int lane = threadIdx.x % G;
    long long begin = level_ptrs[0];
    long long end = level_ptrs[1];
    auto next = load_row(rows, begin + group, end, lane, b);
    for (unsigned int l = 0; l < levels; ++l) {
        if (next.row >= 0) solve_loaded_row<G>(rows, next, b, x, lane, ReadCoherent{}, WritePlain{});
        for (long long i = begin + group + groups; i < end; i += groups) {
            solve_loaded_row<G>(rows, load_row(rows, i, end, lane, b), b, x, lane, ReadCoherent{},
                                WritePlain{});
        }
        if (l + 1 == levels) break;
        const long long next_end = level_ptrs[l + 2];
        __syncthreads();
        if (threadIdx.x == 0) release_add(arrived, 1u);
        next = load_row(rows, end + group, next_end, lane, b);
        begin = end;
        end = next_end;
        if (threadIdx.x == 0) {
            while (load_acquire(arrived) < (l + 1) * gridDim.x) {}
        }
        __syncthreads();
    }
}

/// The whole solve by ONE block (small factors): op(T)'s level-ordered copy, its columns as
/// positions (position_cols), and x (in position order, b first) in shared memory, the
/// levels one after the other with __syncthreads between them: no grid barrier, no launch
/// per level, and every load after the staging a shared-memory one. A run of thin levels
/// (at most `thin` rows each: one round of the first warp's groups) is run by the first warp
/// alone with __syncwarp between them and one __syncthreads after the run (a real factor's
/// long tails of one-row levels). Right-hand sides one after the other.
constexpr int one_block_size = 1024;

/// Row i of the one-block solve by its group: x_i = (b_i - sum a_ic x_c) / a_ii in shared
/// memory.
template <int G, typename D, typename I>
__device__ __forceinline__ void one_block_row(I i, const I* ptrs, const I* cols, const D* values,
                                              const D* inverse, D* xs, int lane, unsigned mask)
{
    D sum{};
    for (I k = ptrs[i] + lane; k < ptrs[i + 1]; k += G) sum += mul(values[k], xs[cols[k]]);
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) sum += shuffle_xor(mask, sum, offset);
    if (lane == 0) xs[i] = mul(xs[i] - sum, inverse[i]);
}

template <int G, typename D, typename I>
__global__ void __launch_bounds__(one_block_size)
    one_block_kernel(OrderedRows<D, I> rows, const I* position_cols, const I* level_ptrs,
                     I levels, I n, I entries, I thin, Block<const D> b, Block<D> x)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    D* xs = reinterpret_cast<D*>(shared_bytes);
    D* values = xs + n;
    D* inverse = values + entries;
    I* ptrs = reinterpret_cast<I*>(inverse + n);
    I* cols = ptrs + n + 1;
    I* lp = cols + entries;
    for (I k = threadIdx.x; k < entries; k += blockDim.x) {
        values[k] = rows.values[k];
        cols[k] = position_cols[k];
    }
    for (I i = threadIdx.x; i < n; i += blockDim.x) inverse[i] = rows.inverse_diagonal[i];
    for (I i = threadIdx.x; i <= n; i += blockDim.x) ptrs[i] = rows.ptrs[i];
    for (I l = threadIdx.x; l <= levels; l += blockDim.x) lp[l] = level_ptrs[l];
    const int groups = static_cast<int>(blockDim.x) / G;
    constexpr int warp_groups = 32 / G;
    const int group = threadIdx.x / G;
    const int lane = threadIdx.x % G;
    const unsigned mask = group_mask<G>();
    for (size_type j = 0; j < b.cols; ++j) {
        for (I i = threadIdx.x; i < n; i += blockDim.x) xs[i] = b.data[rows.order[i] * b.stride + j];
        __syncthreads();
        for (I l = 0; l < levels;) {
            I run_end = l;
            while (run_end < levels && lp[run_end + 1] - lp[run_end] <= thin) ++run_end;
            if (run_end > l) {
                if (threadIdx.x < 32) {
                    for (I m = l; m < run_end; ++m) {
                        for (I i = lp[m] + group; i < lp[m + 1]; i += warp_groups) {
                            one_block_row<G>(i, ptrs, cols, values, inverse, xs, lane, mask);
                        }
                        __syncwarp();
                    }
                }
                l = run_end;
            } else {
                for (I i = lp[l] + group; i < lp[l + 1]; i += groups) {
                    one_block_row<G>(i, ptrs, cols, values, inverse, xs, lane, mask);
                }
                ++l;
            }
            __syncthreads();
        }
        for (I i = threadIdx.x; i < n; i += blockDim.x) x.data[rows.order[i] * x.stride + j] = xs[i];
        __syncthreads();
    }
}

/// Sync-free with x as its own flag (ready_values.cuh): a launch of resident blocks only
/// (cooperative), whose groups take the positions of the level-ordered copy round-robin:
/// group g solves positions g, g + groups, ..., and loads its next row before it waits on
/// the current one's dependencies. The lowest unsolved position always progresses: its
/// group has solved all its earlier (lower) positions, and the rows it reads lie lower
/// still; so no deadlock, as long as every group runs (hence resident blocks only).
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    sync_free_kernel(OrderedRows<D, I> rows, long long n, Block<const D> b, Block<D> x)
{
    constexpr int groups_per_block = block_size / G;
    const long long groups = static_cast<long long>(gridDim.x) * groups_per_block;
    const long long group = blockIdx.x * static_cast<long long>(groups_per_block) + threadIdx.x / G;
    const int lane = threadIdx.x % G;
    auto next = load_row(rows, group, n, lane, b);
    for (long long t = group; t < n; t += groups) {
        const auto p = next;
        next = load_row(rows, t + groups, n, lane, b);
        solve_loaded_row<G>(rows, p, b, x, lane, ReadWaiting{}, WritePublished{});
    }
}

/// Supernodal step 1 (supernodal.hpp) by a group of G lanes per row: work_r = b_r - the
/// row's entries outside its diagonal block times x, for the rows level[0 .. count - 1].
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    supernodal_panel_kernel(detail::TriangularRows<D, I> rows, const I* first_row,
                            const I* row_super, const I* level, long long count,
                            Block<const D> b, Block<const D> x, Block<D> work)
{
    const auto group = (blockIdx.x * static_cast<long long>(block_size) + threadIdx.x) / G;
    if (group >= count) return;
    const unsigned mask = group_mask<G>();
    const int lane = threadIdx.x % G;
    const I r = level[group];
    const I first = first_row[row_super[r]];
    const I last = first_row[row_super[r] + 1];
    for (size_type j = 0; j < b.cols; ++j) {
        D sum{};
        for (I k = rows.row_ptrs[r] + lane; k < rows.row_ptrs[r + 1]; k += G) {
            const I c = rows.col_idxs[k];
            if (c >= first && c < last) continue;
            const D a = rows.conjugate ? conj_dev(rows.value(k)) : rows.value(k);
            sum += mul(a, x.data[c * x.stride + j]);
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2) sum += shuffle_xor(mask, sum, offset);
        if (lane == 0) work.data[r * work.stride + j] = b.data[r * b.stride + j] - sum;
    }
}

/// Supernodal: a level whose rows average at least this many entries runs step 1 by a block
/// per row (sptrsv_supernodal).
constexpr size_type long_panel_entries = 512;

/// Supernodal step 1 by a block per row, for levels of long rows (a 3D factor's top
/// separators: thousands of entries a row, and few rows a level): the block's threads
/// stride over the row and reduce by shuffles, then through shared memory.
template <int threads, typename D, typename I>
__global__ void __launch_bounds__(threads)
    supernodal_long_panel_kernel(detail::TriangularRows<D, I> rows, const I* first_row,
                                 const I* row_super, const I* level, Block<const D> b,
                                 Block<const D> x, Block<D> work)
{
    constexpr int warps = threads / 32;
    // raw bytes: a complex D has constructors, which __shared__ variables may not run
    __shared__ __align__(16) unsigned char partial_bytes[sizeof(D) * warps];
    auto* partial = reinterpret_cast<D*>(partial_bytes);
    const I r = level[blockIdx.x];
    const I first = first_row[row_super[r]];
    const I last = first_row[row_super[r] + 1];
    for (size_type j = 0; j < b.cols; ++j) {
        D sum{};
        for (I k = rows.row_ptrs[r] + threadIdx.x; k < rows.row_ptrs[r + 1]; k += threads) {
            const I c = rows.col_idxs[k];
            if (c >= first && c < last) continue;
            const D a = rows.conjugate ? conj_dev(rows.value(k)) : rows.value(k);
            sum += mul(a, x.data[c * x.stride + j]);
        }
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) sum += shuffle_xor(0xffffffffu, sum, offset);
        if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
        __syncthreads();
        if (threadIdx.x == 0) {
            D total{};
            for (int w = 0; w < warps; ++w) total += partial[w];
            work.data[r * work.stride + j] = b.data[r * b.stride + j] - total;
        }
        __syncthreads();
    }
}

/// Supernodal step 2 by a group of G lanes per row: x_r = row r of inv(D_s) . work_s.
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    supernodal_diagonal_kernel(bool lower, const I* first_row, const I* row_super,
                               const size_type* offset, const I* width, const D* blocks,
                               const I* level, long long count, Block<const D> work, Block<D> x)
{
    const auto group = (blockIdx.x * static_cast<long long>(block_size) + threadIdx.x) / G;
    if (group >= count) return;
    const unsigned mask = group_mask<G>();
    const int lane = threadIdx.x % G;
    const I r = level[group];
    const I s = row_super[r];
    const I first = first_row[s];
    const I last = first_row[s + 1];
    const D* row = blocks + offset[s] + static_cast<size_type>(r - first) * width[s];
    // inv(D_s) is triangular like D_s: row r reaches first .. r (lower) or r .. last - 1.
    const I begin = lower ? first : r;
    const I end = lower ? r + 1 : last;
    for (size_type j = 0; j < work.cols; ++j) {
        D sum{};
        for (I c = begin + lane; c < end; c += G) sum += mul(row[c - first], work.data[c * work.stride + j]);
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2) sum += shuffle_xor(mask, sum, offset);
        if (lane == 0) x.data[r * x.stride + j] = sum;
    }
}

/// Rows each group of the analysis' levels_kernel walks one after the other.
constexpr int level_rows_per_group = 16;

/// The analysis' levels, sync-free: a group takes a run of level_rows_per_group consecutive
/// rows (in dependency order) from a ticket (counter) and walks it; for each row it waits
/// until every row its entries name has its level, then sets level_plus_one[r] to one more
/// than the highest of them (level + 1: 0 means "not yet", so the level is its own ready flag
/// and needs no fence).
///
/// Why runs: the level order is not known yet, so tickets go in row order, and the rows in
/// flight are a window of consecutive rows; with a row per group the window (~67k rows on
/// an H200) holds few rows that are ready at once (a 3D stencil's plane of 25600 rows spans
/// hundreds of levels), and the pass crawls (session 7: ~50 ms for 160^3). A run of 16 rows
/// per group makes the window the whole matrix of millions of rows, and the dependency on
/// the row just above (r - 1 in a stencil) is the group's own previous row: no wait.
///
/// counter[0] is the ticket, counter[1] ends as the highest level + 1 (one atomic per block),
/// which sizes the sort by level.
template <int G, typename I>
__global__ void __launch_bounds__(block_size)
    levels_kernel(I n, const I* ptrs, const I* cols, bool lower, unsigned int* counter,
                  I* level_plus_one)
{
    __shared__ unsigned int block_highest;
    if (threadIdx.x == 0) block_highest = 0;
    const unsigned mask = group_mask<G>();
    const int lane = threadIdx.x % G;
    unsigned int highest = 0;
    // One batch of tickets a block, the grid sized to the runs (session 12: blocks looping
    // over batches until the rows ran out, fewer groups polling at once, took the 160^3
    // analysis to 129 ms; a 200 ns pause between polls 2.87 -> 2.03 ms at 160^3 but 6.86 ->
    // 8.02 ms at 100^3: neither kept).
    const unsigned long long taken = sync_free::group_ticket<G, block_size>(counter);
    const auto first = taken * level_rows_per_group;
    const auto last = first + level_rows_per_group < static_cast<unsigned long long>(n)
                          ? first + level_rows_per_group
                          : static_cast<unsigned long long>(n);
    for (auto t = first; t < last; ++t) {
        const I r = lower ? static_cast<I>(t) : n - 1 - static_cast<I>(t);
        I level = 1;
        for (I k = ptrs[r] + lane; k < ptrs[r + 1]; k += G) {
            const I c = cols[k];
            if (c == r) continue;
            I dependency;
            while ((dependency = static_cast<const volatile I*>(level_plus_one)[c]) == 0) {}
            if (dependency + 1 > level) level = dependency + 1;
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2) {
            const I other = __shfl_xor_sync(mask, level, offset);
            if (other > level) level = other;
        }
        if (lane == 0) static_cast<volatile I*>(level_plus_one)[r] = level;
        highest = static_cast<unsigned int>(level) > highest ? static_cast<unsigned int>(level)
                                                             : highest;
    }
    if (lane == 0 && highest > 0) atomicMax(&block_highest, highest);
    __syncthreads();
    if (threadIdx.x == 0 && block_highest > 0) atomicMax(counter + 1, block_highest);
}

/// The first of keys[0 .. count - 1] (sorted) not below value, or count.
template <typename I>
__device__ long long first_not_below(const I* keys, long long count, I value)
{
    return thrust::lower_bound(thrust::seq, keys, keys + count, value) - keys;
}

/// Supernode counting: rows per block of supernode_chunk_kernel, and its threads: one per
/// state, the width (1 .. 64) of the supernode open before the chunk's first row.
constexpr long long supernode_chunk = 16384;
constexpr int supernode_states = 64;
constexpr int supernode_tile = 1024;

/// Walks rows [chunk * supernode_chunk, ...) from every incoming state at once: a row r
/// joins the open supernode of width w when w <= joins[r] (it holds the w columns above it,
/// and w is below the widest supernode), else opens one of width 1. Writes where each state
/// ends and how many supernodes it opened.
__global__ void __launch_bounds__(supernode_states)
    supernode_chunk_kernel(long long n, const std::uint8_t* joins, std::uint8_t* out_width,
                           std::uint32_t* out_opened)
{
    __shared__ std::uint8_t tile[supernode_tile];
    const long long begin = blockIdx.x * supernode_chunk;
    const long long end = begin + supernode_chunk < n ? begin + supernode_chunk : n;
    unsigned width = threadIdx.x + 1;
    std::uint32_t opened = 0;
    for (long long first = begin; first < end; first += supernode_tile) {
        const int count = static_cast<int>(end - first < supernode_tile ? end - first : supernode_tile);
        for (int i = threadIdx.x; i < count; i += supernode_states) tile[i] = joins[first + i];
        __syncthreads();
        for (int i = 0; i < count; ++i) {
            if (width <= tile[i]) {
                ++width;
            } else {
                width = 1;
                ++opened;
            }
        }
        __syncthreads();
    }
    out_width[blockIdx.x * supernode_states + threadIdx.x] = static_cast<std::uint8_t>(width);
    out_opened[blockIdx.x * supernode_states + threadIdx.x] = opened;
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

/// Blocks of Kernel (`threads` threads) that fit on one SM at once; asked once per kernel.
template <auto Kernel>
int resident_per_sm()
{
    static const int per_sm = [] {
        int blocks = 0;
        LOOM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, block_size, 0),
                        where);
        return std::max(blocks, 1);
    }();
    return per_sm;
}

/// cudaLaunchCooperativeKernel with the arguments converted to the kernel's parameter types.
template <typename... Params, typename... Args>
void launch_cooperative(void (*kernel)(Params...), unsigned blocks, cudaStream_t stream,
                        Args... args)
{
    std::tuple<Params...> typed{args...};
    void* params[sizeof...(Params)];
    std::apply(
        [&](auto&... p) {
            int i = 0;
            ((params[i++] = &p), ...);
        },
        typed);
    LOOM_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(blocks),
                                                dim3(block_size), params, 0, stream),
                    where);
}

/// Launches Kernel with no more blocks than fit on the device at once (cooperatively: CUDA
/// guarantees they all run together, which sync-free's waits rely on), at most `wanted`
/// blocks and `blocks_per_sm` per SM (0: no limit).
template <auto Kernel, typename... Args>
void launch_resident(const CudaExecutor& exec, long long wanted, int blocks_per_sm, Args... args)
{
    int per_sm = resident_per_sm<Kernel>();
    if (blocks_per_sm > 0) per_sm = std::min(per_sm, blocks_per_sm);
    const long long blocks = std::max<long long>(
        1, std::min<long long>(wanted, static_cast<long long>(per_sm) * exec.multiprocessor_count()));
    launch_cooperative(Kernel, static_cast<unsigned>(blocks), stream_of(exec), args...);
}

/// Every entry of x marked unsolved (sync-free's flags).
template <typename V>
void mark_unsolved(const CudaExecutor& exec, matrix::Dense<V>& x)
{
    const auto cols = x.cols();
    const auto stride = x.stride();
    auto* xd = as_device(x.data());
    loom::cuda::parallel_for(
        exec, x.rows() * cols,
        [=] __device__(long long i) {
            ready_values::mark_not_ready(xd + (i / cols) * stride + i % cols);
        },
        where);
}

/// The level-ordered copy as kernels see it.
template <typename V, typename I>
OrderedRows<device_type_t<V>, I> ordered_rows(const detail::LevelOrderedRows<V, I>& copy,
                                              const detail::LevelSchedule<I>& schedule)
{
    return {schedule.order.const_data(), copy.ptrs.const_data(), copy.cols.const_data(),
            as_device(copy.values.const_data()), as_device(copy.inverse_diagonal.const_data())};
}

/// Lanes per row on the level-ordered copy: a warp for long rows, 4 for short ones (as
/// long_rows: more than 7 entries off the diagonal on average).
template <typename V, typename I>
bool long_rows(const detail::LevelOrderedRows<V, I>& copy)
{
    return copy.cols.size() > 7 * copy.inverse_diagonal.size();
}

template <int G, typename V, typename I>
void sync_free_solve(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                     const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                     matrix::Dense<V>& x)
{
    const auto n = static_cast<long long>(copy.inverse_diagonal.size());
    mark_unsolved(exec, x);
    launch_resident<sync_free_kernel<G, device_type_t<V>, I>>(
        exec, ceildiv(n * G, block_size), sync_free_blocks_per_sm, ordered_rows(copy, schedule), n,
        block_of(b), block_of(x));
}

template <int G, typename V, typename I>
void persistent_levels(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                       const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                       matrix::Dense<V>& x)
{
    Array<std::uint32_t> arrived(exec.shared_from_this(), 1);
    arrived.fill(0);
    long long widest = 1;
    for (size_type l = 0; l < schedule.levels(); ++l) {
        widest = std::max<long long>(
            widest, schedule.host_level_ptrs[l + 1] - schedule.host_level_ptrs[l]);
    }
    launch_resident<persistent_levels_kernel<G, device_type_t<V>, I>>(
        exec, ceildiv(widest * G, block_size), 0, ordered_rows(copy, schedule),
        schedule.level_ptrs.const_data(), static_cast<unsigned int>(schedule.levels()),
        block_of(b), block_of(x), reinterpret_cast<unsigned int*>(arrived.data()));
}

/// The one-block solve with G lanes per row.
template <int G, typename V, typename I>
void one_block_solve(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                     const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                     matrix::Dense<V>& x, int threads)
{
    using D = device_type_t<V>;
    const auto n = copy.inverse_diagonal.size();
    const auto entries = copy.cols.size();
    const auto levels = schedule.levels();
    const auto bytes = sptrsv_one_block_bytes<D, I>(n, entries, levels);
    constexpr auto kernel = one_block_kernel<G, D, I>;
    // Above 48 KB a kernel must ask for its shared memory; once, for the device's most.
    static const bool opted_in = [&] {
        LOOM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(sptrsv_one_block_capacity(exec))),
                        where);
        return true;
    }();
    (void)opted_in;
    // Runs of levels of at most one round of the first warp's groups go to that warp alone
    // (H200, mcfe ILU(0) L, session 12: 238.6 us against 262.2 without the warp runs).
    constexpr I thin = 32 / G;
    kernel<<<1, threads, bytes, stream_of(exec)>>>(
        ordered_rows(copy, schedule), copy.position_cols.const_data(),
        schedule.level_ptrs.const_data(), static_cast<I>(levels), static_cast<I>(n),
        static_cast<I>(entries), thin, block_of(b), block_of(x));
    check_launch(where);
}

/// 0, 1, ..., count - 1 on the device: the payload a stable sort turns into positions (CUB's
/// radix sort takes its values from memory, not an iterator).
template <typename I>
Array<I> positions(const CudaExecutor& exec, size_type count)
{
    Array<I> result(exec.shared_from_this(), count);
    I* data = result.data();
    loom::cuda::parallel_for(
        exec, count, [=] __device__(long long k) { data[k] = static_cast<I>(k); }, analysis_where);
    return result;
}

}  // namespace sptrsv_kernels

template <typename V, typename I>
SptrsvBadRows sptrsv_first_bad_rows(const CudaExecutor& exec, size_type n, const I* ptrs,
                                    const I* cols, const V* values, bool lower, bool unit)
{
    Array<std::uint64_t> first(exec.shared_from_this(), 2);
    first.fill(static_cast<std::uint64_t>(n));
    auto* outside = reinterpret_cast<unsigned long long*>(first.data());
    auto* zero = outside + 1;
    const auto* d = as_device(values);
    loom::cuda::parallel_for(
        exec, n,
        [=] __device__(long long r) {
            device_type_t<V> diagonal{};
            for (I k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                const long long c = cols[k];
                if (lower ? c > r : c < r) {
                    atomicMin(outside, static_cast<unsigned long long>(r));
                    return;
                }
                if (c == r) diagonal += d[k];
            }
            if (!unit && diagonal == device_type_t<V>{}) {
                atomicMin(zero, static_cast<unsigned long long>(r));
            }
        },
        sptrsv_kernels::analysis_where);
    const auto host = first.to_host();
    return {static_cast<size_type>(host[0]), static_cast<size_type>(host[1])};
}

template <typename V>
size_type sptrsv_first_zero(const CudaExecutor& exec, const V* values, size_type n,
                            size_type stride)
{
    Array<std::uint64_t> first(exec.shared_from_this(), 1);
    first.fill(static_cast<std::uint64_t>(n));
    auto* result = reinterpret_cast<unsigned long long*>(first.data());
    const auto* d = as_device(values);
    loom::cuda::parallel_for(
        exec, n,
        [=] __device__(long long i) {
            if (d[i * stride] == device_type_t<V>{}) {
                atomicMin(result, static_cast<unsigned long long>(i));
            }
        },
        sptrsv_kernels::analysis_where);
    return static_cast<size_type>(loom::detail::load_element(first, 0));
}

template <typename I>
void sptrsv_transpose_pattern(const CudaExecutor& exec, size_type n, size_type nnz, const I* ptrs,
                              const I* cols, Array<I>& t_ptrs, Array<I>& t_cols,
                              Array<I>& t_index)
{
    using sptrsv_kernels::analysis_where;
    const auto shared = exec.shared_from_this();
    Array<I> row_of(shared, nnz);
    Array<I> sorted_cols(shared, nnz);
    t_ptrs = Array<I>(shared, n + 1);
    t_cols = Array<I>(shared, nnz);
    t_index = Array<I>(shared, nnz);
    I* rows = row_of.data();
    loom::cuda::parallel_for(
        exec, n,
        [=] __device__(long long r) {
            for (I k = ptrs[r]; k < ptrs[r + 1]; ++k) rows[k] = static_cast<I>(r);
        },
        analysis_where);
    // Stable: the entries of one column keep their order in T, as the host's counting sort.
    if (nnz > 0) {
        const auto in_t = sptrsv_kernels::positions<I>(exec, nnz);
        loom::cuda::run_cub(exec, analysis_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(
                temp, bytes, cols, sorted_cols.data(), in_t.const_data(), t_index.data(),
                static_cast<long long>(nnz), 0, static_cast<int>(8 * sizeof(I)),
                stream_of(exec));
        });
    }
    const I* index = t_index.const_data();
    I* out_cols = t_cols.data();
    loom::cuda::parallel_for(
        exec, nnz, [=] __device__(long long s) { out_cols[s] = rows[index[s]]; }, analysis_where);
    const I* keys = sorted_cols.const_data();
    I* out_ptrs = t_ptrs.data();
    const auto entries = static_cast<long long>(nnz);
    loom::cuda::parallel_for(
        exec, n + 1,
        [=] __device__(long long j) {
            out_ptrs[j] =
                static_cast<I>(sptrsv_kernels::first_not_below(keys, entries, static_cast<I>(j)));
        },
        analysis_where);
}

template <typename I>
void sptrsv_level_schedule(const CudaExecutor& exec, size_type n, size_type nnz, const I* ptrs,
                           const I* cols, bool lower, detail::LevelSchedule<I>& schedule)
{
    using sptrsv_kernels::analysis_where;
    using sptrsv_kernels::block_size;
    const auto shared = exec.shared_from_this();
    Array<I> level_plus_one(shared, n);
    level_plus_one.fill(0);
    Array<std::uint32_t> counter(shared, 2);  // the ticket, the highest level + 1
    detail::AnalysisLaps laps(exec);
    counter.fill(0);
    const auto stream = stream_of(exec);
    auto* ticket = reinterpret_cast<unsigned int*>(counter.data());
    // Lanes per row as the solves choose them (long_rows).
    const auto runs = ceildiv(static_cast<long long>(n), sptrsv_kernels::level_rows_per_group);
    const auto grid = [&](int lanes) { return static_cast<unsigned>(ceildiv(runs * lanes, block_size)); };
    if (n > 0 && nnz > 8 * n) {
        sptrsv_kernels::levels_kernel<32><<<grid(32), block_size, 0, stream>>>(
            static_cast<I>(n), ptrs, cols, lower, ticket, level_plus_one.data());
    } else if (n > 0) {
        sptrsv_kernels::levels_kernel<4><<<grid(4), block_size, 0, stream>>>(
            static_cast<I>(n), ptrs, cols, lower, ticket, level_plus_one.data());
    }
    check_launch(analysis_where);
    laps.lap("  levels pass");
    const auto levels = static_cast<I>(loom::detail::load_element(counter, 1));
    // A stable sort by level keeps the rows of a level ascending, as the host's counting sort;
    // only the bits a level + 1 uses (9 for 478 levels: 2 radix passes, not 4).
    int bits = 1;
    while (bits < static_cast<int>(8 * sizeof(I)) && (static_cast<long long>(levels) >> bits) != 0) {
        ++bits;
    }
    Array<I> sorted(shared, n);
    schedule.order = Array<I>(shared, n);
    if (n > 0) {
        const auto rows = sptrsv_kernels::positions<I>(exec, n);
        loom::cuda::run_cub(exec, analysis_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(
                temp, bytes, level_plus_one.const_data(), sorted.data(), rows.const_data(),
                schedule.order.data(), static_cast<long long>(n), 0, bits, stream);
        });
    }
    schedule.level_ptrs = Array<I>(shared, static_cast<size_type>(levels) + 1);
    const I* keys = sorted.const_data();
    I* level_ptrs = schedule.level_ptrs.data();
    const auto count = static_cast<long long>(n);
    // Level l's rows start at the first key (level + 1) of l + 1 or beyond.
    loom::cuda::parallel_for(
        exec, static_cast<long long>(levels) + 1,
        [=] __device__(long long l) {
            level_ptrs[l] =
                static_cast<I>(sptrsv_kernels::first_not_below(keys, count, static_cast<I>(l + 1)));
        },
        analysis_where);
    schedule.host_level_ptrs = schedule.level_ptrs.to_host();
    schedule.host_order.clear();
    laps.lap("  sort by level, pointers");
}

template <typename I>
bool sptrsv_given_schedule(const CudaExecutor& exec, size_type n, const I* ptrs, const I* cols,
                           const SptrsvLevels<I>& given, detail::LevelSchedule<I>& schedule)
{
    using sptrsv_kernels::analysis_where;
    if (given.level_rows.size() != n || given.level_ptrs.size() == 0) return false;
    auto host_ptrs = given.level_ptrs.to_host();
    if (host_ptrs.front() != 0 || static_cast<size_type>(host_ptrs.back()) != n) return false;
    for (size_type l = 0; l + 1 < host_ptrs.size(); ++l) {
        if (host_ptrs[l + 1] <= host_ptrs[l]) return false;
    }
    const auto shared = exec.shared_from_this();
    const auto levels = static_cast<long long>(host_ptrs.size()) - 1;
    const auto rows = static_cast<I>(n);
    Array<I> level_of(shared, n);
    Array<std::uint32_t> seen(shared, n + 1);  // then the verdict: nonzero when it fails
    seen.fill(0);
    const I* level_ptrs = given.level_ptrs.const_data();
    const I* order = given.level_rows.const_data();
    I* level = level_of.data();
    std::uint32_t* count = seen.data();
    loom::cuda::parallel_for(
        exec, static_cast<long long>(n),
        [=] __device__(long long slot) {
            const I r = order[slot];
            if (r < 0 || r >= rows) {
                count[rows] = 1;
                return;
            }
            atomicAdd(count + r, 1u);
            level[r] = static_cast<I>(last_row_starting_by(
                levels, slot, [=](long long l) { return static_cast<long long>(level_ptrs[l]); }));
        },
        analysis_where);
    loom::cuda::parallel_for(
        exec, static_cast<long long>(n),
        [=] __device__(long long r) {
            if (count[r] != 1) {
                count[rows] = 1;
                return;
            }
            for (I p = ptrs[r]; p < ptrs[r + 1]; ++p) {
                const I c = cols[p];
                if (c != r && (count[c] != 1 || level[c] >= level[r])) {
                    count[rows] = 1;
                    return;
                }
            }
        },
        analysis_where);
    if (loom::detail::load_element(seen, n) != 0) return false;
    schedule.order = Array<I>(shared, given.level_rows);
    schedule.level_ptrs = Array<I>(shared, given.level_ptrs);
    schedule.host_level_ptrs = std::move(host_ptrs);
    schedule.host_order.clear();
    return true;
}

template <typename I>
size_type sptrsv_count_supernodes(const CudaExecutor& exec, size_type n, const I* ptrs,
                                  const I* cols, size_type max_width)
{
    using namespace sptrsv_kernels;
    if (n == 0) return 0;
    const auto shared = exec.shared_from_this();
    // joins[r]: how many rows above r its supernode may already hold for r to join it: the
    // columns r - 1, r - 2, ... that row r holds without a gap, below max_width (row 0: none).
    Array<std::uint8_t> joins(shared, n);
    std::uint8_t* join = joins.data();
    const auto cap = static_cast<int>(std::min<size_type>(max_width, supernode_states) - 1);
    loom::cuda::parallel_for(
        exec, n,
        [=] __device__(long long r) {
            unsigned long long held = 0;
            for (I k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                const long long distance = r - static_cast<long long>(cols[k]);
                if (distance >= 1 && distance <= supernode_states) held |= 1ull << (distance - 1);
            }
            const int run = ~held == 0 ? supernode_states : __ffsll(static_cast<long long>(~held)) - 1;
            join[r] = static_cast<std::uint8_t>(r == 0 ? 0 : (run < cap ? run : cap));
        },
        analysis_where);
    const auto chunks = ceildiv(static_cast<long long>(n), supernode_chunk);
    Array<std::uint8_t> width(shared, chunks * supernode_states);
    Array<std::uint32_t> opened(shared, chunks * supernode_states);
    supernode_chunk_kernel<<<static_cast<unsigned>(chunks), supernode_states, 0,
                             stream_of(exec)>>>(static_cast<long long>(n), joins.const_data(),
                                                width.data(), opened.data());
    check_launch(analysis_where);
    // The chunks chained on the host: a few kilobytes, one step per 16384 rows.
    const auto host_width = width.to_host();
    const auto host_opened = opened.to_host();
    size_type count = 0;
    unsigned state = 1;  // row 0 opens a supernode whatever the state
    for (long long c = 0; c < chunks; ++c) {
        count += host_opened[c * supernode_states + state - 1];
        state = host_width[c * supernode_states + state - 1];
    }
    return count;
}

template <typename V, typename I>
void sptrsv_level_set(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    using namespace sptrsv_kernels;
    if (long_rows(rows)) {
        level_set<32>(exec, rows, schedule, b, x);
    } else {
        level_set<4>(exec, rows, schedule, b, x);
    }
}

namespace sptrsv_kernels {
/// op(T)'s rows in `order`: counts of their entries off the diagonal, scanned into ptrs.
template <typename V, typename I>
size_type count_entries(const CudaExecutor& exec, const detail::TriangularRows<device_type_t<V>, I>& rows,
                        const I* order, detail::LevelOrderedRows<V, I>& copy)
{
    const auto n = rows.n;
    copy.ptrs = Array<I>(exec.shared_from_this(), n + 1);
    I* counts = copy.ptrs.data();
    loom::cuda::parallel_for(
        exec, n,
        [=] __device__(long long i) {
            const I r = order[i];
            I count = 0;
            for (I k = rows.row_ptrs[r]; k < rows.row_ptrs[r + 1]; ++k) count += rows.col_idxs[k] != r;
            counts[i] = count;
        },
        analysis_where);
    loom::cuda::exclusive_prefix_sum(exec, counts, n + 1);
    return static_cast<size_type>(loom::detail::load_element(copy.ptrs, n));
}
}  // namespace sptrsv_kernels

template <typename V, typename I>
void sptrsv_level_ordered_rows(const CudaExecutor& exec, const detail::TriangularRows<V, I>& host_rows,
                               const detail::LevelSchedule<I>& schedule, bool pattern,
                               detail::LevelOrderedRows<V, I>& copy)
{
    using D = device_type_t<V>;
    const auto rows = sptrsv_kernels::on_device(host_rows);
    const auto n = rows.n;
    const I* order = schedule.order.const_data();
    if (pattern) {
        const auto shared = exec.shared_from_this();
        copy = {};
        const auto entries = sptrsv_kernels::count_entries(exec, rows, order, copy);
        copy.cols = Array<I>(shared, entries);
        copy.values = Array<V>(shared, entries);
        copy.inverse_diagonal = Array<V>(shared, n);
        copy.position_of = Array<I>(shared, n);
        I* position_of = copy.position_of.data();
        loom::cuda::parallel_for(
            exec, n, [=] __device__(long long i) { position_of[order[i]] = static_cast<I>(i); },
            sptrsv_kernels::analysis_where);
    }
    const I* ptrs = copy.ptrs.const_data();
    I* cols = copy.cols.data();
    D* values = as_device(copy.values.data());
    D* inverse = as_device(copy.inverse_diagonal.data());
    // The numeric phase writes values only.
    loom::cuda::parallel_for(
        exec, n,
        [=] __device__(long long i) {
            const I r = order[i];
            D diagonal{};
            I out = ptrs[i];
            for (I k = rows.row_ptrs[r]; k < rows.row_ptrs[r + 1]; ++k) {
                const D a = rows.conjugate ? conj_dev(rows.value(k)) : rows.value(k);
                if (rows.col_idxs[k] == r) {
                    diagonal += a;
                    continue;
                }
                if (pattern) cols[out] = rows.col_idxs[k];
                values[out++] = a;
            }
            inverse[i] = rows.unit ? D(1) : D(1) / diagonal;
        },
        sptrsv_kernels::analysis_where);
}

namespace sptrsv_kernels {
/// f(lanes), lanes a std::integral_constant: the lanes per row on the level-ordered copy, a
/// warp for long rows, 4 for short ones (long_rows).
template <typename V, typename I, typename F>
void with_lanes(const detail::LevelOrderedRows<V, I>& copy, F&& f)
{
    if (long_rows(copy)) {
        f(std::integral_constant<int, 32>{});
    } else {
        f(std::integral_constant<int, 4>{});
    }
}
}  // namespace sptrsv_kernels

template <typename V, typename I>
void sptrsv_persistent_level_set(const CudaExecutor& exec,
                                 const detail::LevelOrderedRows<V, I>& copy,
                                 const detail::LevelSchedule<I>& schedule,
                                 const matrix::Dense<V>& b, matrix::Dense<V>& x)
{
    sptrsv_kernels::with_lanes(copy, [&](auto lanes) {
        sptrsv_kernels::persistent_levels<decltype(lanes)::value>(exec, copy, schedule, b, x);
    });
}

size_type sptrsv_one_block_capacity(const CudaExecutor& exec)
{
    int bytes = 0;
    LOOM_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                           exec.device_id()),
                    sptrsv_kernels::analysis_where);
    return static_cast<size_type>(bytes);
}

template <typename V, typename I>
void sptrsv_one_block_prepare(const CudaExecutor& exec, detail::LevelOrderedRows<V, I>& copy)
{
    copy.position_cols = Array<I>(exec.shared_from_this(), copy.cols.size());
    I* out = copy.position_cols.data();
    const I* cols = copy.cols.const_data();
    const I* position_of = copy.position_of.const_data();
    loom::cuda::parallel_for(
        exec, copy.cols.size(), [=] __device__(long long k) { out[k] = position_of[cols[k]]; },
        sptrsv_kernels::analysis_where);
    copy.one_block = true;
}

template <typename V, typename I>
void sptrsv_one_block(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    // Lanes per row by the mean row (shared-memory loads are short: fewer idle lanes, fewer
    // shuffles); threads as the widest level needs, 256 to 1024 (H200, mcfe: 1024 threads
    // 245 us, 384-512 223-224 us; sherman5 256 threads 38.5 us against 28.4 with 1024).
    const auto n = static_cast<long long>(copy.inverse_diagonal.size());
    const auto entries = static_cast<long long>(copy.cols.size());
    const int lanes = entries <= 6 * n ? 4 : entries <= 24 * n ? 8 : 32;
    long long widest = 1;
    for (size_type l = 0; l < schedule.levels(); ++l) {
        widest = std::max<long long>(widest, schedule.host_level_ptrs[l + 1] - schedule.host_level_ptrs[l]);
    }
    const int threads = static_cast<int>(
        std::clamp<long long>((widest * lanes + 31) / 32 * 32, 256, sptrsv_kernels::one_block_size));
    if (lanes == 32) {
        sptrsv_kernels::one_block_solve<32>(exec, copy, schedule, b, x, threads);
    } else if (lanes == 8) {
        sptrsv_kernels::one_block_solve<8>(exec, copy, schedule, b, x, threads);
    } else {
        sptrsv_kernels::one_block_solve<4>(exec, copy, schedule, b, x, threads);
    }
}

template <typename V, typename I>
void sptrsv_sync_free(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    sptrsv_kernels::with_lanes(copy, [&](auto lanes) {
        sptrsv_kernels::sync_free_solve<decltype(lanes)::value>(exec, copy, schedule, b, x);
    });
}

template <typename V, typename I>
void sptrsv_supernodal_blocks(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                              detail::Supernodes<V, I>& supernodes)
{
    unified::sptrsv_supernodal_blocks(exec, rows, supernodes);
}

/// Supernodal: the schedule of supernodal.hpp with CUDA's own kernels. Step 1 by a warp per
/// row, or by a block per row on levels whose rows average at least long_panel_entries (a
/// 3D factor's top separators: a few rows of thousands of entries a level); step 2 by a warp
/// per row (a 64-row block's row is 64 products). H200, 27-point 40^3 stand-in (69 levels,
/// 58 of them long): step 1 by warps 4.0 ms, by blocks where long 0.88 ms (by blocks on every
/// level 0.94 ms); step 2 by a thread per row 1.35 ms, 8 lanes 0.52 ms, a warp 0.40 ms: the
/// solve 5.5 ms -> 1.41 ms (cuSPARSE 19.2 ms).
template <typename V, typename I>
void sptrsv_supernodal(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                       const detail::Supernodes<V, I>& supernodes, const matrix::Dense<V>& b,
                       matrix::Dense<V>& x, matrix::Dense<V>& work)
{
    using namespace sptrsv_kernels;
    using D = device_type_t<V>;
    const auto device_rows = on_device(rows);
    const auto stream = stream_of(exec);
    const Block<const D> x_read{as_device(x.data()), x.stride(), x.cols()};
    const Block<const D> work_read{as_device(work.data()), work.stride(), work.cols()};
    const I* first_row = supernodes.first_row.const_data();
    const I* row_super = supernodes.row_super.const_data();
    for (size_type l = 0; l < supernodes.levels(); ++l) {
        const I* level = supernodes.order.const_data() + supernodes.host_level_ptrs[l];
        const auto count = static_cast<long long>(supernodes.host_level_ptrs[l + 1] -
                                                  supernodes.host_level_ptrs[l]);
        if (supernodes.host_level_entries[l] >= long_panel_entries * static_cast<size_type>(count)) {
            supernodal_long_panel_kernel<block_size><<<static_cast<unsigned>(count), block_size, 0, stream>>>(
                device_rows, first_row, row_super, level, block_of(b), x_read, block_of(work));
        } else {
            supernodal_panel_kernel<32><<<static_cast<unsigned>(ceildiv(count * 32, block_size)), block_size, 0, stream>>>(
                device_rows, first_row, row_super, level, count, block_of(b), x_read, block_of(work));
        }
        check_launch(where);
        supernodal_diagonal_kernel<32><<<static_cast<unsigned>(ceildiv(count * 32, block_size)), block_size, 0, stream>>>(
            rows.lower, first_row, row_super, supernodes.block_offset.const_data(),
            supernodes.block_width.const_data(), as_device(supernodes.blocks.const_data()), level,
            count, work_read, block_of(x));
        check_launch(where);
    }
}

#define LOOM_INSTANTIATE(V, I)                                                               \
    LOOM_INSTANTIATE_SPTRSV_KERNELS(CudaExecutor, V, I)                                      \
    template void sptrsv_sync_free(const CudaExecutor&, const detail::LevelOrderedRows<V, I>&, \
                                   const detail::LevelSchedule<I>&, const matrix::Dense<V>&,  \
                                   matrix::Dense<V>&);                                        \
    template void sptrsv_persistent_level_set(const CudaExecutor&,                            \
                                              const detail::LevelOrderedRows<V, I>&,          \
                                              const detail::LevelSchedule<I>&,                \
                                              const matrix::Dense<V>&, matrix::Dense<V>&);    \
    template void sptrsv_level_ordered_rows(const CudaExecutor&,                              \
                                            const detail::TriangularRows<V, I>&,              \
                                            const detail::LevelSchedule<I>&, bool,            \
                                            detail::LevelOrderedRows<V, I>&);                 \
    template void sptrsv_one_block_prepare(const CudaExecutor&, detail::LevelOrderedRows<V, I>&); \
    template void sptrsv_one_block(const CudaExecutor&, const detail::LevelOrderedRows<V, I>&,  \
                                   const detail::LevelSchedule<I>&, const matrix::Dense<V>&,  \
                                   matrix::Dense<V>&);                                        \
    template SptrsvBadRows sptrsv_first_bad_rows(const CudaExecutor&, size_type, const I*,     \
                                                 const I*, const V*, bool, bool);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

#define LOOM_INSTANTIATE_ANALYSIS(I)                                                             \
    template void sptrsv_transpose_pattern(const CudaExecutor&, size_type, size_type, const I*,  \
                                           const I*, Array<I>&, Array<I>&, Array<I>&);           \
    template void sptrsv_level_schedule(const CudaExecutor&, size_type, size_type, const I*,     \
                                        const I*, bool, detail::LevelSchedule<I>&);              \
    template size_type sptrsv_count_supernodes(const CudaExecutor&, size_type, const I*,         \
                                               const I*, size_type);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_ANALYSIS)

#define LOOM_INSTANTIATE_GIVEN_SCHEDULE(I)                                                    \
    template bool sptrsv_given_schedule(const CudaExecutor&, size_type, const I*, const I*,  \
                                        const SptrsvLevels<I>&, detail::LevelSchedule<I>&);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_GIVEN_SCHEDULE)

#define LOOM_INSTANTIATE_FIRST_ZERO(V) \
    template size_type sptrsv_first_zero(const CudaExecutor&, const V*, size_type, size_type);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_FIRST_ZERO)

}  // namespace loom::sparse::cuda
