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
// Sync-free: one launch of resident blocks only (cooperative), whose groups take the rows in
// the analysis' level order, round-robin. x is its own ready flag: filled with a signalling
// NaN first, polled by the rows that read it (ready_values.cuh; NOTES.md says why).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <tuple>
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
/// Sync-free: nanoseconds a lane sleeps between polls of an unsolved x_c, and the most
/// blocks per SM (0: as many as fit). H200, session 9, 160^3 ILU(0) L / 2000^2 L (us):
/// all 8 blocks 5161 / 45818, 4: 3533 / -, 2: 4106 / 19960, 1: 5248 / 19858; sleeping
/// 32 / 128 / 512 ns between polls: 10288 / 7100 / 5120 (the polls of waiting warps slow
/// the warps they wait on; fewer resident warps, fewer polls).
constexpr unsigned sync_free_poll_ns = 0;
constexpr int sync_free_blocks_per_sm = 2;

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

/// How solve_row reads x_c of a row that row r depends on.
enum class Reads {
    /// final before the launch (level set, a launch per level);
    solved,
    /// final, written by another SM during this launch: through L2 (the persistent level
    /// set, after its grid barrier);
    coherent,
    /// polled until it holds a value (sync-free, ready_values.cuh); x_r is published so.
    waiting,
};

/// Row r by a group of G lanes (`lane` in [0, G)): the lanes stride over the row's entries,
/// sum a_rc x_c and the diagonal, and reduce by shuffles; the group's first lane writes x_r.
/// Sync-free polls entry by entry with a_rc loaded first, so a dependency finished early is
/// used while later ones still run.
template <int G, Reads reads, typename D, typename I>
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
                if constexpr (reads == Reads::waiting) {
                    sum += mul(a, ready_values::wait_value(xc, sync_free_poll_ns));
                } else if constexpr (reads == Reads::coherent) {
                    sum += mul(a, sync_free::load_coherent(xc));
                } else {
                    sum += mul(a, *xc);
                }
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
            if constexpr (reads == Reads::waiting) {
                ready_values::publish_value(x.data + r * x.stride + j, value);
            } else {
                x.data[r * x.stride + j] = value;
            }
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
        solve_row<G, Reads::solved>(rows, order[begin + group], b, x, lane);
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
            solve_row<G, Reads::solved>(rows, order[i], b, x, lane);
        }
        __syncthreads();
    }
}

/// Sync-free with x as its own flag (ready_values.cuh): a launch of resident blocks only
/// (cooperative), whose groups take the rows in level order round-robin: group g solves
/// order[g], order[g + groups], ... The lowest unsolved position always progresses: its
/// group has solved all its earlier (lower) positions, and the rows it reads lie lower still;
/// so no deadlock, as long as every group runs (hence resident blocks only).
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    sync_free_kernel(detail::TriangularRows<D, I> rows, const I* order, Block<const D> b,
                            Block<D> x)
{
    constexpr int groups_per_block = block_size / G;
    const long long groups = static_cast<long long>(gridDim.x) * groups_per_block;
    const int lane = threadIdx.x % G;
    const auto n = static_cast<long long>(rows.n);
    for (long long t = blockIdx.x * static_cast<long long>(groups_per_block) + threadIdx.x / G;
         t < n; t += groups) {
        solve_row<G, Reads::waiting>(rows, order[t], b, x, lane);
    }
}

/// *p, ordering the caller's later loads after the writes that preceded a release of *p.
__device__ __forceinline__ unsigned int load_acquire(const unsigned int* p)
{
    unsigned int v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/// Every block of the (cooperative) launch waits here until all gridDim.x have arrived
/// `target / gridDim.x` times: arrived only grows, so no barrier resets it.
__device__ __forceinline__ void grid_barrier(unsigned int* arrived, unsigned int target)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();  // the block's x writes before its arrival
        atomicAdd(arrived, 1u);
        while (load_acquire(arrived) < target) {}
    }
    __syncthreads();
}

