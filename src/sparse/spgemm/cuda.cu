// CUDA SpGEMM: Gustavson's row-wise product with the rows grouped by the work they need.
// NOTES.md beside this file explains the design and the expected speed; in short:
//
// * Symbolic: the multiply-adds ("flops") of every row (a thread per chunk of A's entries,
//   so that one huge row does not serialise), then the rows grouped by the size of the
//   hash table their distinct columns need (upper bound min(flops, B.cols)): a stable
//   radix sort of (group, row) pairs. A team of G threads per row counts distinct columns
//   in a shared-memory hash table of 32G slots, G from 1 (a thread per row, 256 rows per
//   block) to 256 (a block). Rows too wide for shared memory ("heavy") get a block each and,
//   when they would fill at least one bit in 256 of it, a bitmap of B's columns (in shared
//   memory when it fits, else one per block in global memory); sparser heavy rows a
//   two-level hash: a shared-memory first level and, for rows that may overflow it, a
//   global second level from a pool sized by the rows' needs. Scan of the counts ->
//   C's row pointers; then the rows are grouped again by their exact length for the numeric
//   phase, and that grouping (and the numeric second levels' layout) stays in the handle.
// * Numeric: teams of G = 4 .. 1024 threads insert (column, value) pairs into a shared table
//   of 8G slots (keys by atomicCAS, values by atomicAdd) sized for the row's exact length,
//   at most half full, then sort the table
//   in place (bitonic, empty slots sort last) and write the first `length` slots, or compact
//   it unsorted. Heavy rows, bitmap: set the bitmap bits, turn them into positions (block
//   scan of popcounts, which also writes the columns, sorted), then add every product
//   straight into C's value at its position. Heavy rows, two-level hash: accumulate in both
//   levels, append both to C's row (unsorted) or to a buffer that one CUB segmented sort
//   orders before the copy into C.
// * Inside a team, the products of a batch of G entries of A are spread evenly over the
//   team: each thread loads one entry, a team scan of the B row lengths gives the product
//   ranges, and thread t takes products t, t + G, ... (binary search for its entry).
//
// Every launch is on the executor's stream and checked. Values are summed with atomics in
// an order that can differ between runs (last-bit differences for floating point).
#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <type_traits>
#include <vector>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::as_device;
using loom::cuda::ceildiv;
using loom::cuda::check_launch;
using loom::cuda::device_type_t;
using loom::cuda::row_of_entry;
using loom::cuda::run_cub;
using loom::cuda::stream_of;

constexpr const char* symbolic_where = "loom::sparse::spgemm_symbolic";
constexpr const char* numeric_where = "loom::sparse::spgemm_numeric";

// ------------------------------------------------------------------------- configuration

/// Threads of a block of sub-warp or warp teams.
constexpr int light_block = 256;
/// Hash table slots per team thread: in the numeric phase a team of G threads owns a table
/// of 8 G slots; in the symbolic phase 32 G, since its tables are sized by the flops of a
/// row, which usually overstate its distinct columns several times (a team has about 16
/// products per thread either way).
constexpr int slots_per_thread = 8;
constexpr int symbolic_slots_per_thread = 32;
/// The smallest table; a row goes to the smallest table with at most half its slots used.
constexpr int min_table = 32;
/// Largest shared table of the symbolic phase (keys only).
constexpr int max_symbolic_table = 8192;
/// Threads of a block working on heavy rows.
constexpr int heavy_block = 1024;
/// A heavy row's bitmap (and positions) go to shared memory up to this many bytes.
constexpr std::size_t heavy_shared_bitmap_bytes = 160 * 1024;
/// Shared memory for the first level of a heavy row's two-level hash (and its header).
constexpr std::size_t hash_shared_bytes = 224 * 1024;
/// Global memory for the per-block bitmaps of heavy rows, when shared memory is too small.
constexpr std::size_t heavy_global_budget = std::size_t{256} << 20;
/// Global memory for the second levels (and sort buffers) of one launch of heavy rows.
constexpr std::size_t hash_pool_budget = std::size_t{1} << 30;
/// The rule between the accumulators of heavy rows (too long for the light tables): a bitmap
/// of B's columns when it has at most this many 32-bit words per entry the row needs (the
/// bound on its distinct columns in the symbolic phase, its length in the numeric phase):
/// dense enough that scanning, clearing and positioning the words costs less than hashing,
/// appending and sorting the entries (about 100-150 bytes of traffic per entry for the hash
/// against 16-20 bytes per word for the bitmap, which moreover passes twice over the
/// products with global atomics); sparser rows go to the two-level hash.
constexpr long long bitmap_words_per_entry = 8;
/// A[k] entries per thread when counting the flops of every row.
constexpr int flops_chunk = 32;

/// Groups of rows: 0 .. 8 light (table of 32 << g slots), heavy rows through the two-level
/// hash, heavy rows through bitmaps of B's columns, empty (nothing to do).
constexpr int group_count = 16;  // radix of the grouping sort: 4 bits
constexpr int hash_group = 13;
constexpr int heavy_group = 14;
constexpr int empty_group = 15;

/// Largest shared table of the numeric phase: keys and values of 8192 slots need up to
/// 128 KiB; wider slots (complex<double>) stop at 4096.
template <typename V, typename I>
constexpr int max_numeric_table()
{
    return sizeof(V) + sizeof(I) <= 16 ? 8192 : 4096;
}

constexpr int light_groups_for(int max_table)
{
    int groups = 0;
    while ((min_table << groups) <= max_table) ++groups;
    return groups;
}

__host__ __device__ inline int group_of(long long needed, int light_groups, long long b_words)
{
    if (needed <= 0) return empty_group;
    for (int g = 0; g < light_groups; ++g) {
        if (2 * needed <= (static_cast<long long>(min_table) << g)) return g;
    }
    return b_words > bitmap_words_per_entry * needed ? hash_group : heavy_group;
}

// ---------------------------------------------------------------------- device helpers

template <typename I>
constexpr I empty_key = I{-1};

/// atomicCAS on a column index of either width.
template <typename I>
__device__ inline I atomic_cas(I* address, I expected, I desired)
{
    if constexpr (sizeof(I) == 4) {
        return static_cast<I>(atomicCAS(reinterpret_cast<int*>(address), static_cast<int>(expected),
                                        static_cast<int>(desired)));
    } else {
        return static_cast<I>(atomicCAS(reinterpret_cast<unsigned long long*>(address),
                                        static_cast<unsigned long long>(expected),
                                        static_cast<unsigned long long>(desired)));
    }
}

/// A load that sees what other threads wrote with atomics (no stale L1 line for global
/// memory; shared memory is coherent anyway).
template <typename T>
__device__ inline T racy_load(const T* address)
{
    return *const_cast<const volatile T*>(address);
}

template <typename T>
__device__ inline std::enable_if_t<std::is_floating_point_v<T>> atomic_add(T* address, T value)
{
    atomicAdd(address, value);
}
template <typename T>
__device__ inline void atomic_add(thrust::complex<T>* address, thrust::complex<T> value)
{
    auto* parts = reinterpret_cast<T*>(address);
    atomicAdd(parts, value.real());
    atomicAdd(parts + 1, value.imag());
}

/// Slot of `col` in a table of mask + 1 slots; `direct` when every column of B has a slot
/// of its own (B no wider than the table): no collisions, and the table is in column order.
template <typename I>
__device__ inline unsigned slot_of(I col, unsigned mask, bool direct)
{
    if (direct) return static_cast<unsigned>(col) & mask;
    const auto mixed = static_cast<unsigned long long>(col) * 0x9E3779B97F4A7C15ull;
    return static_cast<unsigned>(mixed >> 32) & mask;
}

/// Inserts col into keys[S]; true when it was not there yet.
template <int S, typename I>
__device__ inline bool insert_key(I* keys, I col, bool direct)
{
    unsigned slot = slot_of(col, S - 1, direct);
    for (int probe = 0; probe < S; ++probe) {
        const I seen = racy_load(keys + slot);
        if (seen == col) return false;
        if (seen == empty_key<I>) {
            const I old = atomic_cas(keys + slot, empty_key<I>, col);
            if (old == empty_key<I>) return true;
            if (old == col) return false;
        }
        slot = (slot + 1) & (S - 1);
    }
    return false;  // full: impossible with at least twice the row's distinct columns
}

/// Adds value to col's slot of keys[S] / values[S], claiming a slot for a new column.
template <int S, typename V, typename I>
__device__ inline void accumulate(I* keys, V* values, I col, V value, bool direct)
{
    unsigned slot = slot_of(col, S - 1, direct);
    for (int probe = 0; probe < S; ++probe) {
        I seen = racy_load(keys + slot);
        if (seen == empty_key<I>) {
            const I old = atomic_cas(keys + slot, empty_key<I>, col);
            seen = old == empty_key<I> ? col : old;
        }
        if (seen == col) {
            atomic_add(values + slot, value);
            return;
        }
        slot = (slot + 1) & (S - 1);
    }
}

// ---------------------------------------------------------------------------------- teams

/// G threads working on one row: a part of a warp (G <= 32; light_block / G teams per
/// block) or a whole block (G > 32).
template <int G>
struct Team {
    static constexpr bool whole_block = G > 32;
    static constexpr int per_block = whole_block ? 1 : light_block / G;
    static constexpr int block_threads = whole_block ? G : light_block;

