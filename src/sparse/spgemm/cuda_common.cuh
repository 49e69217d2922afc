// CUDA SpGEMM: Gustavson's row-wise product with the rows grouped by the work they need.
// NOTES.md beside it explains the design and the expected speed; in short:
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
//   of 8G slots (keys by atomicCAS, values by ordered_add) sized for the row's exact length,
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
// Every launch is on the executor's stream and checked. With SpgemmOptions::deterministic
// (the default) the kernels add the products of one entry of C in product order
// (ordered_add: the products of one step of a team that meet in one entry add one after
// the other in rank order), so every run gives the same bits; without it, atomic adds in
// arrival order (last-bit differences between runs).
//
// Files: this header is private to the cuda*.cu files beside it and holds what they share:
// the configuration, the teams that spread a row's products over their threads, the
// operands, the grouping of rows by the work they need, the plan the symbolic phase leaves
// for the numeric one, and the launchers that one phase file defines for the others:
//   cuda_symbolic.cu  flops, grouping, light rows' distinct columns, the symbolic phase
//   cuda_numeric.cu   light rows' columns and values, the numeric phase
//   cuda_heavy.cu     heavy rows through bitmaps of B's columns (both phases)
//   cuda_hash.cu      heavy rows with a wide B through two-level hash tables (both phases)
//   cuda_recorded.cu  values only, from a record of every entry's multiply-adds
//   cuda_jacobi.cu    the inverse diagonal of the Jacobi product
//   cuda.cu           the pattern checksum
// The hash tables, the row grouping and the team scans are base/cuda's (hash_table.cuh,
// row_binning.cuh, warp.cuh).
#pragma once

#include <climits>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/hash_table.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/row_binning.cuh"
#include "base/cuda/warp.cuh"
#include "loom/base/array.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse::cuda::spgemm_kernels {

using loom::cuda::ceildiv;
using loom::cuda::check_launch;
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
/// Shared memory for the first level of a heavy row's two-level hash (and its header): the
/// numeric phase's 16384 slots of double/int32 (192 KiB) and its header (32 KiB with
/// ordered_add's owners) fit the 227 KiB a block of sm_90 may opt in to.
constexpr std::size_t hash_shared_bytes = 226 * 1024;
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

/// The row of this team in a launch of teams over one group's rows (group_rows[0 .. n)), and
/// whether it has one (row 0 when not: the team still takes part in team-wide steps).
template <int G, typename I>
__device__ inline long long team_row(const I* group_rows, long long n, bool& active)
{
    const long long team =
        blockIdx.x * static_cast<long long>(Team<G>::per_block) + Team<G>::index();
    active = team < n;
    return active ? static_cast<long long>(group_rows[team]) : 0;
}

/// This team's part of the block's dynamic shared memory, which holds per_block Shared.
template <int G, typename Shared>
__device__ inline Shared& team_shared()
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    return reinterpret_cast<Shared*>(shared_bytes)[Team<G>::index()];
}

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
    if constexpr (G > 32) {
        return loom::cuda::block_inclusive_scan(value, batch.warp_totals, G / 32);
    } else {
        return loom::cuda::warp_inclusive_scan<G>(value, Team<G>::mask());
    }
}

/// for_each_product_step (below) over a window of the products of the entries [first, end): products
/// [skip, skip + count), numbered from first's first product in product order (so that
/// several teams can share one long row, each its own window, see Piece). Team-wide.
template <int G, typename I, typename Load, typename Visit>
__device__ void for_each_product_in_range(long long first, long long end, long long skip,
                                          long long count, const I* b_ptrs, Batch<G>& batch,
                                          Load&& load, Visit&& visit)
{
    const int rank = Team<G>::rank();
    const long long stop = skip + count;
    long long before_batch = 0;  // products of the batches done
    for (long long base = first; base < end && before_batch < stop; base += G) {
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
        const long long lo = max(skip - before_batch, 0ll);
        const long long hi = min(stop - before_batch, total);
        int s = 0;
        for (long long step = lo; step < hi; step += G) {
            const long long p = step + rank;
            const bool valid = p < hi;
            long long j = 0;
            if (valid) {
                int l = s;
                int h = G - 1;
                while (l < h) {
                    const int mid = (l + h) / 2;
                    if (batch.inclusive[mid] > p) {
                        h = mid;
                    } else {
                        l = mid + 1;
                    }
                }
                s = l;
                const long long before = s == 0 ? 0 : batch.inclusive[s - 1];
                j = batch.starts[s] + (p - before);
            }
            if constexpr (std::is_invocable_v<Visit&, long long, int, bool, long long>) {
                // the product's place in the window
                visit(j, s, valid, before_batch + p - skip);
            } else {
                visit(j, s, valid);
            }
        }
        before_batch += total;
        Team<G>::sync();
    }
}