/// Level set in ONE launch of resident blocks (cooperative): every level's rows split over
/// all groups, a grid barrier between levels (arrived: a counter zeroed before the launch).
/// Replaces a launch per fat level (measured on the H200: ~4 us a level against ~5).
template <int G, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    persistent_levels_kernel(detail::TriangularRows<D, I> rows, const I* order,
                             const I* level_ptrs, unsigned int levels, Block<const D> b,
                             Block<D> x, unsigned int* arrived)
{
    constexpr int groups_per_block = block_size / G;
    const long long groups = static_cast<long long>(gridDim.x) * groups_per_block;
    const long long group = blockIdx.x * static_cast<long long>(groups_per_block) + threadIdx.x / G;
    const int lane = threadIdx.x % G;
    for (unsigned int l = 0; l < levels; ++l) {
        const long long end = level_ptrs[l + 1];
        for (long long i = level_ptrs[l] + group; i < end; i += groups) {
            solve_row<G, Reads::coherent>(rows, order[i], b, x, lane);
        }
        if (l + 1 < levels) grid_barrier(arrived, (l + 1) * gridDim.x);
    }
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

/// What a group loads of the row at one position before the grid barrier that precedes the
/// row's level: the row, its entries, this lane's first E entries (begin + lane + e G) and
/// the inverse diagonal; none of it depends on x. row < 0: no row; col < 0: no entry.
template <int E, typename D, typename I>
struct LoadedRow {
    I row = -1;
    I begin = 0;
    I end = 0;
    I col[E];
    D value[E];
    D inverse_diagonal{};
};

template <int G, int E, typename D, typename I>
__device__ __forceinline__ LoadedRow<E, D, I> load_row(const OrderedRows<D, I>& rows,
                                                       long long i, long long end, int lane)
{
    LoadedRow<E, D, I> p;
#pragma unroll
    for (int e = 0; e < E; ++e) p.col[e] = -1;
    if (i < end) {
        p.row = rows.order[i];
        p.begin = rows.ptrs[i];
        p.end = rows.ptrs[i + 1];
        p.inverse_diagonal = rows.inverse_diagonal[i];
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const I k = p.begin + lane + e * G;
            if (k < p.end) {
                p.col[e] = rows.cols[k];
                p.value[e] = rows.values[k];
            }
        }
    }
    return p;
}

/// x_r of a loaded row by its group of G lanes; x_c read through L2 (written by other SMs
/// before the last grid barrier).
template <int G, int E, typename D, typename I>
__device__ void solve_loaded_row(const OrderedRows<D, I>& rows, const LoadedRow<E, D, I>& p,
                                 Block<const D> b, Block<D> x, int lane)
{
    const unsigned mask = group_mask<G>();
    for (size_type j = 0; j < b.cols; ++j) {
        D sum{};
#pragma unroll
        for (int e = 0; e < E; ++e) {
            if (p.col[e] >= 0) {
                sum += mul(p.value[e], sync_free::load_coherent(x.data + p.col[e] * x.stride + j));
            }
        }
        for (I k = p.begin + lane + E * G; k < p.end; k += G) {
            sum += mul(rows.values[k], sync_free::load_coherent(x.data + rows.cols[k] * x.stride + j));
        }
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2) sum += shuffle_xor(mask, sum, offset);
        if (lane == 0) {
            x.data[p.row * x.stride + j] = mul(b.data[p.row * b.stride + j] - sum, p.inverse_diagonal);
        }
    }
}

/// The persistent level set on the level-ordered copy: as persistent_levels_kernel, but each
/// group loads its row of the next level (everything but x) between its block's arrival at
/// the grid barrier and the wait, so that after the barrier only the x loads remain; the
/// arrival is one release reduction, not a fence and an atomic.
template <int G, int E, int threads, typename D, typename I>
__global__ void __launch_bounds__(threads)
    ordered_levels_kernel(OrderedRows<D, I> rows, const I* level_ptrs, unsigned int levels,
                          Block<const D> b, Block<D> x, unsigned int* arrived)
{
    constexpr int groups_per_block = threads / G;
    const long long groups = static_cast<long long>(gridDim.x) * groups_per_block;
    const long long group = blockIdx.x * static_cast<long long>(groups_per_block) + threadIdx.x / G;
    const int lane = threadIdx.x % G;
    long long begin = level_ptrs[0];
    long long end = level_ptrs[1];
    auto next = load_row<G, E>(rows, begin + group, end, lane);
    for (unsigned int l = 0; l < levels; ++l) {
        if (next.row >= 0) solve_loaded_row<G>(rows, next, b, x, lane);
        for (long long i = begin + group + groups; i < end; i += groups) {
            solve_loaded_row<G>(rows, load_row<G, E>(rows, i, end, lane), b, x, lane);
        }
        if (l + 1 == levels) break;
        const long long next_end = level_ptrs[l + 2];
        __syncthreads();
        if (threadIdx.x == 0) release_add(arrived, 1u);
        next = load_row<G, E>(rows, end + group, next_end, lane);
        begin = end;
        end = next_end;
        if (threadIdx.x == 0) {
            while (load_acquire(arrived) < (l + 1) * gridDim.x) {}
        }
        __syncthreads();
    }
}