    __device__ static int rank() { return whole_block ? threadIdx.x : threadIdx.x % G; }
    __device__ static int index() { return whole_block ? 0 : threadIdx.x / G; }
    __device__ static unsigned mask()
    {
        if constexpr (G >= 32) {
            return 0xffffffffu;
        } else {
            return ((1u << G) - 1u) << (threadIdx.x % 32 / G * G);
        }
    }
    __device__ static void sync()
    {
        if constexpr (whole_block) {
            __syncthreads();
        } else {
            __syncwarp(mask());
        }
    }
};

/// Shared memory of one team for spreading a batch of A's entries over its threads.
template <int G>
struct Batch {
    long long inclusive[G];  ///< inclusive prefix sums of the B row lengths of the batch
    long long starts[G];     ///< where those B rows start
    long long warp_totals[G > 32 ? 32 : 1];
};

/// Inclusive sum of `value` over the team's threads in rank order. Block teams use
/// batch.warp_totals and synchronise the block; the caller synchronises before the next call.
template <int G>
__device__ long long team_inclusive_scan(long long value, Batch<G>& batch)
{
    constexpr int width = G < 32 ? G : 32;
    const unsigned mask = Team<G>::mask();
    const int lane = threadIdx.x % width;
#pragma unroll
    for (int d = 1; d < width; d <<= 1) {
        const long long up = __shfl_up_sync(mask, value, d, width);
        if (lane >= d) value += up;
    }
    if constexpr (G > 32) {
        constexpr int warps = G / 32;
        const int warp = threadIdx.x / 32;
        if (lane == 31) batch.warp_totals[warp] = value;
        __syncthreads();
        if (warp == 0) {
            long long total = lane < warps ? batch.warp_totals[lane] : 0;
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const long long up = __shfl_up_sync(0xffffffffu, total, d);
                if (lane >= d) total += up;
            }
            if (lane < warps) batch.warp_totals[lane] = total;
        }
        __syncthreads();
        if (warp > 0) value += batch.warp_totals[warp - 1];
    }
    return value;
}

/// Calls visit(j, s) for every product of one row: j an entry of B, s the rank in its
/// batch of the A entry that selected j's row. Entries k in [first, end) are taken G at a
/// time; load(k, s) runs on the thread of rank s and returns the row of B that k selects
/// (it may stash per-entry data at index s, readable by every thread in visit). Team-wide:
/// every thread of the team calls it with the same first and end.
template <int G, typename I, typename Load, typename Visit>
__device__ void for_each_product(long long first, long long end, const I* b_ptrs,
                                 Batch<G>& batch, Load&& load, Visit&& visit)
{
    const int rank = Team<G>::rank();
    for (long long base = first; base < end; base += G) {
        const long long k = base + rank;
        long long start = 0;
        long long length = 0;
        if (k < end) {
            const long long row = load(k, rank);
            start = b_ptrs[row];
            length = b_ptrs[row + 1] - start;
        }
        const long long inclusive = team_inclusive_scan<G>(length, batch);
        batch.inclusive[rank] = inclusive;
        batch.starts[rank] = start;
        Team<G>::sync();
        const long long total = batch.inclusive[G - 1];
        int s = 0;
        for (long long p = rank; p < total; p += G) {
            // the first entry of the batch whose products reach beyond p
            int lo = s;
            int hi = G - 1;
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (batch.inclusive[mid] > p) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            s = lo;
            const long long before = s == 0 ? 0 : batch.inclusive[s - 1];
            visit(batch.starts[s] + (p - before), s);
        }
        Team<G>::sync();
    }
}

/// In-place bitonic sort of a team's table by column (empty slots, all bits set, last).
template <int G, int S, typename V, typename I>
__device__ void sort_table(I* keys, V* values)
{
    using U = std::make_unsigned_t<I>;
    for (int size = 2; size <= S; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            for (int i = Team<G>::rank(); i < S; i += G) {
                const int partner = i ^ stride;
                if (partner > i) {
                    const bool ascending = (i & size) == 0;
                    const auto a = static_cast<U>(keys[i]);
                    const auto b = static_cast<U>(keys[partner]);
                    if (ascending ? a > b : a < b) {
                        keys[i] = static_cast<I>(b);
                        keys[partner] = static_cast<I>(a);
                        const V swap = values[i];
                        values[i] = values[partner];
                        values[partner] = swap;
                    }
                }
            }
            Team<G>::sync();
        }
    }
}

// ------------------------------------------------------------------------------ operands

/// The patterns of the product, for the symbolic kernels.
template <typename I>
struct Pattern {
    const I* a_ptrs;
    const I* a_cols;
    const I* b_ptrs;
    const I* b_cols;
    bool identity;  ///< (I + A) * B
};

/// Everything the numeric kernels read; V is the device value type.
template <typename V, typename I>
struct Operands {
    Pattern<I> pattern;
    const V* a_vals;
    const V* b_vals;
    const V* d_inv;  ///< Jacobi: row scale -omega * d_inv[row * d_stride]
    long long d_stride;
    V omega;
    const I* c_ptrs;
    I* c_cols;
    V* c_vals;
};

/// Range of "entries" of row `row`: A's, preceded by one for the identity (index
/// a_ptrs[row] - 1, which selects B's row `row`).
template <typename I>
__device__ inline void entry_range(const Pattern<I>& in, long long row, long long& first,
                                   long long& end)
{
    first = static_cast<long long>(in.a_ptrs[row]) - (in.identity ? 1 : 0);
    end = in.a_ptrs[row + 1];
}

/// The B row an entry selects and the factor its products carry.
template <typename V, typename I>
__device__ inline long long selected_row(const Operands<V, I>& in, long long row, V scale,
                                         long long k, V& factor)
{
    if (k < in.pattern.a_ptrs[row]) {
        factor = V(1);
        return row;
    }
    factor = in.pattern.identity ? scale * in.a_vals[k] : in.a_vals[k];
    return in.pattern.a_cols[k];
}

template <typename V, typename I>
__device__ inline V row_scale(const Operands<V, I>& in, long long row)
{
    return in.pattern.identity ? -in.omega * in.d_inv[row * in.d_stride] : V(1);
}

// ------------------------------------------------------------------------- flops, groups

/// flops[r] += the lengths of the B rows selected by A's entries, flops_chunk entries per
/// thread (flops zeroed before).
template <typename I>
__global__ void __launch_bounds__(256)
    row_flops_kernel(long long nnz, long long rows, const I* a_ptrs, const I* a_cols,
                     const I* b_ptrs, unsigned long long* flops)
{
    const long long begin =
        (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) * flops_chunk;
    if (begin >= nnz) return;
    const long long end = min(nnz, begin + flops_chunk);
    long long row = row_of_entry(a_ptrs, rows, begin);
    unsigned long long sum = 0;
    for (long long k = begin; k < end; ++k) {
        while (a_ptrs[row + 1] <= k) {
            if (sum > 0) atomicAdd(flops + row, sum);
            sum = 0;
            ++row;
        }
        const I col = a_cols[k];
        sum += static_cast<unsigned long long>(b_ptrs[col + 1] - b_ptrs[col]);
    }
    if (sum > 0) atomicAdd(flops + row, sum);
}

template <typename I>
__global__ void __launch_bounds__(256) iota_kernel(long long n, I* values)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        values[i] = static_cast<I>(i);
    }
}

/// flops[r] += length of B's row r (the identity's share of the Jacobi product).
template <typename I>
__global__ void __launch_bounds__(256)
    add_identity_flops_kernel(long long rows, const I* b_ptrs, unsigned long long* flops)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        flops[r] += static_cast<unsigned long long>(b_ptrs[r + 1] - b_ptrs[r]);
    }
}

/// What the grouping counts: rows per group, and the flops of all rows.
struct GroupCounts {
    unsigned long long rows[group_count];
    unsigned long long flops;
};

/// Table size a row needs in the symbolic phase: its distinct columns are at most
/// min(flops, B.cols).
struct SymbolicNeed {
    const unsigned long long* flops;
    long long b_cols;
    __device__ long long operator()(long long row) const
    {
        return static_cast<long long>(min(flops[row], static_cast<unsigned long long>(b_cols)));
    }
};

/// ... and in the numeric phase: exactly its length.
template <typename I>
struct NumericNeed {
    const I* c_ptrs;
    __device__ long long operator()(long long row) const { return c_ptrs[row + 1] - c_ptrs[row]; }
};

template <typename Need>
__global__ void __launch_bounds__(256)
    classify_kernel(long long rows, Need need, const unsigned long long* flops, int light_groups,
                    long long b_words, unsigned char* groups, GroupCounts* counts)
{
    __shared__ unsigned long long local[group_count + 1];
    if (threadIdx.x <= group_count) local[threadIdx.x] = 0;
    __syncthreads();
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int group = group_of(need(r), light_groups, b_words);
        groups[r] = static_cast<unsigned char>(group);
        atomicAdd(local + group, 1ull);
        if (flops != nullptr) atomicAdd(local + group_count, flops[r]);
    }
    __syncthreads();
    if (threadIdx.x < group_count && local[threadIdx.x] > 0) {
        atomicAdd(counts->rows + threadIdx.x, local[threadIdx.x]);
    }
    if (threadIdx.x == group_count && local[group_count] > 0) {
        atomicAdd(&counts->flops, local[group_count]);
    }
}