/// Calls visit(j, s, valid) on every thread of the team for the products of one row, G
/// products per step in product order: thread t has product t of the step (valid) or none
/// (the last step), j its entry of B and s the rank in its batch of the A entry that
/// selected j's row. A visit that takes a fourth argument also gets the product's index
/// from `first`'s first product (in product order; where the record's stage puts it). Entries k in [first, end) are taken G at a time; load(k, s) runs on the
/// thread of rank s and returns the row of B that k selects (it may stash per-entry data at
/// index s, readable by every thread in visit). Team-wide: every thread of the team calls it
/// with the same first and end, and every call of visit is a step of the whole team (so
/// visit may synchronise the team, see ordered_add).
template <int G, typename I, typename Load, typename Visit>
__device__ void for_each_product_step(long long first, long long end, const I* b_ptrs,
                                      Batch<G>& batch, Load&& load, Visit&& visit)
{
    for_each_product_in_range<G>(first, end, 0, LLONG_MAX, b_ptrs, batch, load, visit);
}

/// Calls visit(j, s) for every product of one row (for_each_product_step without the idle
/// threads of the last step).
template <int G, typename I, typename Load, typename Visit>
__device__ void for_each_product(long long first, long long end, const I* b_ptrs,
                                 Batch<G>& batch, Load&& load, Visit&& visit)
{
    for_each_product_step<G>(first, end, b_ptrs, batch, load, [&](long long j, int s, bool valid) {
        if (valid) visit(j, s);
    });
}

// ------------------------------------------------------------------ deterministic sums

/// a * b rounded on its own, never fused with a following add into an FMA. Every path
/// computes its multiply-adds with it, so that their sums round alike: the full phase's adds
/// go through shuffles or shared memory (where the compiler may or may not fuse), the
/// record's are a plain `sum += a * b` (which it would fuse); with it, a values-only call
/// gives the full phase's bits.
template <typename V>
__device__ inline V unfused_product(V a, V b)
{
    if constexpr (std::is_same_v<V, double>) {
        return __dmul_rn(a, b);
    } else if constexpr (std::is_same_v<V, float>) {
        return __fmul_rn(a, b);
    } else {
        return a * b;
    }
}

/// An owner slot nobody holds (see ordered_add).
constexpr int no_owner = 0x7fffffff;

/// ordered_add of a team within a warp: the threads with one target (matched by address)
/// form a group, whose lowest lane adds the group's values to the target in lane order.
template <int G, typename V>
__device__ inline void add_in_lane_order(V* target, V value, bool add)
{
    const unsigned group =
        __match_any_sync(Team<G>::mask(), add ? reinterpret_cast<unsigned long long>(target) : 0);
    if (add) {
        const int lane = static_cast<int>(threadIdx.x % 32);
        const bool leader = lane == __ffs(group) - 1;
        V sum = leader ? *target : V{};
        for (unsigned rest = group; rest != 0; rest &= rest - 1) {
            const V term = loom::cuda::shuffle(value, __ffs(rest) - 1, group);
            if (leader) sum += term;
        }
        if (leader) *target = sum;
    }
    Team<G>::sync();
}

/// ordered_add of a block team: per round, the lowest rank still waiting among the threads
/// that share an owner slot (*owner: no_owner when idle, and left so) adds, the others wait
/// for the next round. Rounds: the most threads sharing one owner slot in the step.
template <int G, typename V>
__device__ inline void add_in_rank_rounds(V* target, V value, bool add, int* owner)
{
    const int rank = Team<G>::rank();
    while (__syncthreads_or(add) != 0) {
        if (add) atomicMin(owner, rank);
        __syncthreads();
        const bool first = add && *owner == rank;
        __syncthreads();
        if (first) {
            *target += value;
            *owner = no_owner;
            add = false;
        }
    }
}