/// Sync-free on the level-ordered copy (GPU round): group g solves the positions g,
/// g + groups, ... as sync_free_kernel (x its own flag), and loads its next row before it
/// waits on the current one's dependencies.
template <int G, int E, int threads, typename D, typename I>
__global__ void __launch_bounds__(threads)
    ordered_sync_free_kernel(OrderedRows<D, I> rows, long long n, Block<const D> b, Block<D> x)
{
    constexpr int groups_per_block = threads / G;
    const long long groups = static_cast<long long>(gridDim.x) * groups_per_block;
    const long long group = blockIdx.x * static_cast<long long>(groups_per_block) + threadIdx.x / G;
    const int lane = threadIdx.x % G;
    const unsigned mask = group_mask<G>();
    auto next = load_row<G, E>(rows, group, n, lane);
    for (long long t = group; t < n; t += groups) {
        const auto p = next;
        next = load_row<G, E>(rows, t + groups, n, lane);
        for (size_type j = 0; j < b.cols; ++j) {
            D sum{};
#pragma unroll
            for (int e = 0; e < E; ++e) {
                if (p.col[e] >= 0) {
                    sum += mul(p.value[e],
                               ready_values::wait_value(x.data + p.col[e] * x.stride + j, 0));
                }
            }
            for (I k = p.begin + lane + E * G; k < p.end; k += G) {
                sum += mul(rows.values[k],
                           ready_values::wait_value(x.data + rows.cols[k] * x.stride + j, 0));
            }
#pragma unroll
            for (int offset = G / 2; offset > 0; offset /= 2) sum += shuffle_xor(mask, sum, offset);
            if (lane == 0) {
                ready_values::publish_value(
                    x.data + p.row * x.stride + j,
                    mul(b.data[p.row * b.stride + j] - sum, p.inverse_diagonal));
            }
        }
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
    if (threadIdx.x == 0) block_highest = 0;  // group_ticket synchronises the block
    const unsigned mask = group_mask<G>();
    const int lane = threadIdx.x % G;
    unsigned int highest = 0;
    const auto first = sync_free::group_ticket<G, block_size>(counter) * level_rows_per_group;
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
template <auto Kernel, int threads = block_size>
int resident_per_sm()
{
    static const int per_sm = [] {
        int blocks = 0;
        LOOM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, threads, 0),
                        where);
        return std::max(blocks, 1);
    }();
    return per_sm;
}

/// cudaLaunchCooperativeKernel with the arguments converted to the kernel's parameter types.
template <int threads = block_size, typename... Params, typename... Args>
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
                                                dim3(threads), params, 0, stream),
                    where);
}

/// Launches Kernel with no more blocks than fit on the device at once (cooperatively: CUDA
/// guarantees they all run together, which sync-free's waits rely on), at most `wanted`
/// blocks and `blocks_per_sm` per SM (0: no limit).
template <auto Kernel, int threads = block_size, typename... Args>
void launch_resident(const CudaExecutor& exec, long long wanted, int blocks_per_sm, Args... args)
{
    int per_sm = resident_per_sm<Kernel, threads>();
    if (blocks_per_sm > 0) per_sm = std::min(per_sm, blocks_per_sm);
    const long long blocks = std::max<long long>(
        1, std::min<long long>(wanted, static_cast<long long>(per_sm) * exec.multiprocessor_count()));
    launch_cooperative<threads>(Kernel, static_cast<unsigned>(blocks), stream_of(exec), args...);
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

template <int G, typename V, typename I>
void sync_free_solve(const CudaExecutor& exec, const detail::TriangularRows<V, I>& host_rows,
               const I* order, const matrix::Dense<V>& b, matrix::Dense<V>& x)
{
    mark_unsolved(exec, x);
    launch_resident<sync_free_kernel<G, device_type_t<V>, I>>(
        exec, ceildiv(host_rows.n * G, block_size), sync_free_blocks_per_sm, on_device(host_rows),
        order, block_of(b), block_of(x));
}

template <int G, typename V, typename I>
void persistent_levels(const CudaExecutor& exec, const detail::TriangularRows<V, I>& host_rows,
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
        exec, ceildiv(widest * G, block_size), 0, on_device(host_rows),
        schedule.order.const_data(), schedule.level_ptrs.const_data(),
        static_cast<unsigned int>(schedule.levels()), block_of(b), block_of(x),
        reinterpret_cast<unsigned int*>(arrived.data()));
}