// ---------------------------------------------------------------------- symbolic kernels

template <int G, typename I>
struct CountShared {
    I keys[symbolic_slots_per_thread * G];
    Batch<G> batch;
    int count;
};

/// Distinct columns of every row of one light group (a team per row).
template <int G, typename I>
__global__ void __launch_bounds__(Team<G>::block_threads)
    count_light_kernel(const I* group_rows, long long n, Pattern<I> in, bool direct, I* counts)
{
    using T = Team<G>;
    constexpr int S = symbolic_slots_per_thread * G;
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = reinterpret_cast<CountShared<G, I>*>(shared_bytes)[T::index()];
    const long long team = blockIdx.x * static_cast<long long>(T::per_block) + T::index();
    const bool active = team < n;
    const long long row = active ? static_cast<long long>(group_rows[team]) : 0;
    for (int s = T::rank(); s < S; s += G) sh.keys[s] = empty_key<I>;
    if (T::rank() == 0) sh.count = 0;
    T::sync();
    long long first = 0;
    long long end = 0;
    if (active) entry_range(in, row, first, end);
    const long long a_begin = active ? in.a_ptrs[row] : 0;
    int found = 0;
    for_each_product<G>(
        first, end, in.b_ptrs, sh.batch,
        [&](long long k, int) -> long long { return k < a_begin ? row : in.a_cols[k]; },
        [&](long long j, int) { found += insert_key<S>(sh.keys, in.b_cols[j], direct); });
    if (found > 0) atomicAdd(&sh.count, found);
    T::sync();
    if (active && T::rank() == 0) counts[row] = static_cast<I>(sh.count);
}

/// Shared memory of a heavy block besides its bitmap.
template <typename V>
struct HeavyShared {
    Batch<heavy_block> batch;
    V factors[heavy_block];
    unsigned long long lowest;   ///< first bitmap word touched by the row
    unsigned long long highest;  ///< last one
    unsigned long long count;
};

/// The block's bitmap: in shared memory, or its slice of the global bitmaps.
__device__ inline unsigned* heavy_bitmap(unsigned char* shared_tail, unsigned* global_bitmaps,
                                         long long words, bool in_shared)
{
    return in_shared ? reinterpret_cast<unsigned*>(shared_tail)
                     : global_bitmaps + blockIdx.x * words;
}

/// The bitmap words a thread touched (merged over the block by merge_range).
struct WordRange {
    unsigned long long lowest = ~0ull;
    unsigned long long highest = 0;
    __device__ void add(unsigned long long w)
    {
        lowest = min(lowest, w);
        highest = max(highest, w);
    }
};

template <typename V>
__device__ inline void merge_range(const WordRange& mine, HeavyShared<V>& sh)
{
    if (mine.lowest <= mine.highest) {
        atomicMin(&sh.lowest, mine.lowest);
        atomicMax(&sh.highest, mine.highest);
    }
}

template <typename V>
__device__ inline void reset_heavy_row(HeavyShared<V>& sh)
{
    if (threadIdx.x == 0) {
        sh.lowest = ~0ull;
        sh.highest = 0;
        sh.count = 0;
    }
}

/// Block-wide: sets the bit of every column of row `row` of the product in `bitmap` and
/// leaves the range of bitmap words it touched in sh.lowest .. sh.highest.
template <typename V, typename I>
__device__ void mark_heavy_row(const Pattern<I>& in, long long row, unsigned* bitmap,
                               HeavyShared<V>& sh)
{
    reset_heavy_row(sh);
    __syncthreads();
    long long first = 0;
    long long end = 0;
    entry_range(in, row, first, end);
    const long long a_begin = in.a_ptrs[row];
    WordRange range;
    for_each_product<heavy_block>(
        first, end, in.b_ptrs, sh.batch,
        [&](long long k, int) -> long long { return k < a_begin ? row : in.a_cols[k]; },
        [&](long long j, int) {
            const auto col = static_cast<unsigned long long>(in.b_cols[j]);
            atomicOr(bitmap + (col >> 5), 1u << (col & 31));
            range.add(col >> 5);
        });
    merge_range(range, sh);
    __syncthreads();
}

/// Distinct columns of heavy rows: a block per row, a bitmap of B's columns.
template <typename I>
__global__ void __launch_bounds__(heavy_block)
    count_heavy_kernel(const I* group_rows, long long n, Pattern<I> in, long long words,
                       bool in_shared, unsigned* global_bitmaps, I* counts)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<HeavyShared<char>*>(shared_bytes);
    unsigned* bitmap =
        heavy_bitmap(shared_bytes + sizeof(HeavyShared<char>), global_bitmaps, words, in_shared);
    if (in_shared) {
        for (long long w = threadIdx.x; w < words; w += heavy_block) bitmap[w] = 0;
    }
    for (long long h = blockIdx.x; h < n; h += gridDim.x) {
        const long long row = group_rows[h];
        mark_heavy_row(in, row, bitmap, sh);
        const unsigned long long lowest = sh.lowest;
        const unsigned long long highest = sh.highest;
        unsigned long long count = 0;
        if (lowest <= highest) {
            for (auto w = lowest + threadIdx.x; w <= highest; w += heavy_block) {
                count += __popc(racy_load(bitmap + w));
                bitmap[w] = 0;
            }
        }
        if (count > 0) atomicAdd(&sh.count, count);
        __syncthreads();
        if (threadIdx.x == 0) counts[row] = static_cast<I>(sh.count);
        __syncthreads();
    }
}

// ----------------------------------------------------------------------- numeric kernels

template <int G, typename V, typename I>
struct MultiplyShared {
    V values[slots_per_thread * G];
    V factors[G];  ///< the factor of each entry of the current batch
    I keys[slots_per_thread * G];
    Batch<G> batch;
    int count;
};

/// Columns and values of every row of one light group (a team per row).
template <int G, typename V, typename I>
__global__ void __launch_bounds__(Team<G>::block_threads)
    multiply_light_kernel(const I* group_rows, long long n, Operands<V, I> in, bool direct,
                          bool sort)
{
    using T = Team<G>;
    constexpr int S = slots_per_thread * G;
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = reinterpret_cast<MultiplyShared<G, V, I>*>(shared_bytes)[T::index()];
    const long long team = blockIdx.x * static_cast<long long>(T::per_block) + T::index();
    const bool active = team < n;
    const long long row = active ? static_cast<long long>(group_rows[team]) : 0;
    for (int s = T::rank(); s < S; s += G) {
        sh.keys[s] = empty_key<I>;
        sh.values[s] = V(0);
    }
    if (T::rank() == 0) sh.count = 0;
    T::sync();
    long long first = 0;
    long long end = 0;
    if (active) entry_range(in.pattern, row, first, end);
    const V scale = active ? row_scale(in, row) : V(1);
    for_each_product<G>(
        first, end, in.pattern.b_ptrs, sh.batch,
        [&](long long k, int s) -> long long {
            return selected_row(in, row, scale, k, sh.factors[s]);
        },
        [&](long long j, int s) {
            accumulate<S>(sh.keys, sh.values, in.pattern.b_cols[j], sh.factors[s] * in.b_vals[j],
                          direct);
        });
    T::sync();
    const long long out = active ? static_cast<long long>(in.c_ptrs[row]) : 0;
    const long long length = active ? in.c_ptrs[row + 1] - out : 0;
    if (sort && !direct) sort_table<G, S>(sh.keys, sh.values);
    if (sort) {
        // sorted (or, direct, already in column order): the used slots come first, or are
        // spread in order over the table
        if (direct) {
            // compact in order: a team scan over the table in chunks of G slots
            long long written = 0;
            for (int base = 0; base < S; base += G) {
                const int s = base + T::rank();
                const bool used = sh.keys[s] != empty_key<I>;
                const long long inclusive = team_inclusive_scan<G>(used ? 1 : 0, sh.batch);
                if (used && written + inclusive - 1 < length) {
                    in.c_cols[out + written + inclusive - 1] = sh.keys[s];
                    in.c_vals[out + written + inclusive - 1] = sh.values[s];
                }
                sh.batch.inclusive[T::rank()] = inclusive;
                T::sync();
                written += sh.batch.inclusive[G - 1];
                T::sync();
            }
        } else {
            for (long long i = T::rank(); i < length; i += G) {
                in.c_cols[out + i] = sh.keys[i];
                in.c_vals[out + i] = sh.values[i];
            }
        }
    } else {
        for (int s = T::rank(); s < S; s += G) {
            if (sh.keys[s] == empty_key<I>) continue;
            const int position = atomicAdd(&sh.count, 1);
            if (position < length) {
                in.c_cols[out + position] = sh.keys[s];
                in.c_vals[out + position] = sh.values[s];
            }
        }
    }
}

/// Position of col in the ascending cols[0 .. length), or -1.
template <typename I>
__device__ inline int find_column(const I* cols, int length, I col)
{
    int lo = 0;
    int hi = length;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (cols[mid] < col) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < length && cols[lo] == col ? lo : -1;
}