/// One step of the team's sums: *target += value on the threads with `add`. ordered
/// (SpgemmOptions::deterministic): threads that share a target add one after the other in
/// rank order, i.e. in product order, so that the rounding of every sum is the same on every
/// run. Block teams need an owner slot per target (`owner`, a function of the target that
/// few other targets share; teams within a warp ignore it). Team-wide; the targets are the
/// team's alone. Not ordered: an atomic add, in whatever order the threads arrive.
template <int G, typename V>
__device__ inline void ordered_add(bool ordered, V* target, V value, bool add, int* owner)
{
    if (!ordered) {
        if (add) loom::cuda::atomic_add(target, value);
    } else if constexpr (G <= 32) {
        add_in_lane_order<G>(target, value, add);
    } else {
        add_in_rank_rounds<G>(target, value, add, owner);
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
    /// SpgemmOptions::deterministic: sums in product order (ordered_add), else atomic adds.
    bool ordered;
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

/// The "entries" of the product in product order, in one index space for all rows: row r's
/// are its identity (Jacobi only, at a_ptrs[r] + r) and then A's entries of row r.
template <typename I>
__device__ inline long long entry_start(const Pattern<I>& in, long long row)
{
    return in.a_ptrs[row] + (in.identity ? row : 0);
}

/// The A entry that entry v of row `row` stands for, in entry_range's numbering (the
/// identity is a_ptrs[row] - 1).
template <typename I>
__device__ inline long long a_entry(const Pattern<I>& in, long long row, long long v)
{
    return in.identity ? v - row - 1 : v;
}

/// Inserts the columns of the products of row `row` (when active) into a team's table of S
/// keys (loom::cuda::hash_insert; direct: B no wider than the table) and returns how many
/// this thread inserted first. Team-wide, like for_each_product.
template <int G, int S, typename I>
__device__ int insert_row_columns(const Pattern<I>& in, bool active, long long row, I* keys,
                                  Batch<G>& batch, bool direct)
{
    long long first = 0;
    long long end = 0;
    if (active) entry_range(in, row, first, end);
    const long long a_begin = active ? in.a_ptrs[row] : 0;
    int found = 0;
    for_each_product<G>(
        first, end, in.b_ptrs, batch,
        [&](long long k, int) -> long long { return k < a_begin ? row : in.a_cols[k]; },
        [&](long long j, int) { found += loom::cuda::hash_insert<S>(keys, in.b_cols[j], direct); });
    return found;
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

/// for_each_product_step over the products of row `row` (none when not active), with the
/// factor of each entry of the batch (A's value, Jacobi-scaled, or 1 for the identity) in
/// factors[s] for visit(j, s, valid).
template <int G, typename V, typename I, typename Visit>
__device__ void for_each_row_product_step(const Operands<V, I>& in, bool active, long long row,
                                          Batch<G>& batch, V* factors, Visit&& visit)
{
    long long first = 0;
    long long end = 0;
    if (active) entry_range(in.pattern, row, first, end);
    const V scale = active ? row_scale(in, row) : V(1);
    for_each_product_step<G>(
        first, end, in.pattern.b_ptrs, batch,
        [&](long long k, int s) -> long long { return selected_row(in, row, scale, k, factors[s]); },
        visit);
}

/// The row that entry v of the product's entry space (see entry_start) selects in B, and
/// the A entry it stands for (below a_ptrs[row]: the identity of the Jacobi product).
template <typename I>
__device__ inline long long selected_b_row(const Pattern<I>& in, long long row, long long v,
                                           long long& k)
{
    k = a_entry(in, row, v);
    return k < in.a_ptrs[row] ? row : static_cast<long long>(in.a_cols[k]);
}

/// A window of one row's products for one block (rows split over many blocks, so that a row
/// of 30 M multiply-adds does not run on one block while the others idle): products
/// [first, first + per_piece) of item `item` (a row, or an index into a list of rows), in
/// product order, cut at the row's end.
struct Piece {
    long long item;
    long long first;
    long long entry;  ///< the entry (see entry_start) that holds product `first`
    long long skip;   ///< that entry's products before it
};

/// The entry of row `row` (in the entry space) that holds the row's product `product`, and
/// the products of it before that one (skip); offsets: exclusive prefix of the B row lengths
/// over the entry space (entry_offsets).
template <typename I>
__device__ inline long long piece_first_entry(const Pattern<I>& in, const long long* offsets,
                                              long long row, long long product, long long& skip)
{
    long long lo = entry_start(in, row);
    long long hi = entry_start(in, row + 1) - 1;
    const long long g = offsets[lo] + product;
    // the last entry whose products start at or before g (entries without products skipped)
    while (lo < hi) {
        const long long mid = lo + (hi - lo + 1) / 2;
        if (offsets[mid] <= g) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    skip = g - offsets[lo];
    return lo;
}

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

/// The group of a row in the grouping for a phase: light tables by need, heavy, or empty.
template <typename Need>
struct GroupOf {
    Need need;
    int light_groups;
    long long b_words;
    __device__ int operator()(long long row) const
    {
        return group_of(need(row), light_groups, b_words);
    }
};

/// Rows grouped by the work they need: rows[offsets[g] .. offsets[g + 1]) are group g's, and
/// weight is the flops of all rows (when counted).
template <typename I>
using RowGroups = loom::cuda::RowBins<I, group_count>;

template <typename I, typename Need>
RowGroups<I> group_rows(const CudaExecutor& exec, long long rows, Need need,
                        const unsigned long long* flops, int light_groups, long long b_cols,
                        const char* where)
{
    return loom::cuda::bin_rows<I, group_count>(
        exec, rows, GroupOf<Need>{need, light_groups, ceildiv(b_cols, 32)}, flops, where);
}

// ------------------------------------------------------------------------ host side

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

inline int shared_limit(const CudaExecutor& exec, const char* where)
{
    int limit = 0;
    LOOM_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                           exec.device_id()),
                    where);
    return limit;
}

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

/// Owner slots of ordered_add in a numeric two-level hash block (the slot modulo this): as
/// many as fit beside the largest first level of double/int32.
constexpr int hash_owner_slots = 2048;

/// ... of the numeric phase, whose header also holds ordered_add's owners (after HashShared).
template <typename V>
constexpr std::size_t numeric_hash_header_bytes()
{
    return (sizeof(HashShared<V>) + sizeof(int) * hash_owner_slots + 15) / 16 * 16;
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

// ---------------------------------------------------------------------- searching

/// The first position in [first, end) of the ascending values whose value is not below x.
template <typename T>
__host__ __device__ inline long long first_not_below(const T* values, long long first,
                                                     long long end, T x)
{
    while (first < end) {
        const long long mid = first + (end - first) / 2;
        if (values[mid] < x) {
            first = mid + 1;
        } else {
            end = mid;
        }
    }
    return first;
}

/// What the numeric phase keeps in the handle.
template <typename I>
struct CudaPlan {
    RowGroups<I> groups;  ///< by exact row length
    long long b_cols = 0;
    HashPlan hash;  ///< the second-level tables of the rows in hash_group
    /// B's rows hold strictly ascending columns (so no column twice): the values-only path
    /// may add a B row's products all at once.
    bool b_rows_distinct = false;
};

/// The numeric phase's shared slots (value and key) and header, for its two-level hash plan.
struct NumericHashShape {
    std::size_t header;
    std::size_t slot_bytes;
};

// ------------------------------------------------------- launchers of the phase files

/// cuda_heavy.cu: distinct columns (counts) of the rows in heavy_group.
template <typename I>
void count_heavy_rows(const CudaExecutor& exec, const RowGroups<I>& groups, const Pattern<I>& in,
                      long long b_cols, const unsigned long long* flops, long long a_nnz,
                      I* counts);

/// cuda_heavy.cu: columns and values of the rows in heavy_group.
template <typename V, typename I>
void multiply_heavy_rows(const CudaExecutor& exec, const RowGroups<I>& groups,
                         const Operands<V, I>& in, long long b_cols);

/// cuda_hash.cu: distinct columns (counts) of the rows in hash_group.
template <typename I>
void count_hash_rows(const CudaExecutor& exec, const RowGroups<I>& groups, const Pattern<I>& in,
                     long long b_cols, const unsigned long long* flops, I* counts);

/// cuda_hash.cu: the numeric phase's second-level tables of the rows in hash_group, whose
/// lengths are known (C's row pointers).
template <typename I>
HashPlan plan_numeric_hash(const CudaExecutor& exec, const RowGroups<I>& groups,
                           const I* c_ptrs, NumericHashShape shape);

/// cuda_hash.cu: columns and values of the rows in hash_group.
template <typename V, typename I>
void multiply_hash_rows(const CudaExecutor& exec, const RowGroups<I>& groups,
                        const HashPlan& plan, const Operands<V, I>& in, bool sort);

/// cuda_numeric.cu: C's columns (sorted) of the rows in the light groups [0, light_groups)
/// of the numeric grouping, for the symbolic phase (C's row pointers known).
template <typename I>
void write_light_columns(const CudaExecutor& exec, const CudaPlan<I>& plan, const Pattern<I>& in,
                         int light_groups, const I* c_ptrs, I* c_cols);

/// cuda_numeric.cu: the record of values-only calls (state.recorded), made by a symbolic
/// phase that wrote C's columns (state.columns), with the positions of the short rows'
/// multiply-adds already kept: the first numeric call then runs as a repeated one. V is
/// the device value type.
template <typename V, typename I>
void record_in_symbolic(const CudaExecutor& exec, detail::SpgemmState<I>& state,
                        const Pattern<I>& in, long long a_nnz);

/// cuda_heavy.cu: the entry space's product offsets (entries of A, and the identity's
/// before each row's for the Jacobi product: see entry_start): offsets[v] = the products of
/// the entries before v, offsets[E] = all of them; E + 1 values.
template <typename I>
Array<long long> entry_offsets(const CudaExecutor& exec, const Pattern<I>& in, long long rows,
                               long long a_nnz, const char* where);

/// The pieces of items [0, n) (item h is row rows[h], or row h when rows is null) of at most
/// per_piece products each (flops: products per row), skipping rows of at most `light`
/// entries when c_ptrs is given; offsets (n + 1, on the device) where each item's start.
/// Each piece's first entry is found here, a thread per piece (entry_offsets: of
/// entry_offsets()), not by the block that takes it.
struct Pieces {
    Array<Piece> pieces;
    Array<long long> offsets;
    long long count = 0;
};
template <typename I>
Pieces plan_pieces(const CudaExecutor& exec, const Pattern<I>& in, const long long* entry_offsets,
                   const I* rows, long long n, const unsigned long long* flops, const I* c_ptrs,
                   long long light, long long per_piece, const char* where);

/// cuda_heavy.cu: the symbolic phase's wide rows rows[0 .. n) marked once into bitmaps
/// (n * ceil(b_cols / 32) words, zeroed; pieces over many blocks) that stay set for
/// columns_from_kept, and counted.
template <typename I>
void mark_and_count_kept(const CudaExecutor& exec, const Pattern<I>& in, const I* rows, long long n,
                         const unsigned long long* flops, long long row_count, long long a_nnz,
                         long long b_cols, unsigned* bitmaps, I* counts);
/// ... and their columns (C's row pointers known); the bitmaps are left as they are (dropped
/// after).
template <typename I>
void columns_from_kept(const CudaExecutor& exec, const I* rows, long long n, long long b_cols,
                       unsigned* bitmaps, const I* c_ptrs, I* c_cols);

/// Bitmaps kept from the symbolic count of the wide rows (rows[first .. first + n), the
/// symbolic grouping's) for their columns.
template <typename I>
struct KeptBitmaps {
    Array<I> rows;
    long long first = 0;
    long long n = 0;
    Array<unsigned> bitmaps;
};

/// cuda_heavy.cu: C's columns (sorted) of the rows rows[0 .. n) (the numeric grouping's hash
/// and heavy rows, C's row pointers known) from bitmaps of B's columns, the rows split into
/// pieces over the blocks; for the symbolic phase.
template <typename I>
void write_bitmap_columns(const CudaExecutor& exec, const Pattern<I>& in, const I* rows,
                          long long n, const unsigned long long* flops, long long row_count,
                          long long a_nnz, long long b_cols, const I* c_ptrs, I* c_cols);

/// cuda_recorded.cu: bytes kept by a record of record_products.
template <typename I>
std::size_t record_size(const void* record);

/// cuda_recorded.cu: the record for values-only calls: where every multiply-add lands in C
/// (whose rows hold, sorted, the columns that the full numeric phase wrote), as (A entry,
/// B entry) pairs, for the rows longer than `light` entries. Null when there are none, when
/// it would exceed `limit` bytes or 3/4 of the device's free memory (with what its
/// construction needs), or when C lacks a column of the product.
template <typename I>
std::shared_ptr<void> record_products(const CudaExecutor& exec, const Pattern<I>& in,
                                      long long rows, long long a_nnz, long long multiply_adds,
                                      long long nnz, const I* c_ptrs, const I* c_cols,
                                      long long light, std::size_t limit,
                                      const unsigned long long* flops, const RowGroups<I>& groups,
                                      long long b_cols);

/// cuda_recorded.cu: the values of the recorded rows of C from a record of record_products.
template <typename V, typename I>
void values_from_record(const CudaExecutor& exec, const void* record, const Operands<V, I>& in);

}  // namespace loom::sparse::cuda::spgemm_kernels