/// An integer from the environment, or `otherwise` (GPU-round experiment switches).
inline int env_int(const char* name, int otherwise)
{
    const char* text = std::getenv(name);
    return text ? std::atoi(text) : otherwise;
}

template <int G, int E, int threads, typename V, typename I>
void ordered_levels(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                    const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                    matrix::Dense<V>& x, int blocks_per_sm)
{
    using D = device_type_t<V>;
    Array<std::uint32_t> arrived(exec.shared_from_this(), 1);
    arrived.fill(0);
    long long widest = 1;
    for (size_type l = 0; l < schedule.levels(); ++l) {
        widest = std::max<long long>(
            widest, schedule.host_level_ptrs[l + 1] - schedule.host_level_ptrs[l]);
    }
    const OrderedRows<D, I> rows{schedule.order.const_data(), copy.ptrs.const_data(),
                                 copy.cols.const_data(), as_device(copy.values.const_data()),
                                 as_device(copy.inverse_diagonal.const_data())};
    // GPU round: LOOM_SPTRSV_BLOCKS caps the grid (tests the rows beyond one per group).
    const long long cap = env_int("LOOM_SPTRSV_BLOCKS", 0);
    const long long wanted = ceildiv(widest * G, threads);
    launch_resident<ordered_levels_kernel<G, E, threads, D, I>, threads>(
        exec, cap > 0 ? std::min(cap, wanted) : wanted, blocks_per_sm, rows, schedule.level_ptrs.const_data(),
        static_cast<unsigned int>(schedule.levels()), block_of(b), block_of(x),
        reinterpret_cast<unsigned int*>(arrived.data()));
}

template <int G, int E, int threads, typename V, typename I>
void ordered_sync_free(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                       const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                       matrix::Dense<V>& x, int blocks_per_sm)
{
    using D = device_type_t<V>;
    const auto n = static_cast<long long>(copy.inverse_diagonal.size());
    const OrderedRows<D, I> rows{schedule.order.const_data(), copy.ptrs.const_data(),
                                 copy.cols.const_data(), as_device(copy.values.const_data()),
                                 as_device(copy.inverse_diagonal.const_data())};
    mark_unsolved(exec, x);
    launch_resident<ordered_sync_free_kernel<G, E, threads, D, I>, threads>(
        exec, ceildiv(n * G, threads), blocks_per_sm, rows, n, block_of(b), block_of(x));
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
    counter.fill(0);
    const auto stream = stream_of(exec);
    auto* ticket = reinterpret_cast<unsigned int*>(counter.data());
    // Lanes per row as the solves choose them (long_rows).
    const auto runs = ceildiv(static_cast<long long>(n), sptrsv_kernels::level_rows_per_group);
    if (n > 0 && nnz > 8 * n) {
        sptrsv_kernels::levels_kernel<32>
            <<<static_cast<unsigned>(ceildiv(runs * 32, block_size)), block_size, 0, stream>>>(
                static_cast<I>(n), ptrs, cols, lower, ticket, level_plus_one.data());
    } else if (n > 0) {
        sptrsv_kernels::levels_kernel<4>
            <<<static_cast<unsigned>(ceildiv(runs * 4, block_size)), block_size, 0, stream>>>(
                static_cast<I>(n), ptrs, cols, lower, ticket, level_plus_one.data());
    }
    check_launch(analysis_where);
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
    if (schedule.persistent && long_rows(rows)) {
        persistent_levels<32>(exec, rows, schedule, b, x);
    } else if (schedule.persistent) {
        persistent_levels<4>(exec, rows, schedule, b, x);
    } else if (long_rows(rows)) {
        level_set<32>(exec, rows, schedule, b, x);
    } else {
        level_set<4>(exec, rows, schedule, b, x);
    }
}

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
        copy.ptrs = Array<I>(shared, n + 1);
        I* counts = copy.ptrs.data();
        loom::cuda::parallel_for(
            exec, n,
            [=] __device__(long long i) {
                const I r = order[i];
                I count = 0;
                for (I k = rows.row_ptrs[r]; k < rows.row_ptrs[r + 1]; ++k) count += rows.col_idxs[k] != r;
                counts[i] = count;
            },
            sptrsv_kernels::analysis_where);
        loom::cuda::exclusive_prefix_sum(exec, counts, n + 1);
        const auto entries = static_cast<size_type>(loom::detail::load_element(copy.ptrs, n));
        copy.cols = Array<I>(shared, entries);
        copy.values = Array<V>(shared, entries);
        copy.inverse_diagonal = Array<V>(shared, n);
    }
    const I* ptrs = copy.ptrs.const_data();
    I* cols = copy.cols.data();
    D* values = as_device(copy.values.data());
    D* inverse = as_device(copy.inverse_diagonal.data());
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
                cols[out] = rows.col_idxs[k];
                values[out++] = a;
            }
            inverse[i] = rows.unit ? D(1) : D(1) / diagonal;
        },
        sptrsv_kernels::analysis_where);
}