/// Values of every row of one light group whose columns C already holds, sorted, as a
/// previous numeric call wrote them: the team stages the row's columns in the key array
/// (coalesced), finds every product's column by binary search and adds into the value of
/// that position; then writes the values only. No keys to claim, no table to clear or sort,
/// no columns to write. Same shared layout and launch as multiply_light_kernel.
template <int G, typename V, typename I>
__global__ void __launch_bounds__(Team<G>::block_threads)
    multiply_known_columns_kernel(const I* group_rows, long long n, Operands<V, I> in)
{
    using T = Team<G>;
    constexpr int S = slots_per_thread * G;
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = reinterpret_cast<MultiplyShared<G, V, I>*>(shared_bytes)[T::index()];
    const long long team = blockIdx.x * static_cast<long long>(T::per_block) + T::index();
    const bool active = team < n;
    const long long row = active ? static_cast<long long>(group_rows[team]) : 0;
    const long long out = active ? static_cast<long long>(in.c_ptrs[row]) : 0;
    // at most S / 2 by the grouping; the clamp keeps the kernel inside its arrays regardless
    const long long stored = active ? in.c_ptrs[row + 1] - out : 0;
    const int length = static_cast<int>(max(0ll, min(stored, static_cast<long long>(S))));
    for (int s = T::rank(); s < length; s += G) {
        sh.keys[s] = in.c_cols[out + s];
        sh.values[s] = V(0);
    }
    T::sync();
    long long first = 0;
    long long end = 0;
    if (active) entry_range(in.pattern, row, first, end);
    const V scale = active ? row_scale(in, row) : V(1);
    for_each_product<G>(
        first, end, in.pattern.b_ptrs, sh.batch,
        [&](long long k, int s) -> long long {
            return selected_row(in, row, scale, k, sh.factors[s]);
        },
        [&](long long j, int s) {
            // a column missing from the row cannot happen when C's pattern is the one the
            // handle recorded; skipped, to stay memory-safe
            const int position = find_column(sh.keys, length, in.pattern.b_cols[j]);
            if (position >= 0) atomic_add(sh.values + position, sh.factors[s] * in.b_vals[j]);
        });
    T::sync();
    for (int s = T::rank(); s < length; s += G) in.c_vals[out + s] = sh.values[s];
}

/// Columns and values of heavy rows: a block per row; bitmap of B's columns, then the
/// position of column c in the row is positions[c / 32] + the bits below c in its word.
template <typename V, typename I>
__global__ void __launch_bounds__(heavy_block)
    multiply_heavy_kernel(const I* group_rows, long long n, Operands<V, I> in, long long words,
                          bool in_shared, unsigned* global_bitmaps, I* global_positions)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<HeavyShared<V>*>(shared_bytes);
    // positions first: they may need 8-byte alignment, the bitmap words only 4
    unsigned char* tail = shared_bytes + sizeof(HeavyShared<V>);
    I* positions = in_shared ? reinterpret_cast<I*>(tail) : global_positions + blockIdx.x * words;
    unsigned* bitmap = heavy_bitmap(tail + sizeof(I) * words, global_bitmaps, words, in_shared);
    if (in_shared) {
        for (long long w = threadIdx.x; w < words; w += heavy_block) bitmap[w] = 0;
    }
    const auto& pattern = in.pattern;
    for (long long h = blockIdx.x; h < n; h += gridDim.x) {
        const long long row = group_rows[h];
        const long long out = in.c_ptrs[row];
        const long long length = in.c_ptrs[row + 1] - out;
        for (long long i = threadIdx.x; i < length; i += heavy_block) in.c_vals[out + i] = V(0);
        mark_heavy_row(pattern, row, bitmap, sh);
        // positions of the words and the columns, in order
        const unsigned long long lowest = sh.lowest;
        const unsigned long long highest = sh.highest;
        long long written = 0;
        for (unsigned long long base = lowest; lowest <= highest && base <= highest;
             base += heavy_block) {
            const unsigned long long w = base + threadIdx.x;
            const unsigned bits = w <= highest ? racy_load(bitmap + w) : 0u;
            const long long inclusive = team_inclusive_scan<heavy_block>(__popc(bits), sh.batch);
            long long position = written + inclusive - __popc(bits);
            if (w <= highest) positions[w] = static_cast<I>(position);
            for (unsigned rest = bits; rest != 0; rest &= rest - 1, ++position) {
                if (position < length) {
                    in.c_cols[out + position] = static_cast<I>(w * 32 + (__ffs(rest) - 1));
                }
            }
            sh.batch.inclusive[threadIdx.x] = inclusive;
            __syncthreads();
            written += sh.batch.inclusive[heavy_block - 1];
            __syncthreads();
        }
        const V scale = row_scale(in, row);
        long long first = 0;
        long long end = 0;
        entry_range(pattern, row, first, end);
        for_each_product<heavy_block>(
            first, end, pattern.b_ptrs, sh.batch,
            [&](long long k, int s) -> long long {
                return selected_row(in, row, scale, k, sh.factors[s]);
            },
            [&](long long j, int s) {
                const auto col = static_cast<unsigned long long>(pattern.b_cols[j]);
                const unsigned below = racy_load(bitmap + (col >> 5)) & ((1u << (col & 31)) - 1u);
                const long long position =
                    static_cast<long long>(positions[col >> 5]) + __popc(below);
                if (position < length) {
                    atomic_add(in.c_vals + out + position, sh.factors[s] * in.b_vals[j]);
                }
            });
        __syncthreads();
        if (lowest <= highest) {
            for (auto w = lowest + threadIdx.x; w <= highest; w += heavy_block) bitmap[w] = 0;
        }
        __syncthreads();
    }
}

// ------------------------------------------------------- two-level hash (heavy rows, wide B)

/// The tables of one heavy row: a first level in shared memory, probed at most `probes`
/// slots, and (rows that may overflow it) a second level in global memory, probed until
/// found: it holds at least twice the keys that can reach it.
template <typename I>
struct TwoLevelTable {
    I* shared_keys;
    unsigned shared_mask;
    int probes;
    I* global_keys;  ///< null: the row fits in the first level (probes = its size)
    unsigned long long global_mask;
};

/// Second-level start slot: other bits than the first level's, so that keys that crowded one
/// stretch of shared memory spread out in global memory.
template <typename I>
__device__ inline unsigned long long global_slot_of(I col, unsigned long long mask)
{
    const auto mixed = static_cast<unsigned long long>(col) * 0xD6E8FEB86659FD93ull;
    return (mixed >> 20) & mask;
}

/// Claims (or finds) col's slot in keys[mask + 1] from `slot` on, at most `probes` slots.
/// Returns the slot or -1; `inserted` tells whether this call claimed it.
template <typename I, typename Slot>
__device__ inline long long claim_slot(I* keys, Slot slot, Slot mask, long long probes, I col,
                                       bool& inserted)
{
    for (long long probe = 0; probe < probes; ++probe) {
        I seen = racy_load(keys + slot);
        if (seen == empty_key<I>) {
            const I old = atomic_cas(keys + slot, empty_key<I>, col);
            if (old == empty_key<I>) {
                inserted = true;
                return static_cast<long long>(slot);
            }
            seen = old;
        }
        if (seen == col) return static_cast<long long>(slot);
        slot = (slot + 1) & mask;
    }
    return -1;
}

/// col's slot in the row's tables: [0, shared size) in shared memory, shared size + s for slot
/// s of the global table; -1 only if the tables were sized wrong. A column lives in one level
/// only: its bounded probe window in shared memory fills monotonically, so once a thread has
/// seen the whole window taken by other columns, no thread can place col there later.
template <typename I>
__device__ inline long long find_slot(const TwoLevelTable<I>& t, I col, bool& inserted)
{
    inserted = false;
    const long long first = claim_slot(t.shared_keys, slot_of(col, t.shared_mask, false),
                                       t.shared_mask, t.probes, col, inserted);
    if (first >= 0 || t.global_keys == nullptr) return first;
    const long long second =
        claim_slot(t.global_keys, global_slot_of(col, t.global_mask), t.global_mask,
                   static_cast<long long>(t.global_mask) + 1, col, inserted);
    return second < 0 ? -1 : second + t.shared_mask + 1;
}

/// Probes in shared memory before a key goes to the second level: every product of a column
/// that lives in the second level pays them first, so few; enough that the first level fills
/// to a high load before columns spill.
constexpr int shared_probes = 16;

/// Shared memory of a two-level hash block besides its first-level table.
template <typename V>
struct HashShared {
    Batch<heavy_block> batch;
    V factors[heavy_block];
    unsigned long long count;
};

/// Bytes of HashShared<V>, rounded up so that the table after it is aligned for any slot.
template <typename V>
constexpr std::size_t hash_header_bytes()
{
    return (sizeof(HashShared<V>) + 15) / 16 * 16;
}

/// The rows of one launch of the two-level hash kernels (a chunk of the heavy rows):
/// rows[h]'s global table is slots table_offsets[h] .. table_offsets[h + 1] of the pool
/// (none when empty), and (numeric, sorted) its entries go to entry_offsets[h] .. of the
/// sort buffers.
template <typename I>
struct HashRows {
    const I* rows;
    long long n;
    const long long* table_offsets;
    const long long* entry_offsets;
};