/// GPU round only (deleted after it): with LOOM_SPTRSV_CYCLE=1 every call runs the next of
/// a list of variants, timed by events, and prints "sptrsv-variant NAME US".
struct RoundTimer {
    cudaStream_t stream;
    bool on;
    cudaEvent_t start{}, stop{};
    RoundTimer(cudaStream_t s, bool enabled) : stream(s), on(enabled)
    {
        if (!on) return;
        cudaEventCreate(&start);
        cudaEventCreate(&stop);
        cudaEventRecord(start, stream);
    }
    void finish(const char* name)
    {
        if (!on) return;
        cudaEventRecord(stop, stream);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        std::printf("sptrsv-variant %s %.1f\n", name, 1000.0 * ms);
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
};

inline int round_variant(int count)
{
    static int calls = 0;
    return sptrsv_kernels::env_int("LOOM_SPTRSV_CYCLE", 0) != 0 ? calls++ % count : -1;
}

template <typename V, typename I>
void sptrsv_level_set_ordered(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                              const detail::LevelOrderedRows<V, I>& copy,
                              const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                              matrix::Dense<V>& x)
{
    using namespace sptrsv_kernels;
    const auto n = static_cast<size_type>(copy.inverse_diagonal.size());
    const bool long_rows = static_cast<size_type>(copy.cols.size()) > 7 * n;
    int per_sm = env_int("LOOM_SPTRSV_BLOCKS_PER_SM", 0);
    int threads = env_int("LOOM_SPTRSV_THREADS", 256);
    // 256 threads: as many blocks as the widest level needs (x1, x2: at most that many per
    // SM); 1024 threads: fewer, fatter blocks; g1: a thread per short row (4 entries loaded
    // ahead), fewer blocks still.
    const char* names[] = {"session9",        "ordered256",       "ordered256x1",
                           "ordered256x2",    "ordered1024",      "ordered256-g1",
                           "ordered1024-g1",  "ordered256x1-g1"};
    const int variant = round_variant(8);
    RoundTimer timer(stream_of(exec), variant >= 0);
    if (variant == 0) {
        if (long_rows) {
            persistent_levels<32>(exec, rows, schedule, b, x);
        } else {
            persistent_levels<4>(exec, rows, schedule, b, x);
        }
        timer.finish(names[0]);
        return;
    }
    bool thread_per_row = env_int("LOOM_SPTRSV_G1", 0) != 0;
    if (variant > 0) {
        const int t[] = {0, 256, 256, 256, 1024, 256, 1024, 256};
        const int p[] = {0, 0, 1, 2, 0, 0, 0, 1};
        threads = t[variant];
        per_sm = p[variant];
        thread_per_row = variant >= 5;
    }
    if (long_rows) {
        if (threads == 1024) {
            ordered_levels<32, 1, 1024>(exec, copy, schedule, b, x, per_sm);
        } else {
            ordered_levels<32, 1, 256>(exec, copy, schedule, b, x, per_sm);
        }
    } else if (thread_per_row) {
        if (threads == 1024) {
            ordered_levels<1, 4, 1024>(exec, copy, schedule, b, x, per_sm);
        } else {
            ordered_levels<1, 4, 256>(exec, copy, schedule, b, x, per_sm);
        }
    } else if (threads == 1024) {
        ordered_levels<4, 1, 1024>(exec, copy, schedule, b, x, per_sm);
    } else {
        ordered_levels<4, 1, 256>(exec, copy, schedule, b, x, per_sm);
    }
    if (variant > 0) timer.finish(names[variant]);
}

template <typename V, typename I>
void sptrsv_sync_free_ordered(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                              const detail::LevelOrderedRows<V, I>& copy,
                              const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                              matrix::Dense<V>& x)
{
    using namespace sptrsv_kernels;
    const auto n = static_cast<size_type>(copy.inverse_diagonal.size());
    const bool long_rows = static_cast<size_type>(copy.cols.size()) > 7 * n;
    const char* names[] = {"sf-session9", "sf-ordered-x2", "sf-ordered-x4", "sf-ordered-g1-x2",
                           "sf-ordered-g1-x1"};
    int variant = round_variant(5);
    RoundTimer timer(stream_of(exec), variant >= 0);
    if (variant < 0) variant = 1;
    if (variant == 0) {
        if (long_rows) {
            sync_free_solve<32>(exec, rows, schedule.order.const_data(), b, x);
        } else {
            sync_free_solve<4>(exec, rows, schedule.order.const_data(), b, x);
        }
    } else if (long_rows) {
        ordered_sync_free<32, 1, 256>(exec, copy, schedule, b, x, variant == 2 ? 4 : 2);
    } else if (variant <= 2) {
        ordered_sync_free<4, 1, 256>(exec, copy, schedule, b, x, variant == 2 ? 4 : 2);
    } else {
        ordered_sync_free<1, 4, 256>(exec, copy, schedule, b, x, variant == 3 ? 2 : 1);
    }
    timer.finish(names[variant]);
}

template <typename V, typename I>
void sptrsv_sync_free(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    const auto* order = schedule.order.const_data();
    if (sptrsv_kernels::long_rows(rows)) {
        sptrsv_kernels::sync_free_solve<32>(exec, rows, order, b, x);
    } else {
        sptrsv_kernels::sync_free_solve<4>(exec, rows, order, b, x);
    }
}

template <typename V, typename I>
void sptrsv_supernodal_blocks(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                              detail::Supernodes<V, I>& supernodes)
{
    unified::sptrsv_supernodal_blocks(exec, rows, supernodes);
}

/// Supernodal: the schedule of supernodal.hpp with CUDA's own kernels: step 1 by a warp per
/// row (the rows of a 3D factor's top separators hold thousands of entries: a thread per
/// row took 106 ms on the 40^3 27-point factor, a warp 5.1 ms; H200, session 9), or by a
/// block per row on levels of long rows; step 2 by a group of lanes per row.
/// GPU-round switches: LOOM_SPTRSV_PANEL = 1 warp / 2 block per row (0: by the level's
/// mean row length); LOOM_SPTRSV_DIAG_LANES = 1, 8, 32; LOOM_SPTRSV_PROFILE=1 prints
/// the time of each step, summed over the levels.
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
    int panel_mode = env_int("LOOM_SPTRSV_PANEL", 0);
    int diag_lanes = env_int("LOOM_SPTRSV_DIAG_LANES", 1);
    const char* names[] = {"sn-auto-d1", "sn-warp-d1", "sn-auto-d8", "sn-auto-d32", "sn-warp-d32",
                           "sn-block-d32"};
    const int variant = round_variant(6);
    if (variant >= 0) {
        const int panels[] = {0, 1, 0, 0, 1, 2};
        const int lanes[] = {1, 1, 8, 32, 32, 32};
        panel_mode = panels[variant];
        diag_lanes = lanes[variant];
    }
    RoundTimer timer(stream, variant >= 0);
    const bool profile = env_int("LOOM_SPTRSV_PROFILE", 0) != 0;
    const auto levels = supernodes.levels();
    std::vector<cudaEvent_t> events;
    if (profile) {
        events.resize(3 * levels + 1);
        for (auto& e : events) cudaEventCreate(&e);
    }
    const auto mark = [&](size_type i) {
        if (profile) cudaEventRecord(events[i], stream);
    };
    int long_levels = 0;
    for (size_type l = 0; l < levels; ++l) {
        const I* level = supernodes.order.const_data() + supernodes.host_level_ptrs[l];
        const auto count = static_cast<long long>(supernodes.host_level_ptrs[l + 1] -
                                                  supernodes.host_level_ptrs[l]);
        const bool long_panel =
            panel_mode == 2 ||
            (panel_mode == 0 && supernodes.host_level_entries[l] >= 512 * static_cast<size_type>(count));
        long_levels += long_panel;
        mark(3 * l);
        if (long_panel) {
            supernodal_long_panel_kernel<block_size><<<static_cast<unsigned>(count), block_size, 0, stream>>>(
                device_rows, supernodes.first_row.const_data(), supernodes.row_super.const_data(),
                level, block_of(b), x_read, block_of(work));
        } else {
            supernodal_panel_kernel<32><<<static_cast<unsigned>(ceildiv(count * 32, block_size)), block_size, 0, stream>>>(
                device_rows, supernodes.first_row.const_data(), supernodes.row_super.const_data(),
                level, count, block_of(b), x_read, block_of(work));
        }
        check_launch(where);
        mark(3 * l + 1);
        const auto diagonal = [&](auto lanes) {
            constexpr int G = decltype(lanes)::value;
            supernodal_diagonal_kernel<G><<<static_cast<unsigned>(ceildiv(count * G, block_size)), block_size, 0, stream>>>(
                rows.lower, supernodes.first_row.const_data(), supernodes.row_super.const_data(),
                supernodes.block_offset.const_data(), supernodes.block_width.const_data(),
                as_device(supernodes.blocks.const_data()), level, count, work_read, block_of(x));
        };
        if (diag_lanes == 32) {
            diagonal(std::integral_constant<int, 32>{});
        } else if (diag_lanes == 8) {
            diagonal(std::integral_constant<int, 8>{});
        } else {
            diagonal(std::integral_constant<int, 1>{});
        }
        check_launch(where);
        mark(3 * l + 2);
    }
    if (variant >= 0) timer.finish(names[variant]);
    if (profile && levels > 0) {
        cudaEventSynchronize(events[3 * levels - 1]);
        float panel = 0, diag = 0, widest = 0;
        size_type widest_level = 0;
        for (size_type l = 0; l < levels; ++l) {
            float a = 0, d = 0;
            cudaEventElapsedTime(&a, events[3 * l], events[3 * l + 1]);
            cudaEventElapsedTime(&d, events[3 * l + 1], events[3 * l + 2]);
            panel += a;
            diag += d;
            if (a + d > widest) {
                widest = a + d;
                widest_level = l;
            }
        }
        std::fprintf(stderr,
                     "supernodal profile: %zu levels (%d by a block per row), panel %.3f ms, "
                     "diagonal %.3f ms; slowest level %zu (%d rows) %.3f ms\n",
                     static_cast<std::size_t>(levels), long_levels, panel, diag,
                     static_cast<std::size_t>(widest_level),
                     static_cast<int>(supernodes.host_level_ptrs[widest_level + 1] -
                                      supernodes.host_level_ptrs[widest_level]),
                     widest);
        for (auto& e : events) cudaEventDestroy(e);
    }
}

#define LOOM_INSTANTIATE(V, I)                                                               \
    LOOM_INSTANTIATE_SPTRSV_KERNELS(CudaExecutor, V, I)                                      \
    template void sptrsv_sync_free(const CudaExecutor&, const detail::TriangularRows<V, I>&, \
                                   const detail::LevelSchedule<I>&, const matrix::Dense<V>&, \
                                   matrix::Dense<V>&);                                       \
    template void sptrsv_level_ordered_rows(const CudaExecutor&,                             \
                                            const detail::TriangularRows<V, I>&,             \
                                            const detail::LevelSchedule<I>&, bool,           \
                                            detail::LevelOrderedRows<V, I>&);                \
    template void sptrsv_sync_free_ordered(const CudaExecutor&,                              \
                                           const detail::TriangularRows<V, I>&,              \
                                           const detail::LevelOrderedRows<V, I>&,            \
                                           const detail::LevelSchedule<I>&,                  \
                                           const matrix::Dense<V>&, matrix::Dense<V>&);      \
    template void sptrsv_level_set_ordered(const CudaExecutor&,                              \
                                           const detail::TriangularRows<V, I>&,              \
                                           const detail::LevelOrderedRows<V, I>&,            \
                                           const detail::LevelSchedule<I>&,                  \
                                           const matrix::Dense<V>&, matrix::Dense<V>&);      \
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

#define LOOM_INSTANTIATE_FIRST_ZERO(V) \
    template size_type sptrsv_first_zero(const CudaExecutor&, const V*, size_type, size_type);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_FIRST_ZERO)

}  // namespace loom::sparse::cuda