template <typename I>
__device__ inline TwoLevelTable<I> row_tables(const HashRows<I>& rows, long long h, I* shared_keys,
                                              int shared_slots, I* pool)
{
    const long long begin = rows.table_offsets[h];
    const long long size = rows.table_offsets[h + 1] - begin;
    const auto shared_mask = static_cast<unsigned>(shared_slots - 1);
    if (size == 0) return {shared_keys, shared_mask, shared_slots, nullptr, 0};
    return {shared_keys, shared_mask, shared_probes, pool + begin,
            static_cast<unsigned long long>(size - 1)};
}

/// Block-wide: empties the row's second level (and zeroes its values unless null). The block
/// that owns a row clears its table right before using it, so that the table is still in L2
/// when it is probed (a memset of a whole chunk's pool beforehand would go through DRAM).
template <typename V, typename I>
__device__ inline void clear_second_level(const TwoLevelTable<I>& t, V* values)
{
    if (t.global_keys == nullptr) return;
    for (unsigned long long s = threadIdx.x; s <= t.global_mask; s += heavy_block) {
        t.global_keys[s] = empty_key<I>;
        if (values != nullptr) values[s] = V(0);
    }
}

/// Distinct columns of heavy rows with a wide B: a block per row, two-level hash of keys.
template <typename I>
__global__ void __launch_bounds__(heavy_block)
    count_hash_kernel(HashRows<I> rows, Pattern<I> in, int shared_slots, I* pool, I* counts)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<HashShared<char>*>(shared_bytes);
    auto* keys = reinterpret_cast<I*>(shared_bytes + hash_header_bytes<char>());
    for (long long h = blockIdx.x; h < rows.n; h += gridDim.x) {
        const long long row = rows.rows[h];
        for (int s = threadIdx.x; s < shared_slots; s += heavy_block) keys[s] = empty_key<I>;
        const auto tables = row_tables(rows, h, keys, shared_slots, pool);
        clear_second_level(tables, static_cast<char*>(nullptr));
        if (threadIdx.x == 0) sh.count = 0;
        __syncthreads();
        long long first = 0;
        long long end = 0;
        entry_range(in, row, first, end);
        const long long a_begin = in.a_ptrs[row];
        unsigned long long found = 0;
        for_each_product<heavy_block>(
            first, end, in.b_ptrs, sh.batch,
            [&](long long k, int) -> long long { return k < a_begin ? row : in.a_cols[k]; },
            [&](long long j, int) {
                bool inserted = false;
                find_slot(tables, in.b_cols[j], inserted);
                found += inserted;
            });
        if (found > 0) atomicAdd(&sh.count, found);
        __syncthreads();
        if (threadIdx.x == 0) counts[row] = static_cast<I>(sh.count);
        __syncthreads();
    }
}

/// Position in the row for the threads of a warp that have an entry to write (used), in
/// one shared atomic per warp; every lane of the warp calls it.
__device__ inline long long append_position(bool used, unsigned long long* counter)
{
    const unsigned ballot = __ballot_sync(0xffffffffu, used);
    if (ballot == 0) return -1;
    const int lane = threadIdx.x % 32;
    const int leader = __ffs(ballot) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(counter, static_cast<unsigned long long>(__popc(ballot)));
    base = __shfl_sync(0xffffffffu, base, leader);
    return used ? static_cast<long long>(base + __popc(ballot & ((1u << lane) - 1u))) : -1;
}

/// A load of global memory from L2, never from a possibly stale L1 line: the second level
/// was written by stores and atomics of the block. T is 4, 8 or 16 bytes.
template <typename T>
__device__ inline T load_coherent(const T* address)
{
    static_assert(sizeof(T) % 4 == 0);
    T result;
    auto* to = reinterpret_cast<unsigned*>(&result);
    const auto* from = reinterpret_cast<const unsigned*>(address);
    for (std::size_t i = 0; i < sizeof(T) / 4; ++i) to[i] = __ldcg(from + i);
    return result;
}

/// Block-wide: appends the used slots of keys / values[size] to cols / vals (at most length);
/// in_global: the table is a second level (loaded from L2), else in shared memory.
template <bool in_global, typename V, typename I>
__device__ inline void append_used(const I* keys, const V* values, long long size, I* cols, V* vals,
                                   long long length, unsigned long long* counter)
{
    for (long long base = 0; base < size; base += heavy_block) {
        const long long s = base + threadIdx.x;
        I key = empty_key<I>;
        if (s < size) key = in_global ? load_coherent(keys + s) : keys[s];
        const long long position = append_position(key != empty_key<I>, counter);
        if (position >= 0 && position < length) {
            cols[position] = key;
            vals[position] = in_global ? load_coherent(values + s) : values[s];
        }
    }
}

/// Columns and values of heavy rows with a wide B: a block per row, two-level hash of
/// (column, value), then both levels appended to the row: C's row itself (unsorted output)
/// or the row's stretch of the sort buffers (sorted output, sorted afterwards).
template <typename V, typename I>
__global__ void __launch_bounds__(heavy_block)
    multiply_hash_kernel(HashRows<I> rows, Operands<V, I> in, int shared_slots, I* pool_keys,
                         V* pool_values, bool sort, I* sort_cols, V* sort_vals)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<HashShared<V>*>(shared_bytes);
    auto* values = reinterpret_cast<V*>(shared_bytes + hash_header_bytes<V>());
    auto* keys = reinterpret_cast<I*>(values + shared_slots);
    const auto& pattern = in.pattern;
    for (long long h = blockIdx.x; h < rows.n; h += gridDim.x) {
        const long long row = rows.rows[h];
        for (int s = threadIdx.x; s < shared_slots; s += heavy_block) {
            keys[s] = empty_key<I>;
            values[s] = V(0);
        }
        const auto tables = row_tables(rows, h, keys, shared_slots, pool_keys);
        V* global_values = pool_values + rows.table_offsets[h];
        clear_second_level(tables, global_values);
        if (threadIdx.x == 0) sh.count = 0;
        __syncthreads();
        const V scale = row_scale(in, row);
        long long first = 0;
        long long end = 0;
        entry_range(pattern, row, first, end);
        for_each_product<heavy_block>(
            first, end, pattern.b_ptrs, sh.batch,
            [&](long long k, int s) -> long long {
                return selected_row(in, row, scale, k, sh.factors[s]);
            },
            [&](long long j, int s) {
                bool inserted = false;
                const long long slot = find_slot(tables, pattern.b_cols[j], inserted);
                if (slot < 0) return;
                const V product = sh.factors[s] * in.b_vals[j];
                if (slot < shared_slots) {
                    atomic_add(values + slot, product);
                } else {
                    atomic_add(global_values + (slot - shared_slots), product);
                }
            });
        __syncthreads();
        const long long out = in.c_ptrs[row];
        const long long length = in.c_ptrs[row + 1] - out;
        I* cols = sort ? sort_cols + rows.entry_offsets[h] : in.c_cols + out;
        V* vals = sort ? sort_vals + rows.entry_offsets[h] : in.c_vals + out;
        append_used<false>(keys, values, shared_slots, cols, vals, length, &sh.count);
        if (tables.global_keys != nullptr) {
            append_used<true>(tables.global_keys, global_values,
                        static_cast<long long>(tables.global_mask) + 1, cols, vals, length,
                        &sh.count);
        }
        __syncthreads();
    }
}

/// Copies the sorted stretches of the sort buffers back to the heavy rows of C.
template <typename V, typename I>
__global__ void __launch_bounds__(256) copy_sorted_kernel(HashRows<I> rows, const I* sorted_cols,
                                                          const V* sorted_vals, Operands<V, I> in)
{
    for (long long h = blockIdx.x; h < rows.n; h += gridDim.x) {
        const long long row = rows.rows[h];
        const long long out = in.c_ptrs[row];
        const long long from = rows.entry_offsets[h];
        const long long length = rows.entry_offsets[h + 1] - from;
        for (long long i = threadIdx.x; i < length; i += blockDim.x) {
            in.c_cols[out + i] = sorted_cols[from + i];
            in.c_vals[out + i] = sorted_vals[from + i];
        }
    }
}

/// needs[h] = need(rows[h]) for the heavy rows.
template <typename I, typename Need>
__global__ void __launch_bounds__(256)
    heavy_needs_kernel(const I* rows, long long n, Need need, long long* needs)
{
    for (long long h = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; h < n;
         h += static_cast<long long>(gridDim.x) * blockDim.x) {
        needs[h] = need(rows[h]);
    }
}

// ------------------------------------------------------------------------ host side

/// Blocks of 256 threads for a grid-stride loop over n items.
unsigned grid_for(const CudaExecutor& exec, long long n)
{
    return static_cast<unsigned>(std::max<long long>(
        1, std::min<long long>(ceildiv(n, 256),
                               static_cast<long long>(exec.multiprocessor_count()) * 8)));
}

int launch_blocks(long long n, int per_block)
{
    const long long blocks = ceildiv(n, per_block);
    if (blocks > std::numeric_limits<int>::max()) {
        throw NotSupported(symbolic_where, "too many rows for one launch");
    }
    return static_cast<int>(blocks);
}

/// Lets `kernel` use `bytes` of dynamic shared memory (beyond the default 48 KiB).
template <typename Kernel>
void allow_shared(const CudaExecutor& exec, Kernel kernel, std::size_t bytes, const char* where)
{
    if (bytes <= 48 * 1024) return;
    int limit = 0;
    LOOM_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                           exec.device_id()),
                    where);
    if (bytes > static_cast<std::size_t>(limit)) {
        throw NotSupported(where, "the SpGEMM kernels need " + std::to_string(bytes) +
                                      " bytes of shared memory per block; this GPU offers " +
                                      std::to_string(limit));
    }
    LOOM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)),
                    where);
}

int shared_limit(const CudaExecutor& exec, const char* where)
{
    int limit = 0;
    LOOM_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                           exec.device_id()),
                    where);
    return limit;
}

/// Rows grouped by the work they need: rows[offsets[g] .. offsets[g + 1]) are group g's.
template <typename I>
struct RowGroups {
    Array<I> rows;
    std::array<long long, group_count + 1> offsets{};
    unsigned long long flops = 0;

    long long size(int group) const { return offsets[group + 1] - offsets[group]; }
    const I* begin(int group) const { return rows.data() + offsets[group]; }
};

template <typename I, typename Need>
RowGroups<I> group_rows(const CudaExecutor& exec, long long rows, Need need,
                        const unsigned long long* flops, int light_groups, long long b_cols,
                        const char* where)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    RowGroups<I> result;
    result.rows = Array<I>(self, rows);
    if (rows == 0) return result;
    if (rows > std::numeric_limits<int>::max()) {
        throw NotSupported(where, "more than 2^31 - 1 rows");
    }
    Array<unsigned char> groups(self, rows);
    Array<GroupCounts> counts(self, 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, sizeof(GroupCounts), stream), where);
    classify_kernel<<<grid_for(exec, rows), 256, 0, stream>>>(
        rows, need, flops, light_groups, ceildiv(b_cols, 32), groups.data(), counts.data());
    check_launch(where);
    const GroupCounts host = loom::detail::load_element(counts, 0);
    result.flops = host.flops;
    for (int g = 0; g < group_count; ++g) {
        result.offsets[g + 1] = result.offsets[g] + static_cast<long long>(host.rows[g]);
    }
    iota_kernel<<<grid_for(exec, rows), 256, 0, stream>>>(rows, result.rows.data());
    check_launch(where);
    const bool one_group = std::any_of(host.rows, host.rows + group_count,
                                       [&](unsigned long long c) {
                                           return static_cast<long long>(c) == rows;
                                       });
    if (one_group) return result;  // row order is already grouped
    Array<I> ids_in(std::move(result.rows));
    result.rows = Array<I>(self, rows);
    Array<unsigned char> sorted_groups(self, rows);
    const int n = static_cast<int>(rows);
    run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, groups.data(), sorted_groups.data(),
                                               ids_in.data(), result.rows.data(), n, 0, 4, stream);
    });
    return result;
}

template <typename I>
struct Widen {
    __host__ __device__ long long operator()(I value) const { return value; }
};

template <typename I>
long long sum_as_64bit(const CudaExecutor& exec, const I* values, long long n, const char* where)
{
    if (n == 0) return 0;
    auto in = thrust::make_transform_iterator(values, Widen<I>{});
    Array<long long> result(exec.shared_from_this(), 1);
    run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Sum(temp, bytes, in, result.data(), n, stream_of(exec));
    });
    return loom::detail::load_element(result, 0);
}

// Launchers of one group: team size G = 4 << group.

template <int G, typename I>
void launch_count(const CudaExecutor& exec, const RowGroups<I>& groups, int group,
                  const Pattern<I>& in, long long b_cols, I* counts)
{
    using T = Team<G>;
    const std::size_t bytes = sizeof(CountShared<G, I>) * T::per_block;
    allow_shared(exec, count_light_kernel<G, I>, bytes, symbolic_where);
    const bool direct = b_cols <= symbolic_slots_per_thread * G;
    count_light_kernel<G, I>
        <<<launch_blocks(groups.size(group), T::per_block), T::block_threads, bytes,
           stream_of(exec)>>>(groups.begin(group), groups.size(group), in, direct, counts);
    check_launch(symbolic_where);
}

/// Group `group` has teams of G = 1 << group threads: the recursion doubles G `level` times.
template <int G = 1, typename I>
void count_group(const CudaExecutor& exec, const RowGroups<I>& groups, int group, int level,
                 const Pattern<I>& in, long long b_cols, I* counts)
{
    if constexpr (G <= max_symbolic_table / symbolic_slots_per_thread) {
        if (level == 0) {
            launch_count<G>(exec, groups, group, in, b_cols, counts);
        } else {
            count_group<2 * G>(exec, groups, group, level - 1, in, b_cols, counts);
        }
    }
}

/// known_columns: C's columns are in place (sorted), values only.
template <int G, typename V, typename I>
void launch_multiply(const CudaExecutor& exec, const RowGroups<I>& groups, int group,
                     const Operands<V, I>& in, long long b_cols, bool sort, bool known_columns)
{
    using T = Team<G>;
    const std::size_t bytes = sizeof(MultiplyShared<G, V, I>) * T::per_block;
    const int blocks = launch_blocks(groups.size(group), T::per_block);
    if (known_columns) {
        allow_shared(exec, multiply_known_columns_kernel<G, V, I>, bytes, numeric_where);
        multiply_known_columns_kernel<G, V, I>
            <<<blocks, T::block_threads, bytes, stream_of(exec)>>>(groups.begin(group),
                                                                   groups.size(group), in);
    } else {
        allow_shared(exec, multiply_light_kernel<G, V, I>, bytes, numeric_where);
        const bool direct = b_cols <= slots_per_thread * G;
        multiply_light_kernel<G, V, I><<<blocks, T::block_threads, bytes, stream_of(exec)>>>(
            groups.begin(group), groups.size(group), in, direct, sort);
    }
    check_launch(numeric_where);
}

/// Group `group` has teams of G = 4 << group threads (V is the device value type, of the
/// same size as the host one).
template <int G = 4, typename V, typename I>
void multiply_group(const CudaExecutor& exec, const RowGroups<I>& groups, int group, int level,
                    const Operands<V, I>& in, long long b_cols, bool sort, bool known_columns)
{
    if constexpr (G <= max_numeric_table<V, I>() / slots_per_thread) {
        if (level == 0) {
            launch_multiply<G>(exec, groups, group, in, b_cols, sort, known_columns);
        } else {
            multiply_group<2 * G>(exec, groups, group, level - 1, in, b_cols, sort, known_columns);
        }
    }
}

/// How the heavy rows of a phase run: bitmap in shared memory, or per block in global.
struct HeavyLaunch {
    long long words = 0;
    bool in_shared = false;
    int blocks = 0;
    std::size_t shared_bytes = 0;
    std::size_t scratch_bytes = 0;  ///< global bytes per block when not in shared
};

/// bytes_per_word: bitmap word plus (numeric) its position.
HeavyLaunch plan_heavy(const CudaExecutor& exec, long long heavy_rows, long long b_cols,
                       std::size_t header_bytes, std::size_t bytes_per_word, const char* where)
{
    HeavyLaunch launch;
    if (heavy_rows == 0) return launch;
    launch.words = ceildiv(b_cols, 32);
    const std::size_t bitmap_bytes = static_cast<std::size_t>(launch.words) * bytes_per_word;
    const std::size_t limit = static_cast<std::size_t>(shared_limit(exec, where));
    const long long wanted =
        std::min<long long>(heavy_rows, static_cast<long long>(exec.multiprocessor_count()) * 2);
    if (bitmap_bytes <= heavy_shared_bitmap_bytes && header_bytes + bitmap_bytes <= limit) {
        launch.in_shared = true;
        launch.shared_bytes = header_bytes + bitmap_bytes;
        launch.blocks = static_cast<int>(wanted);
        return launch;
    }
    launch.shared_bytes = header_bytes;
    launch.scratch_bytes = bitmap_bytes;
    const long long affordable =
        std::max<long long>(1, static_cast<long long>(heavy_global_budget / bitmap_bytes));
    launch.blocks = static_cast<int>(std::min(wanted, affordable));
    return launch;
}

/// Blocks of a launch over n heavy rows (a block per row, grid-stride).
int heavy_grid(const CudaExecutor& exec, long long n)
{
    return static_cast<int>(
        std::max<long long>(1, std::min<long long>(n, exec.multiprocessor_count() * 2ll)));
}

/// Slots of the two-level hash's first level: the largest power of two whose table (slot_bytes
/// each) fits beside the header in the shared memory a block may opt in to, at most
/// hash_shared_bytes.
int hash_shared_slots(const CudaExecutor& exec, std::size_t header, std::size_t slot_bytes,
                      const char* where)
{
    const auto budget = std::min<std::size_t>(static_cast<std::size_t>(shared_limit(exec, where)),
                                              hash_shared_bytes);
    int slots = 1024;
    while (header + 2 * static_cast<std::size_t>(slots) * slot_bytes <= budget) slots *= 2;
    return slots;
}

/// One launch's worth of heavy rows of the two-level hash: heavy rows [first, first + count)
/// (in group order) whose global tables and sort buffers fit in hash_pool_budget together
/// (a single row may exceed it alone).
struct HashChunk {
    long long first = 0;
    long long count = 0;
    long long table_slots = 0;       ///< global slots of its rows
    long long entries = 0;           ///< sum of its rows' needs (numeric: their C entries)
    Array<long long> table_offsets;  ///< count + 1, exclusive scan of the table sizes
    Array<long long> entry_offsets;  ///< count + 1, exclusive scan of the needs
};

/// Global second levels of the heavy rows of one phase, sized once: a row whose need
/// (symbolic: min(flops, B.cols); numeric: exact length) fills at most half the first level
/// gets none (it is probed without bound in shared memory), any other row a power of two
/// >= twice its need.
struct HashPlan {
    int shared_slots = 0;
    std::vector<HashChunk> chunks;
    long long max_table_slots = 0;
    long long max_entries = 0;
};

template <typename I, typename Need>
HashPlan plan_hash(const CudaExecutor& exec, const RowGroups<I>& groups, Need need,
                   int shared_slots, std::size_t slot_bytes, std::size_t entry_bytes,
                   const char* where)
{
    const auto self = exec.shared_from_this();
    const long long n = groups.size(hash_group);
    HashPlan plan;
    plan.shared_slots = shared_slots;
    if (n == 0) return plan;
    Array<long long> needs(self, n);
    heavy_needs_kernel<<<grid_for(exec, n), 256, 0, stream_of(exec)>>>(groups.begin(hash_group), n,
                                                                       need, needs.data());
    check_launch(where);
    const auto host_needs = needs.to_host();
    std::vector<long long> tables{0};
    std::vector<long long> entries{0};
    long long first = 0;
    const auto close_chunk = [&](long long end) {
        HashChunk chunk;
        chunk.first = first;
        chunk.count = end - first;
        chunk.table_slots = tables.back();
        chunk.entries = entries.back();
        chunk.table_offsets = Array<long long>(self, tables);
        chunk.entry_offsets = Array<long long>(self, entries);
        plan.max_table_slots = std::max(plan.max_table_slots, chunk.table_slots);
        plan.max_entries = std::max(plan.max_entries, chunk.entries);
        plan.chunks.push_back(std::move(chunk));
        first = end;
        tables.assign(1, 0);
        entries.assign(1, 0);
    };
    for (long long h = 0; h < n; ++h) {
        const long long row_need = host_needs[static_cast<std::size_t>(h)];
        const long long slots = 2 * row_need <= shared_slots
                                    ? 0
                                    : static_cast<long long>(std::bit_ceil(
                                          static_cast<unsigned long long>(2 * row_need)));
        const auto bytes = static_cast<std::size_t>(tables.back() + slots) * slot_bytes +
                           static_cast<std::size_t>(entries.back() + row_need) * entry_bytes;
        if (h > first && bytes > hash_pool_budget) close_chunk(h);
        tables.push_back(tables.back() + slots);
        entries.push_back(entries.back() + row_need);
    }
    close_chunk(n);
    return plan;
}

template <typename I>
HashRows<I> hash_rows(const RowGroups<I>& groups, const HashChunk& chunk)
{
    return {groups.begin(hash_group) + chunk.first, chunk.count, chunk.table_offsets.data(),
            chunk.entry_offsets.data()};
}

/// Distinct columns of the heavy rows with a wide B (two-level hash).
template <typename I>
void count_hash(const CudaExecutor& exec, const RowGroups<I>& groups, const Pattern<I>& in,
                long long b_cols, const unsigned long long* flops, I* counts)
{
    constexpr const char* where = symbolic_where;
    const auto stream = stream_of(exec);
    constexpr std::size_t header = hash_header_bytes<char>();
    const int slots = hash_shared_slots(exec, header, sizeof(I), where);
    const auto plan =
        plan_hash(exec, groups, SymbolicNeed{flops, b_cols}, slots, sizeof(I), 0, where);
    Array<I> pool(exec.shared_from_this(), plan.max_table_slots);
    const std::size_t bytes = header + sizeof(I) * static_cast<std::size_t>(slots);
    allow_shared(exec, count_hash_kernel<I>, bytes, where);
    for (const auto& chunk : plan.chunks) {
        count_hash_kernel<I><<<heavy_grid(exec, chunk.count), heavy_block, bytes, stream>>>(
            hash_rows(groups, chunk), in, slots, pool.data(), counts);
        check_launch(where);
    }
}

/// Offset of the next buffer of a scratch allocation, aligned for any element type.
std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// Columns and values of the heavy rows with a wide B (two-level hash), the plan made by the
/// symbolic phase. Sorted output: each chunk's rows are appended to sort buffers, sorted there
/// by one CUB segmented sort and copied to C.
template <typename V, typename I>
void multiply_hash(const CudaExecutor& exec, const RowGroups<I>& groups, const HashPlan& plan,
                   const Operands<V, I>& in, bool sort)
{
    constexpr const char* where = numeric_where;
    const auto stream = stream_of(exec);
    const int slots = plan.shared_slots;
    // scratch: pool keys, pool values, then (sorted) two pairs of sort buffers
    const auto table = static_cast<std::size_t>(plan.max_table_slots);
    const auto entries = sort ? static_cast<std::size_t>(plan.max_entries) : 0;
    std::array<std::size_t, 7> offsets{};
    const std::array<std::size_t, 6> sizes{table * sizeof(I),   table * sizeof(V),
                                           entries * sizeof(I), entries * sizeof(V),
                                           entries * sizeof(I), entries * sizeof(V)};
    for (std::size_t b = 0; b < sizes.size(); ++b) offsets[b + 1] = offsets[b] + aligned(sizes[b]);
    Array<unsigned char> scratch(exec.shared_from_this(), static_cast<size_type>(offsets[6]));
    const auto buffer = [&](int b) { return scratch.data() + offsets[b]; };
    auto* pool_keys = reinterpret_cast<I*>(buffer(0));
    auto* pool_values = reinterpret_cast<V*>(buffer(1));
    const std::size_t bytes =
        hash_header_bytes<V>() + (sizeof(I) + sizeof(V)) * static_cast<std::size_t>(slots);
    allow_shared(exec, multiply_hash_kernel<V, I>, bytes, where);
    for (const auto& chunk : plan.chunks) {
        const auto rows = hash_rows(groups, chunk);
        cub::DoubleBuffer<I> cols(reinterpret_cast<I*>(buffer(2)), reinterpret_cast<I*>(buffer(4)));
        cub::DoubleBuffer<V> vals(reinterpret_cast<V*>(buffer(3)), reinterpret_cast<V*>(buffer(5)));
        multiply_hash_kernel<V, I><<<heavy_grid(exec, chunk.count), heavy_block, bytes, stream>>>(
            rows, in, slots, pool_keys, pool_values, sort, cols.Current(), vals.Current());
        check_launch(where);
        if (!sort) continue;
        const long long* starts = chunk.entry_offsets.data();
        run_cub(exec, where, [&](void* temp, std::size_t& temp_bytes) {
            return cub::DeviceSegmentedSort::SortPairs(temp, temp_bytes, cols, vals, chunk.entries,
                                                       chunk.count, starts, starts + 1, stream);
        });
        copy_sorted_kernel<<<static_cast<unsigned>(std::min<long long>(chunk.count, 65535)), 256, 0,
                             stream>>>(rows, cols.Current(), vals.Current(), in);
        check_launch(where);
    }
}

/// What the numeric phase keeps in the handle.
template <typename I>
struct CudaPlan {
    RowGroups<I> groups;  ///< by exact row length
    long long b_cols = 0;
    HashPlan hash;  ///< the second-level tables of the rows in hash_group
};

/// The numeric phase's shared slots (value and key) and header, for its two-level hash plan.
struct NumericHashShape {
    std::size_t header;
    std::size_t slot_bytes;
};

template <typename I>
void symbolic(const CudaExecutor& exec, const Pattern<I>& in, long long rows, long long a_nnz,
              long long b_cols, int numeric_light_groups, NumericHashShape numeric_hash,
              detail::SpgemmState<I>& state)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    constexpr const char* where = symbolic_where;
    state.row_flops = Array<int64>(self, rows);
    state.row_ptrs = Array<I>(self, rows + 1);
    auto plan = std::make_shared<CudaPlan<I>>();
    plan->b_cols = b_cols;
    LOOM_CUDA_CHECK(cudaMemsetAsync(state.row_ptrs.data(), 0, sizeof(I) * (rows + 1), stream),
                    where);
    if (rows == 0) {
        state.nnz = 0;
        state.multiply_adds = 0;
        plan->groups.rows = Array<I>(self, 0);
        state.backend = std::move(plan);
        return;
    }

    // flops per row
    auto* flops = reinterpret_cast<unsigned long long*>(state.row_flops.data());
    LOOM_CUDA_CHECK(cudaMemsetAsync(flops, 0, sizeof(int64) * rows, stream), where);
    if (a_nnz > 0) {
        const long long threads = ceildiv(a_nnz, flops_chunk);
        row_flops_kernel<<<static_cast<unsigned>(ceildiv(threads, 256)), 256, 0, stream>>>(
            a_nnz, rows, in.a_ptrs, in.a_cols, in.b_ptrs, flops);
        check_launch(where);
    }
    if (in.identity) {
        add_identity_flops_kernel<<<grid_for(exec, rows), 256, 0, stream>>>(rows, in.b_ptrs,
                                                                             flops);
        check_launch(where);
    }

    // distinct columns per row, into row_ptrs
    const auto groups = group_rows<I>(exec, rows, SymbolicNeed{flops, b_cols}, flops,
                                      light_groups_for(max_symbolic_table), b_cols, where);
    state.multiply_adds = static_cast<size_type>(groups.flops);
    I* counts = state.row_ptrs.data();
    for (int g = 0; g < light_groups_for(max_symbolic_table); ++g) {
        if (groups.size(g) > 0) count_group(exec, groups, g, g, in, b_cols, counts);
    }
    if (groups.size(heavy_group) > 0) {
        const auto heavy = plan_heavy(exec, groups.size(heavy_group), b_cols,
                                      sizeof(HeavyShared<char>), sizeof(unsigned), where);
        Array<unsigned char> scratch(self, static_cast<size_type>(heavy.scratch_bytes) *
                                               (heavy.in_shared ? 0 : heavy.blocks));
        if (!heavy.in_shared) {
            LOOM_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size(), stream), where);
        }
        allow_shared(exec, count_heavy_kernel<I>, heavy.shared_bytes, where);
        count_heavy_kernel<I><<<heavy.blocks, heavy_block, heavy.shared_bytes, stream>>>(
            groups.begin(heavy_group), groups.size(heavy_group), in, heavy.words, heavy.in_shared,
            reinterpret_cast<unsigned*>(scratch.data()), counts);
        check_launch(where);
    }
    if (groups.size(hash_group) > 0) count_hash(exec, groups, in, b_cols, flops, counts);
    const long long nnz = sum_as_64bit(exec, counts, rows, where);
    if (nnz > std::numeric_limits<I>::max()) {
        throw OutOfRange(where,
                         std::string("C has more stored entries than the index type ") +
                             type_name<I>() + " can count (use 64-bit indices); entries",
                         nnz, std::numeric_limits<I>::max());
    }
    loom::cuda::exclusive_prefix_sum(exec, counts, rows + 1);
    state.nnz = nnz;

    // the numeric phase's grouping, by exact row length, and its second-level tables
    plan->groups = group_rows<I>(exec, rows, NumericNeed<I>{counts}, nullptr, numeric_light_groups,
                                 b_cols, where);
    if (plan->groups.size(hash_group) > 0) {
        const int slots =
            hash_shared_slots(exec, numeric_hash.header, numeric_hash.slot_bytes, where);
        plan->hash = plan_hash(exec, plan->groups, NumericNeed<I>{counts}, slots,
                               numeric_hash.slot_bytes, 2 * numeric_hash.slot_bytes, where);
    }
    state.backend = std::move(plan);
}

/// known_columns: C's columns are those a previous call wrote (sorted); light rows then
/// compute values only, heavy rows run as always.
template <typename V, typename I>
void numeric(const CudaExecutor& exec, const CudaPlan<I>& plan, const Operands<V, I>& in, bool sort,
             int light_groups, bool known_columns)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    constexpr const char* where = numeric_where;
    const auto& groups = plan.groups;
    for (int g = 0; g < light_groups; ++g) {
        if (groups.size(g) > 0) {
            multiply_group(exec, groups, g, g, in, plan.b_cols, sort, known_columns);
        }
    }
    if (groups.size(hash_group) > 0) multiply_hash(exec, groups, plan.hash, in, sort);
    const long long heavy_rows = groups.size(heavy_group);
    if (heavy_rows == 0) return;
    const auto heavy = plan_heavy(exec, heavy_rows, plan.b_cols, sizeof(HeavyShared<V>),
                                  sizeof(unsigned) + sizeof(I), where);
    Array<unsigned char> scratch(
        self, static_cast<size_type>(heavy.scratch_bytes) * (heavy.in_shared ? 0 : heavy.blocks));
    // positions first (alignment), then the bitmaps, which start zeroed
    I* positions = reinterpret_cast<I*>(scratch.data());
    unsigned* bitmaps = nullptr;
    if (!heavy.in_shared) {
        const std::size_t positions_bytes =
            sizeof(I) * static_cast<std::size_t>(heavy.words) * heavy.blocks;
        bitmaps = reinterpret_cast<unsigned*>(scratch.data() + positions_bytes);
        LOOM_CUDA_CHECK(cudaMemsetAsync(bitmaps, 0, scratch.size() - positions_bytes, stream),
                        where);
    }
    allow_shared(exec, multiply_heavy_kernel<V, I>, heavy.shared_bytes, where);
    multiply_heavy_kernel<V, I><<<heavy.blocks, heavy_block, heavy.shared_bytes, stream>>>(
        groups.begin(heavy_group), heavy_rows, in, heavy.words, heavy.in_shared, bitmaps,
        positions);
    check_launch(where);
}

/// d_inv[r] = 1 / (sum of A's entries (r, r)); first_zero = the lowest row where it is 0.
template <typename V, typename I>
__global__ void __launch_bounds__(256)
    inverse_diagonal_kernel(long long rows, const I* ptrs, const I* cols, const V* vals,
                            V* d_inv, unsigned long long* first_zero)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        V diagonal(0);
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (static_cast<long long>(cols[k]) == r) diagonal += vals[k];
        }
        const bool zero = diagonal == V(0);
        if (zero) atomicMin(first_zero, static_cast<unsigned long long>(r));
        d_inv[r] = zero ? V(0) : V(1) / diagonal;
    }
}

}  // namespace

template <typename V, typename I>
int64 inverse_diagonal(const CudaExecutor& exec, const matrix::Csr<V, I>& A, Array<V>& d_inv)
{
    constexpr const char* where = "loom::sparse::spgemm_jacobi_numeric (diagonal of A)";
    const long long rows = A.rows();
    if (rows == 0) return -1;
    const auto stream = stream_of(exec);
    Array<unsigned long long> first_zero(exec.shared_from_this(), 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(first_zero.data(), 0xff, sizeof(unsigned long long), stream),
                    where);
    inverse_diagonal_kernel<<<grid_for(exec, rows), 256, 0, stream>>>(
        rows, A.row_ptrs().data(), A.col_idxs().data(), as_device(A.values().data()),
        as_device(d_inv.data()), first_zero.data());
    check_launch(where);
    const auto first = loom::detail::load_element(first_zero, 0);
    return first == ~0ull ? -1 : static_cast<int64>(first);
}

template <typename V, typename I>
void spgemm_symbolic(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                     const matrix::Csr<V, I>& B, bool with_identity,
                     detail::SpgemmState<I>& state)
{
    const Pattern<I> in{A.row_ptrs().data(), A.col_idxs().data(), B.row_ptrs().data(),
                        B.col_idxs().data(), with_identity};
    using DV = device_type_t<V>;
    symbolic(exec, in, A.rows(), A.nnz(), B.cols(), light_groups_for(max_numeric_table<V, I>()),
             NumericHashShape{hash_header_bytes<DV>(), sizeof(DV) + sizeof(I)}, state);
}

namespace {

template <typename V, typename I>
void numeric_phase(const CudaExecutor& exec, const detail::SpgemmState<I>& state,
                   const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                   const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C, bool known_columns)
{
    using DV = device_type_t<V>;
    const auto& plan = *static_cast<const CudaPlan<I>*>(state.backend.get());
    const Operands<DV, I> in{
        {A.row_ptrs().data(), A.col_idxs().data(), B.row_ptrs().data(), B.col_idxs().data(),
         jacobi != nullptr},
        as_device(A.values().data()),
        as_device(B.values().data()),
        jacobi ? as_device(jacobi->d_inv) : nullptr,
        jacobi ? static_cast<long long>(jacobi->stride) : 0,
        jacobi ? as_device(jacobi->omega) : DV(0),
        state.row_ptrs.data(),
        C.col_idxs().data(),
        as_device(C.values().data())};
    numeric(exec, plan, in, state.sort_output, light_groups_for(max_numeric_table<V, I>()),
            known_columns);
}

}  // namespace

template <typename V, typename I>
void spgemm_numeric(const CudaExecutor& exec, const detail::SpgemmState<I>& state,
                    const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                    const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    numeric_phase(exec, state, A, B, jacobi, C, false);
}

template <typename V, typename I>
void spgemm_numeric_values(const CudaExecutor& exec, const detail::SpgemmState<I>& state,
                           const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                           const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    if (!state.sort_output) {
        throw NotSupported(numeric_where, "the values-only numeric phase needs sorted rows");
    }
    numeric_phase(exec, state, A, B, jacobi, C, true);
}

#define LOOM_INSTANTIATE_SPGEMM_CUDA(V, I)                                                     \
    template int64 inverse_diagonal(const CudaExecutor&, const matrix::Csr<V, I>&, Array<V>&); \
    template void spgemm_symbolic(const CudaExecutor&, const matrix::Csr<V, I>&,               \
                                  const matrix::Csr<V, I>&, bool, detail::SpgemmState<I>&);    \
    template void spgemm_numeric(const CudaExecutor&, const detail::SpgemmState<I>&,           \
                                 const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,           \
                                 const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);         \
    template void spgemm_numeric_values(const CudaExecutor&, const detail::SpgemmState<I>&,    \
                                        const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,    \
                                        const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_CUDA)

}  // namespace loom::sparse::cuda
