// CUDA SpGEMM, values only from a record of where every multiply-add lands in C, made by the
// first values-only call (NOTES.md, "CUDA record"): every entry's multiply-adds as (entry of
// A, entry of B) pairs, summed by a lane per entry from operands a warp gathers (8 bytes per
// multiply-add), for the rows longer than a bound the caller gives (the shorter ones are left
// to the light rows' kernel). Each entry's sum is the full phase's (which adds every entry's
// multiply-adds from 0 in product order too): no hashing, no search, no atomics, the same
// bits.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>

#include "base/cuda/cub.cuh"
#include "base/instantiate.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::exact_grid;
using loom::cuda::grid_for;
using loom::cuda::run_cub;

constexpr const char* record_where = "loom::sparse::spgemm_numeric (record)";

/// Of the memory the device has free, the share the record and its construction may take.
constexpr double record_share_of_free = 0.75;

/// One multiply-add of a heavy row: a[k] * b[j] (k < 0: the identity of the Jacobi product,
/// factor 1).
template <typename I>
struct RecordedProduct {
    I a;
    I b;
};

/// Entries of a heavy row a warp gives values to at once, chunk_entries / 32 per lane: on
/// power-law matrices an entry has 1-2 multiply-adds, and a window of a few hundred keeps
/// more gathers in flight than 32 entries would.
constexpr int chunk_entries = 128;

/// Up to chunk_entries consecutive entries of one heavy row, for a warp: [first,
/// min(first + chunk_entries, end of the row)).
template <typename I>
struct Chunk {
    I row;
    I first;
};

/// Entries of C's row a block of windows_values_kernel holds in shared memory (by default:
/// a window of 4096 doubles, 32 KiB, leaves 7 blocks of 256 threads per SM), at most 65536
/// (2-byte positions).
constexpr int default_window_entries = 4096;
/// A heavy row goes to the windows when its multiply-adds average at least this many per
/// segment (a block barrier each): rows led by a few long B rows (on power-law A*A, the rows
/// of C over 32 k entries, 62% of the multiply-adds), not rows of many short B rows.
constexpr long long default_min_segment_products = 32;

/// The products of one entry of A (k < 0: the identity) that land in one window of C's row:
/// consecutive in product order ([first, end), numbered as `offsets`) and in B's row (from
/// entry b). B's rows hold distinct columns, so their positions differ.
template <typename I>
struct Segment {
    I a;
    I b;
    unsigned first;
    unsigned end;
};

/// Products a thread of layered_values_kernel adds in a row (consecutive in a segment).
constexpr int piece_products = 8;

/// Up to piece_products consecutive products of a segment (layered windows).
template <typename I>
struct Piece {
    I a;
    I b;
    unsigned first;
    unsigned count;
};

/// A window: entries [first, min(first + window_entries, end of the row)) of row `row` of C.
template <typename I>
struct Window {
    I row;
    I first;
};

/// The record. Multiply-adds are numbered in C's order (entry by entry, each entry's in
/// product order). The arrays span all multiply-adds and entries; the parts of the rows left
/// to the light kernel are unused.
template <typename I>
struct Record {
    std::size_t bytes = 0;
    Array<Chunk<I>> chunks;
    Array<unsigned> starts;                ///< per entry: its first multiply-add
    Array<RecordedProduct<I>> products;    ///< per multiply-add
    // rows in windows (product order), which have no chunks
    Array<Window<I>> windows;
    Array<unsigned> window_starts;         ///< per window: its first segment (windows + 1)
    Array<Segment<I>> segments;            ///< by window, each window's in product order
    Array<std::uint16_t> positions;        ///< per multiply-add: its position in its window
    int window_entries = default_window_entries;
    int window_block = 256;
    // layered: the windows' segments in steps (pieces of at most piece_products products)
    bool layered = false;
    Array<Piece<I>> pieces;                ///< by window and step
    Array<unsigned> step_starts;           ///< per step: its first piece (steps + 1)
    Array<unsigned> window_steps;          ///< per window: its first step (windows + 1)
};

/// The row of entry v of the product (see entry_start).
template <typename I>
__device__ inline long long entry_row(const Pattern<I>& in, long long rows, long long v)
{
    return last_row_starting_by(rows, v, [&](long long r) { return entry_start(in, r); });
}

template <typename I>
__global__ void entry_lengths_kernel(Pattern<I> in, long long rows, long long entries,
                                     long long* lengths)
{
    for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < entries;
         v += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long row = entry_row(in, rows, v);
        const long long k = a_entry(in, row, v);
        const long long r = k < in.a_ptrs[row] ? row : static_cast<long long>(in.a_cols[k]);
        lengths[v] = in.b_ptrs[r + 1] - in.b_ptrs[r];
    }
}

/// A warp per entry v: its products (first = offsets[v], in product order) get their
/// position in C's sorted row (binary search) as key, their number as value, and their
/// (A entry, B entry) pair. A column missing from the row (C's columns are
/// not what the full phase wrote) raises *missing and keys the product to the row's first
/// entry, so that everything stays in bounds; the record is then dropped.
template <typename I>
__global__ void position_products_kernel(Pattern<I> in, long long rows, long long entries,
                                         const long long* offsets, const I* c_ptrs, const I* c_cols,
                                         std::make_unsigned_t<I>* keys, unsigned* numbers,
                                         RecordedProduct<I>* pairs, int* missing)
{
    const int lane = threadIdx.x % 32;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
    for (long long v = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
         v < entries; v += warps) {
        const long long row = entry_row(in, rows, v);
        const long long k = a_entry(in, row, v);
        const long long r = k < in.a_ptrs[row] ? row : static_cast<long long>(in.a_cols[k]);
        const long long c_first = c_ptrs[row];
        const long long c_end = c_ptrs[row + 1];
        const long long out = offsets[v];
        for (long long j = in.b_ptrs[r] + lane; j < in.b_ptrs[r + 1]; j += 32) {
            const I col = in.b_cols[j];
            const long long lo = first_not_below(c_cols, c_first, c_end, col);
            const bool found = lo < c_end && c_cols[lo] == col;
            if (!found) *missing = 1;
            const long long q = out + (j - in.b_ptrs[r]);
            keys[q] = static_cast<std::make_unsigned_t<I>>(found ? lo : c_first);
            numbers[q] = static_cast<unsigned>(q);
            pairs[q] = {static_cast<I>(k < in.a_ptrs[row] ? -1 : k), static_cast<I>(j)};
        }
    }
}

/// starts[e] = the first of the sorted keys equal to e (every entry of C has at least one
/// multiply-add; the loops also cover entries without), starts[nnz] = n.
template <typename K>
__global__ void entry_starts_kernel(const K* keys, long long n, long long nnz, unsigned* starts)
{
    for (long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; q < n;
         q += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long key = keys[q];
        const long long before = q == 0 ? -1 : static_cast<long long>(keys[q - 1]);
        for (long long e = before + 1; e <= key; ++e) starts[e] = static_cast<unsigned>(q);
        if (q == n - 1) {
            for (long long e = key + 1; e <= nnz; ++e) starts[e] = static_cast<unsigned>(n);
        }
    }
}

/// Recorded rows' chunks: chunks[r] = ceil(length / chunk_entries) for a row longer than
/// `light` entries, else 0 (to be scanned).
template <typename I>
__global__ void count_chunks_kernel(long long rows, const I* c_ptrs, long long light,
                                    const unsigned char* windowed, long long* chunks)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long length = c_ptrs[r + 1] - c_ptrs[r];
        const bool recorded = length > light && (windowed == nullptr || windowed[r] == 0);
        chunks[r] = recorded ? ceildiv(length, static_cast<long long>(chunk_entries)) : 0;
    }
}

template <typename I>
__global__ void list_chunks_kernel(long long rows, const long long* chunk_offsets,
                                   const I* c_ptrs, Chunk<I>* chunks)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        for (long long c = chunk_offsets[r]; c < chunk_offsets[r + 1]; ++c) {
            chunks[c] = {static_cast<I>(r),
                         static_cast<I>(c_ptrs[r] + chunk_entries * (c - chunk_offsets[r]))};
        }
    }
}

/// A warp per chunk of a heavy row: the pairs of its entries' multiply-adds, in C's order.
template <typename I>
__global__ void pairs_of_chunks_kernel(const Chunk<I>* chunks, long long count, const I* c_ptrs,
                                       const unsigned* starts, const unsigned* numbers,
                                       const RecordedProduct<I>* pairs,
                                       RecordedProduct<I>* products)
{
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
    for (long long c = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
         c < count; c += warps) {
        const Chunk<I> chunk = chunks[c];
        const long long end = min(static_cast<long long>(chunk.first) + chunk_entries,
                                  static_cast<long long>(c_ptrs[chunk.row + 1]));
        for (long long q = starts[chunk.first] + threadIdx.x % 32; q < starts[end]; q += 32) {
            products[q] = pairs[numbers[q]];
        }
    }
}

// ------------------------------------------------------------------------------ windows

/// A warp per entry v of the product: pass count takes the entries of rows longer than
/// `light`, pass write (Write) those of the windowed rows. Each product's position in C's
/// row (binary search) gives its window; a segment starts at the entry's first product and
/// wherever the window changes (B's row is ascending, so are the positions). count: the
/// entry's segments into counts[v] (0 for entries of other rows), and the row's total.
/// write: each product's position in its window, the entry's segments from
/// segment_offsets[v] on, and their sort keys (their window's number).
template <bool Write, typename I>
__global__ void window_segments_kernel(Pattern<I> in, long long rows, long long entries,
                                       const long long* offsets, const I* c_ptrs,
                                       const I* c_cols, long long light,
                                       const unsigned char* windowed, long long* counts,
                                       unsigned long long* row_segments,
                                       const long long* segment_offsets,
                                       const long long* window_offsets,
                                       const long long* compact_offsets,
                                       std::uint16_t* positions, Segment<I>* segments,
                                       unsigned* keys, int* missing, int window_entries)
{
    constexpr unsigned full = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
    for (long long v = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
         v < entries; v += warps) {
        const long long row = entry_row(in, rows, v);
        const long long c_first = c_ptrs[row];
        const long long c_end = c_ptrs[row + 1];
        const bool taken = Write ? windowed[row] != 0 : c_end - c_first > light;
        if (!taken) {
            if (!Write && lane == 0) counts[v] = 0;
            continue;
        }
        const long long k = a_entry(in, row, v);
        const bool unit = k < in.a_ptrs[row];
        const long long r = unit ? row : static_cast<long long>(in.a_cols[k]);
        const long long b_first = in.b_ptrs[r];
        const long long length = in.b_ptrs[r + 1] - b_first;
        // write: the windowed rows' multiply-adds numbered on their own (compact_offsets)
        const long long out =
            offsets[v] + (Write ? compact_offsets[row] - offsets[entry_start(in, row)] : 0);
        const long long segment_base = Write ? segment_offsets[v] : 0;
        long long started = 0;   // segments started by earlier steps
        long long carried = -1;  // window of the product before the step
        for (long long step = 0; step < length; step += 32) {
            const long long t = step + lane;
            const bool valid = t < length;
            long long window = -1;
            long long p = 0;
            if (valid) {
                const I col = in.b_cols[b_first + t];
                const long long lo = first_not_below(c_cols, c_first, c_end, col);
                // a missing column (the record is then dropped) stays in bounds
                const bool found = lo < c_end && c_cols[lo] == col;
                if (!Write && !found) *missing = 1;
                p = (found ? lo : c_first) - c_first;
                window = p / window_entries;
            }
            long long previous = __shfl_up_sync(full, window, 1);
            if (lane == 0) previous = carried;
            const bool starts = valid && window != previous;
            const unsigned mask = __ballot_sync(full, starts);
            if constexpr (Write) {
                if (valid) positions[out + t] = static_cast<std::uint16_t>(p % window_entries);
                if (starts) {
                    const long long s =
                        segment_base + started + __popc(mask & ((1u << lane) - 1u));
                    segments[s].a = static_cast<I>(unit ? -1 : k);
                    segments[s].b = static_cast<I>(b_first + t);
                    segments[s].first = static_cast<unsigned>(out + t);
                    if (s > segment_base) segments[s - 1].end = static_cast<unsigned>(out + t);
                    keys[s] = static_cast<unsigned>(window_offsets[row] + window);
                }
                if (t == length - 1) {
                    // lane 31: (2u << 31) - 1 is every lane
                    const long long s =
                        segment_base + started + __popc(mask & ((2u << lane) - 1u)) - 1;
                    segments[s].end = static_cast<unsigned>(out + length);
                }
            }
            started += __popc(mask);
            carried = __shfl_sync(full, window, 31);
        }
        if constexpr (!Write) {
            if (lane == 0) {
                counts[v] = started;
                if (started > 0) {
                    atomicAdd(row_segments + row, static_cast<unsigned long long>(started));
                }
            }
        }
    }
}

/// Which rows longer than `light` take the windows (at least min_segment_products
/// multiply-adds per segment), and their windows.
template <typename I>
__global__ void choose_windows_kernel(Pattern<I> in, long long rows, const long long* offsets,
                                      const I* c_ptrs, long long light,
                                      const unsigned long long* row_segments,
                                      int window_entries, long long min_segment_products,
                                      unsigned char* windowed, long long* window_counts,
                                      long long* compact_counts)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long length = c_ptrs[r + 1] - c_ptrs[r];
        const long long products = offsets[entry_start(in, r + 1)] - offsets[entry_start(in, r)];
        const auto segments = static_cast<long long>(row_segments[r]);
        const bool taken =
            length > light && segments > 0 && products >= min_segment_products * segments;
        windowed[r] = taken ? 1 : 0;
        window_counts[r] = taken ? ceildiv(length, static_cast<long long>(window_entries)) : 0;
        compact_counts[r] = taken ? products : 0;
    }
}

/// counts[v] = 0 for the entries of rows that do not take the windows.
template <typename I>
__global__ void keep_windowed_counts_kernel(Pattern<I> in, long long rows, long long entries,
                                            const unsigned char* windowed, long long* counts)
{
    for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < entries;
         v += static_cast<long long>(gridDim.x) * blockDim.x) {
        if (windowed[entry_row(in, rows, v)] == 0) counts[v] = 0;
    }
}

template <typename I>
__global__ void list_windows_kernel(long long rows, const long long* window_offsets,
                                    const I* c_ptrs, int window_entries, Window<I>* windows)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        for (long long w = window_offsets[r]; w < window_offsets[r + 1]; ++w) {
            windows[w] = {static_cast<I>(r), static_cast<I>(c_ptrs[r] + window_entries *
                                                                            (w - window_offsets[r]))};
        }
    }
}

__global__ void iota_kernel(long long n, unsigned* values)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        values[i] = static_cast<unsigned>(i);
    }
}

template <typename I>
__global__ void gather_segments_kernel(long long n, const unsigned* order,
                                       const Segment<I>* segments, Segment<I>* sorted)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        sorted[i] = segments[order[i]];
    }
}

/// Layered windows: a warp per window gives each of its segments (in product order) a step,
/// one more than the largest step of an earlier segment it meets (shares a position with),
/// from a per-position "last step" in shared memory. Segments of one step meet nowhere; the
/// products of one entry of C lie in segments of rising steps in product order.
template <typename I>
__global__ void layer_segments_kernel(const Window<I>* windows, const unsigned* window_starts,
                                      const Segment<I>* segments,
                                      const std::uint16_t* positions, const I* c_ptrs,
                                      int window_entries, unsigned long long* keys)
{
    extern __shared__ __align__(16) unsigned char layer_bytes[];
    auto* last = reinterpret_cast<unsigned*>(layer_bytes);
    const int lane = threadIdx.x;
    const long long w = blockIdx.x;
    const Window<I> window = windows[w];
    const int n = static_cast<int>(min(static_cast<long long>(window_entries),
                                       static_cast<long long>(c_ptrs[window.row + 1]) -
                                           static_cast<long long>(window.first)));
    for (int i = lane; i < n; i += 32) last[i] = 0;
    __syncwarp();
    const unsigned end = window_starts[w + 1];
    for (unsigned s = window_starts[w]; s < end; ++s) {
        const Segment<I> segment = segments[s];
        const int products = static_cast<int>(segment.end - segment.first);
        unsigned before = 0;
        for (int t = lane; t < products; t += 32) {
            const int at = positions[segment.first + t];
            if (at < n) before = max(before, last[at]);
        }
        const unsigned step = __reduce_max_sync(0xffffffffu, before) + 1;
        __syncwarp();
        for (int t = lane; t < products; t += 32) {
            const int at = positions[segment.first + t];
            if (at < n) last[at] = step;
        }
        __syncwarp();
        if (lane == 0) keys[s] = (static_cast<unsigned long long>(w) << 32) | step;
    }
}

/// pieces[i] = the pieces of the i-th segment in (window, step) order.
template <typename I>
__global__ void count_pieces_kernel(long long n, const unsigned* order,
                                    const Segment<I>* segments, long long* counts)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const Segment<I> segment = segments[order[i]];
        counts[i] = ceildiv(static_cast<long long>(segment.end - segment.first),
                            static_cast<long long>(piece_products));
    }
}

/// The pieces of the segments in (window, step) order, and the steps: a step starts at every
/// segment whose key differs from the one before (step_flags, scanned: step_index).
template <typename I>
__global__ void write_pieces_kernel(long long n, const unsigned* order,
                                    const Segment<I>* segments,
                                    const unsigned long long* keys,
                                    const long long* piece_offsets, const long long* step_index,
                                    Piece<I>* pieces, unsigned* step_starts,
                                    unsigned* step_windows)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const Segment<I> segment = segments[order[i]];
        const long long out = piece_offsets[i];
        const unsigned products = segment.end - segment.first;
        for (unsigned j = 0; j * piece_products < products; ++j) {
            pieces[out + j] = {segment.a,
                               static_cast<I>(segment.b + j * piece_products),
                               segment.first + j * piece_products,
                               min(static_cast<unsigned>(piece_products),
                                   products - j * piece_products)};
        }
        if (i == 0 || keys[i] != keys[i - 1]) {
            const long long step = step_index[i] - 1;
            step_starts[step] = static_cast<unsigned>(out);
            step_windows[step] = static_cast<unsigned>(keys[i] >> 32);
        }
    }
}

/// step_flags[i] = 1 where the (window, step) key changes.
__global__ void step_flags_kernel(long long n, const unsigned long long* keys, long long* flags)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        flags[i] = i == 0 || keys[i] != keys[i - 1] ? 1 : 0;
    }
}

/// A block per window, its values in shared memory (from 0), its steps in order: a thread per
/// piece of the step (pieces of one step meet nowhere, the products of a piece neither), a
/// barrier between steps. Every entry's sum is the full phase's, from 0 in product order.
template <int Block, typename V, typename I>
__global__ void __launch_bounds__(Block)
    layered_values_kernel(Operands<V, I> in, const Window<I>* windows,
                          const unsigned* window_steps, const unsigned* step_starts,
                          const Piece<I>* pieces, const std::uint16_t* positions,
                          int window_entries)
{
    extern __shared__ __align__(16) unsigned char layered_bytes[];
    V* values = reinterpret_cast<V*>(layered_bytes);
    const long long w = blockIdx.x;
    const Window<I> window = windows[w];
    const long long first = window.first;
    const int n = static_cast<int>(
        min(static_cast<long long>(window_entries), in.c_ptrs[window.row + 1] - first));
    for (int i = threadIdx.x; i < n; i += Block) values[i] = V(0);
    const V scale = row_scale(in, window.row);
    __syncthreads();
    const unsigned steps_end = window_steps[w + 1];
    for (unsigned step = window_steps[w]; step < steps_end; ++step) {
        const unsigned end = step_starts[step + 1];
        for (unsigned p = step_starts[step] + threadIdx.x; p < end; p += Block) {
            const Piece<I> piece = pieces[p];
            const V factor = piece.a < 0 ? V(1)
                             : in.pattern.identity ? scale * in.a_vals[piece.a]
                                                   : in.a_vals[piece.a];
            int at[piece_products];
            V b[piece_products];
#pragma unroll
            for (int t = 0; t < piece_products; ++t) {
                if (t < static_cast<int>(piece.count)) {
                    at[t] = positions[piece.first + t];
                    b[t] = in.b_vals[piece.b + t];
                }
            }
#pragma unroll
            for (int t = 0; t < piece_products; ++t) {
                if (t < static_cast<int>(piece.count) && at[t] < n) {
                    values[at[t]] += unfused_product(factor, b[t]);
                }
            }
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < n; i += Block) in.c_vals[first + i] = values[i];
}

/// A block per window of a windowed row, the window's values in shared memory (from 0):
/// its segments in product order, each one's products added by the block at once (distinct
/// positions, read coalesced: B's values and the 2-byte positions), a barrier between
/// segments. Every entry's sum is the full phase's, from 0 in product order: the same bits.
template <int Block, typename V, typename I>
__global__ void __launch_bounds__(Block)
    windows_values_kernel(Operands<V, I> in, const Window<I>* windows, const unsigned* starts,
                          const Segment<I>* segments, const std::uint16_t* positions,
                          int window_entries)
{
    constexpr int window_block = Block;
    // raw bytes: a complex V has constructors, which __shared__ variables may not run
    extern __shared__ __align__(16) unsigned char window_bytes[];
    V* values = reinterpret_cast<V*>(window_bytes);
    const long long w = blockIdx.x;
    const Window<I> window = windows[w];
    const long long first = window.first;
    const int n = static_cast<int>(
        min(static_cast<long long>(window_entries), in.c_ptrs[window.row + 1] - first));
    for (int i = threadIdx.x; i < n; i += window_block) values[i] = V(0);
    const V scale = row_scale(in, window.row);
    // the window's segments and their factors staged Block at a time (loaded at once, so
    // that a segment costs the latency of its products' loads only, ncu round 1: the kernel
    // was latency-bound at 23% of DRAM's bandwidth with three dependent loads per segment)
    __shared__ Segment<I> staged[Block];
    __shared__ __align__(16) unsigned char factor_bytes[sizeof(V) * Block];
    V* factors = reinterpret_cast<V*>(factor_bytes);
    const unsigned end = starts[w + 1];
    for (unsigned base = starts[w]; base < end; base += Block) {
        const int count = static_cast<int>(min(static_cast<unsigned>(Block), end - base));
        if (static_cast<int>(threadIdx.x) < count) {
            const Segment<I> segment = segments[base + threadIdx.x];
            staged[threadIdx.x] = segment;
            factors[threadIdx.x] = segment.a < 0 ? V(1)
                                   : in.pattern.identity ? scale * in.a_vals[segment.a]
                                                         : in.a_vals[segment.a];
        }
        __syncthreads();  // also: the values zeroed
        for (int i = 0; i < count; ++i) {
            const Segment<I> segment = staged[i];
            const V factor = factors[i];
            const int products = static_cast<int>(segment.end - segment.first);
#pragma unroll 4
            for (int t = threadIdx.x; t < products; t += window_block) {
                const int at = positions[segment.first + t];
                const V product = unfused_product(factor, in.b_vals[segment.b + t]);
                if (at < n) values[at] += product;
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < n; i += window_block) in.c_vals[first + i] = values[i];
}

/// Threads of a block of heavy rows' chunks; a warp gives values to a chunk.
constexpr int values_block = 256;

/// Multiply-adds a warp stages per window in shared memory (about 4 KiB of operands).
template <typename V>
constexpr int record_window()
{
    return sizeof(V) <= 8 ? 256 : 128;
}

/// One warp's staged operands: the factor before the row's Jacobi scale (A's value, or 1 for
/// the identity, flagged in `unit`) and B's value of every multiply-add of the window.
template <typename V>
struct StagedProducts {
    V a[record_window<V>()];
    V b[record_window<V>()];
    bool unit[record_window<V>()];
};

/// A warp per chunk of a heavy row, a lane per 32nd entry: the warp stages the operands of the
/// entries' multiply-adds (contiguous in the record) window by window, reading the record
/// coalesced and gathering A's and B's values all at once; then each lane adds its entry's
/// multiply-adds from 0 in product order, each computed as the full phase computes it, so
/// the bits are the full phase's.
template <typename V, typename I>
__global__ void __launch_bounds__(values_block)
    values_of_chunks_kernel(Operands<V, I> in, const Chunk<I>* chunks, long long count,
                            const unsigned* starts, const RecordedProduct<I>* products)
{
    constexpr int window = record_window<V>();
    // raw bytes: a complex V has constructors, which __shared__ variables may not run
    __shared__ __align__(16) unsigned char staged[sizeof(StagedProducts<V>) * (values_block / 32)];
    auto& mine = reinterpret_cast<StagedProducts<V>*>(staged)[threadIdx.x / 32];
    const int lane = threadIdx.x % 32;
    const long long warps = static_cast<long long>(gridDim.x) * (values_block / 32);
    for (long long c = (blockIdx.x * static_cast<long long>(values_block) + threadIdx.x) / 32;
         c < count; c += warps) {
        const Chunk<I> chunk = chunks[c];
        const long long end_entry = min(static_cast<long long>(chunk.first) + chunk_entries,
                                        static_cast<long long>(in.c_ptrs[chunk.row + 1]));
        // lane's entries: chunk.first + lane + 32 m
        constexpr int per_lane = chunk_entries / 32;
        long long my_first[per_lane];
        long long my_end[per_lane];
        V sums[per_lane];
        const long long first = starts[chunk.first];
        const long long end = starts[end_entry];
        for (int m = 0; m < per_lane; ++m) {
            const long long e = chunk.first + lane + 32 * m;
            my_first[m] = e < end_entry ? static_cast<long long>(starts[e]) : end;
            my_end[m] = e < end_entry ? static_cast<long long>(starts[e + 1]) : end;
            sums[m] = V(0);
        }
        const V scale = row_scale(in, chunk.row);
        for (long long w = first; w < end; w += window) {
            const int n = static_cast<int>(min(static_cast<long long>(window), end - w));
            for (int t = lane; t < n; t += 32) {
                const RecordedProduct<I> p = products[w + t];
                mine.unit[t] = p.a < 0;
                mine.a[t] = p.a < 0 ? V(1) : in.a_vals[p.a];
                mine.b[t] = in.b_vals[p.b];
            }
            __syncwarp();
            for (int m = 0; m < per_lane; ++m) {
                const long long stop = min(my_end[m], w + n);
                for (long long q = max(my_first[m], w); q < stop; ++q) {
                    const int t = static_cast<int>(q - w);
                    const V factor =
                        mine.unit[t] || !in.pattern.identity ? mine.a[t] : scale * mine.a[t];
                    sums[m] += unfused_product(factor, mine.b[t]);
                }
            }
            __syncwarp();
        }
        for (int m = 0; m < per_lane; ++m) {
            const long long e = chunk.first + lane + 32 * m;
            if (e < end_entry) in.c_vals[e] = sums[m];
        }
    }
}

__global__ void set_unsigned_kernel(unsigned* target, unsigned value) { *target = value; }

/// Layers the windows' segments (record.segments, by window, in product order; record.
/// window_starts) into steps and pieces (record.pieces, step_starts, window_steps), and
/// drops the segments.
template <typename I>
void layer_windows(const CudaExecutor& exec, Record<I>& record, long long segment_count,
                   const I* c_ptrs)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    const auto window_count = static_cast<long long>(record.windows.size());
    Array<unsigned long long> keys(self, segment_count);
    const std::size_t last_bytes = sizeof(unsigned) * record.window_entries;
    allow_shared(exec, layer_segments_kernel<I>, last_bytes, record_where);
    layer_segments_kernel<I><<<exact_grid(window_count, 1, record_where), 32, last_bytes, stream>>>(
        record.windows.data(), record.window_starts.data(), record.segments.data(),
        record.positions.data(), c_ptrs, record.window_entries, keys.data());
    check_launch(record_where);
    // stable: a step's segments stay in product order (any order would do)
    Array<unsigned long long> keys_sorted(self, segment_count);
    Array<unsigned> order(self, segment_count);
    Array<unsigned> order_sorted(self, segment_count);
    iota_kernel<<<grid_for(exec, segment_count, 256, 32), 256, 0, stream>>>(segment_count,
                                                                           order.data());
    check_launch(record_where);
    const int key_bits = 32 + std::max(1, static_cast<int>(std::bit_width(
                                              static_cast<unsigned long long>(window_count - 1))));
    cub::DoubleBuffer<unsigned long long> key_buffers(keys.data(), keys_sorted.data());
    cub::DoubleBuffer<unsigned> order_buffers(order.data(), order_sorted.data());
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, key_buffers, order_buffers,
                                               segment_count, 0, key_bits, stream);
    });
    Array<long long> piece_offsets(self, segment_count + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(piece_offsets.data() + segment_count, 0, sizeof(long long),
                                    stream),
                    record_where);
    count_pieces_kernel<<<grid_for(exec, segment_count, 256, 32), 256, 0, stream>>>(
        segment_count, order_buffers.Current(), record.segments.data(), piece_offsets.data());
    check_launch(record_where);
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, piece_offsets.data(),
                                             piece_offsets.data(), segment_count + 1, stream);
    });
    Array<long long> step_index(self, segment_count);
    step_flags_kernel<<<grid_for(exec, segment_count, 256, 32), 256, 0, stream>>>(
        segment_count, key_buffers.Current(), step_index.data());
    check_launch(record_where);
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, step_index.data(), step_index.data(),
                                             segment_count, stream);
    });
    const long long pieces = loom::detail::load_element(piece_offsets, segment_count);
    const long long steps = loom::detail::load_element(step_index, segment_count - 1);
    record.pieces = Array<Piece<I>>(self, pieces);
    record.step_starts = Array<unsigned>(self, steps + 1);
    Array<unsigned> step_windows(self, steps);
    write_pieces_kernel<<<grid_for(exec, segment_count, 256, 32), 256, 0, stream>>>(
        segment_count, order_buffers.Current(), record.segments.data(),
        key_buffers.Current(), piece_offsets.data(), step_index.data(), record.pieces.data(),
        record.step_starts.data(), step_windows.data());
    check_launch(record_where);
    set_unsigned_kernel<<<1, 1, 0, stream>>>(record.step_starts.data() + steps,
                                             static_cast<unsigned>(pieces));
    check_launch(record_where);
    record.window_steps = Array<unsigned>(self, window_count + 1);
    entry_starts_kernel<<<grid_for(exec, steps, 256, 32), 256, 0, stream>>>(
        step_windows.data(), steps, window_count, record.window_steps.data());
    check_launch(record_where);
    record.segments = Array<Segment<I>>();
    record.window_starts = Array<unsigned>();
    record.layered = true;
}

}  // namespace

template <typename I>
std::size_t record_size(const void* record)
{
    return static_cast<const Record<I>*>(record)->bytes;
}

template <typename I>
std::shared_ptr<void> record_products(const CudaExecutor& exec, const Pattern<I>& in,
                                      long long rows, long long a_nnz, long long multiply_adds,
                                      long long nnz, const I* c_ptrs, const I* c_cols,
                                      long long light, bool windows, std::size_t limit)
{
    // TEMPORARY (session 13 round 1 sweep): LOOM_SPGEMM_WINDOW, _WINDOW_BLOCK, _MIN_SEGMENT
    const auto setting = [](const char* name, long long fallback) {
        const char* value = std::getenv(name);
        return value != nullptr ? std::atoll(value) : fallback;
    };
    const int window_entries = static_cast<int>(
        std::clamp(setting("LOOM_SPGEMM_WINDOW", default_window_entries), 256LL, 65536LL));
    const long long min_segment_products =
        setting("LOOM_SPGEMM_MIN_SEGMENT", default_min_segment_products);
    const int window_block = setting("LOOM_SPGEMM_WINDOW_BLOCK", 256) >= 1024 ? 1024 : 256;
    const bool layered = setting("LOOM_SPGEMM_LAYERS", 0) != 0;
    using Key = std::make_unsigned_t<I>;
    const long long entries = a_nnz + (in.identity ? rows : 0);
    // multiply-adds are numbered in 32 bits (a record of more would exceed any limit)
    if (rows == 0 || nnz == 0 || entries == 0 ||
        multiply_adds > static_cast<long long>(std::numeric_limits<unsigned>::max())) {
        return nullptr;
    }
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    const CudaExecutor::DeviceScope scope(exec.device_id());
    auto record = std::make_shared<Record<I>>();

    // bytes of the pairs (their array spans every multiply-add; the windows' parts are
    // checked once counted)
    const auto pairs_bytes = static_cast<std::size_t>(nnz + 1) * sizeof(unsigned) +
                             static_cast<std::size_t>(multiply_adds) * sizeof(RecordedProduct<I>);
    // during construction: two key buffers, two number buffers, the unsorted pairs, the
    // entries' offsets; the windows' counts, offsets and sort buffers take less than that
    const auto building =
        static_cast<std::size_t>(multiply_adds) *
            (2 * sizeof(Key) + 2 * sizeof(unsigned) + sizeof(RecordedProduct<I>)) +
        static_cast<std::size_t>(entries + 1) * sizeof(long long);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    LOOM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), record_where);
    const auto fits = [&](std::size_t bytes) {
        return bytes <= limit &&
               static_cast<double>(bytes + building) <= record_share_of_free * free_bytes;
    };
    if (!fits(pairs_bytes)) return nullptr;

    // the rows longer than `light`: none (every 27-point product), no record
    Array<long long> chunk_offsets(self, rows + 1);
    const auto count_chunks = [&](const unsigned char* windowed) {
        LOOM_CUDA_CHECK(cudaMemsetAsync(chunk_offsets.data(), 0, sizeof(long long), stream),
                        record_where);
        count_chunks_kernel<<<grid_for(exec, rows, 256, 32), 256, 0, stream>>>(
            rows, c_ptrs, light, windowed, chunk_offsets.data() + 1);
        check_launch(record_where);
        run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::InclusiveSum(temp, bytes, chunk_offsets.data() + 1,
                                                 chunk_offsets.data() + 1, rows, stream);
        });
        return loom::detail::load_element(chunk_offsets, rows);
    };
    if (count_chunks(nullptr) == 0) return nullptr;

    // where each entry's products start in product order
    Array<long long> offsets(self, entries + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(offsets.data(), 0, sizeof(long long), stream), record_where);
    entry_lengths_kernel<<<grid_for(exec, entries, 256, 32), 256, 0, stream>>>(
        in, rows, entries, offsets.data() + 1);
    check_launch(record_where);
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, offsets.data() + 1, offsets.data() + 1,
                                             entries, stream);
    });

    // rows led by long B rows: their windows in product order
    Array<unsigned char> windowed;
    if (windows) {
        windowed = Array<unsigned char>(self, rows);
        Array<long long> counts(self, entries + 1);
        Array<unsigned long long> row_segments(self, rows);
        Array<long long> window_offsets(self, rows + 1);
        Array<long long> compact_offsets(self, rows + 1);
        Array<int> missing(self, 1);
        LOOM_CUDA_CHECK(cudaMemsetAsync(row_segments.data(), 0,
                                        sizeof(unsigned long long) * rows, stream),
                        record_where);
        LOOM_CUDA_CHECK(cudaMemsetAsync(missing.data(), 0, sizeof(int), stream), record_where);
        const auto warp_grid = grid_for(exec, entries, 256 / 32, 32);
        window_segments_kernel<false, I><<<warp_grid, 256, 0, stream>>>(
            in, rows, entries, offsets.data(), c_ptrs, c_cols, light, nullptr, counts.data(),
            row_segments.data(), nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
            missing.data(), window_entries);
        check_launch(record_where);
        if (loom::detail::load_element(missing, 0) != 0) return nullptr;
        LOOM_CUDA_CHECK(cudaMemsetAsync(window_offsets.data(), 0, sizeof(long long), stream),
                        record_where);
        LOOM_CUDA_CHECK(cudaMemsetAsync(compact_offsets.data(), 0, sizeof(long long), stream),
                        record_where);
        choose_windows_kernel<<<grid_for(exec, rows, 256, 32), 256, 0, stream>>>(
            in, rows, offsets.data(), c_ptrs, light, row_segments.data(), window_entries,
            min_segment_products, windowed.data(), window_offsets.data() + 1,
            compact_offsets.data() + 1);
        check_launch(record_where);
        keep_windowed_counts_kernel<<<grid_for(exec, entries, 256, 32), 256, 0, stream>>>(
            in, rows, entries, windowed.data(), counts.data());
        check_launch(record_where);
        run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::InclusiveSum(temp, bytes, window_offsets.data() + 1,
                                                 window_offsets.data() + 1, rows, stream);
        });
        run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::InclusiveSum(temp, bytes, compact_offsets.data() + 1,
                                                 compact_offsets.data() + 1, rows, stream);
        });
        run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::ExclusiveSum(temp, bytes, counts.data(), counts.data(),
                                                 entries + 1, stream);
        });
        const long long window_count = loom::detail::load_element(window_offsets, rows);
        const long long segment_count = loom::detail::load_element(counts, entries);
        const long long windowed_products = loom::detail::load_element(compact_offsets, rows);
        const auto positions_bytes =
            static_cast<std::size_t>(windowed_products) * sizeof(std::uint16_t);
        // kept: the positions, the pieces (at most one per segment and one per
        // piece_products multiply-adds), the windows and steps
        const auto windows_kept =
            positions_bytes +
            static_cast<std::size_t>(segment_count + windowed_products / piece_products) *
                sizeof(Piece<I>) +
            static_cast<std::size_t>(window_count + segment_count) * 2 * sizeof(unsigned);
        // with the pairs of the other rows (their array spans every multiply-add)
        if (window_count > 0 && segment_count > 0 && fits(pairs_bytes + windows_kept)) {
            record->positions = Array<std::uint16_t>(self, windowed_products);
            Array<Segment<I>> segments(self, segment_count);
            Array<unsigned> keys(self, segment_count);
            window_segments_kernel<true, I><<<warp_grid, 256, 0, stream>>>(
                in, rows, entries, offsets.data(), c_ptrs, c_cols, light, windowed.data(),
                nullptr, nullptr, counts.data(), window_offsets.data(), compact_offsets.data(),
                record->positions.data(), segments.data(), keys.data(), nullptr,
                window_entries);
            check_launch(record_where);
            // stable: a window's segments stay in product order
            Array<unsigned> keys_sorted(self, segment_count);
            Array<unsigned> order(self, segment_count);
            Array<unsigned> order_sorted(self, segment_count);
            iota_kernel<<<grid_for(exec, segment_count, 256, 32), 256, 0, stream>>>(
                segment_count, order.data());
            check_launch(record_where);
            const int window_bits = std::max(
                1, static_cast<int>(std::bit_width(static_cast<unsigned long long>(window_count - 1))));
            cub::DoubleBuffer<unsigned> key_buffers(keys.data(), keys_sorted.data());
            cub::DoubleBuffer<unsigned> order_buffers(order.data(), order_sorted.data());
            run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
                return cub::DeviceRadixSort::SortPairs(temp, bytes, key_buffers, order_buffers,
                                                       segment_count, 0, window_bits, stream);
            });
            record->segments = Array<Segment<I>>(self, segment_count);
            gather_segments_kernel<<<grid_for(exec, segment_count, 256, 32), 256, 0, stream>>>(
                segment_count, order_buffers.Current(), segments.data(), record->segments.data());
            check_launch(record_where);
            record->window_starts = Array<unsigned>(self, window_count + 1);
            entry_starts_kernel<<<grid_for(exec, segment_count, 256, 32), 256, 0, stream>>>(
                key_buffers.Current(), segment_count, window_count,
                record->window_starts.data());
            check_launch(record_where);
            record->windows = Array<Window<I>>(self, window_count);
            list_windows_kernel<<<grid_for(exec, rows, 256, 32), 256, 0, stream>>>(
                rows, window_offsets.data(), c_ptrs, window_entries, record->windows.data());
            record->window_entries = window_entries;
            record->window_block = window_block;
            check_launch(record_where);
            if (layered) {
                layer_windows(exec, *record, segment_count, c_ptrs);
                record->bytes += positions_bytes +
                                 static_cast<std::size_t>(record->pieces.size()) * sizeof(Piece<I>) +
                                 static_cast<std::size_t>(record->step_starts.size()) *
                                     sizeof(unsigned) +
                                 static_cast<std::size_t>(window_count) *
                                     (sizeof(Window<I>) + sizeof(unsigned));
            } else {
                record->bytes += positions_bytes +
                                 static_cast<std::size_t>(segment_count) * sizeof(Segment<I>) +
                                 static_cast<std::size_t>(window_count) *
                                     (sizeof(Window<I>) + sizeof(unsigned));
            }
        } else {
            windowed = Array<unsigned char>();
        }
    }

    // the other recorded rows' chunks
    const long long chunk_count =
        windowed.size() > 0 ? count_chunks(windowed.data()) : count_chunks(nullptr);
    if (chunk_count == 0) {
        if (record->windows.size() == 0) return nullptr;
        return record;
    }
    record->bytes += static_cast<std::size_t>(chunk_count) * sizeof(Chunk<I>) + pairs_bytes;

    Array<Key> keys(self, multiply_adds);
    Array<Key> keys_sorted(self, multiply_adds);
    Array<unsigned> numbers(self, multiply_adds);
    Array<unsigned> numbers_sorted(self, multiply_adds);
    Array<RecordedProduct<I>> pairs(self, multiply_adds);
    Array<int> missing(self, 1);
    missing.fill(0);
    position_products_kernel<<<grid_for(exec, entries, 256 / 32, 32), 256, 0, stream>>>(
        in, rows, entries, offsets.data(), c_ptrs, c_cols, keys.data(), numbers.data(),
        pairs.data(), missing.data());
    check_launch(record_where);
    if (loom::detail::load_element(missing, 0) != 0) return nullptr;

    // stable: the products of one entry stay in product order
    const int key_bits =
        std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned long long>(nnz - 1))));
    cub::DoubleBuffer<Key> key_buffers(keys.data(), keys_sorted.data());
    cub::DoubleBuffer<unsigned> number_buffers(numbers.data(), numbers_sorted.data());
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, key_buffers, number_buffers,
                                               multiply_adds, 0, key_bits, stream);
    });
    Array<unsigned> starts(self, nnz + 1);
    entry_starts_kernel<<<grid_for(exec, multiply_adds, 256, 32), 256, 0, stream>>>(
        key_buffers.Current(), multiply_adds, nnz, starts.data());
    check_launch(record_where);

    record->chunks = Array<Chunk<I>>(self, chunk_count);
    list_chunks_kernel<<<grid_for(exec, rows, 256, 32), 256, 0, stream>>>(
        rows, chunk_offsets.data(), c_ptrs, record->chunks.data());
    check_launch(record_where);
    record->products = Array<RecordedProduct<I>>(self, multiply_adds);
    pairs_of_chunks_kernel<<<grid_for(exec, chunk_count, 256 / 32, 32), 256, 0, stream>>>(
        record->chunks.data(), chunk_count, c_ptrs, starts.data(), number_buffers.Current(),
        pairs.data(), record->products.data());
    check_launch(record_where);
    record->starts = std::move(starts);
    return record;
}

template <typename V, typename I>
void values_from_record(const CudaExecutor& exec, const void* record, const Operands<V, I>& in)
{
    const auto& r = *static_cast<const Record<I>*>(record);
    const auto windows = static_cast<long long>(r.windows.size());
    if (windows > 0) {
        const std::size_t bytes = sizeof(V) * r.window_entries;
        const auto launch = [&](auto kernel, int block) {
            allow_shared(exec, kernel, bytes, numeric_where);
            kernel<<<exact_grid(windows, 1, numeric_where), block, bytes, stream_of(exec)>>>(
                in, r.windows.data(), r.window_starts.data(), r.segments.data(),
                r.positions.data(), r.window_entries);
            check_launch(numeric_where);
        };
        const auto launch_layered = [&](auto kernel, int block) {
            allow_shared(exec, kernel, bytes, numeric_where);
            kernel<<<exact_grid(windows, 1, numeric_where), block, bytes, stream_of(exec)>>>(
                in, r.windows.data(), r.window_steps.data(), r.step_starts.data(),
                r.pieces.data(), r.positions.data(), r.window_entries);
            check_launch(numeric_where);
        };
        if (r.layered) {
            if (r.window_block == 1024) {
                launch_layered(layered_values_kernel<1024, V, I>, 1024);
            } else {
                launch_layered(layered_values_kernel<256, V, I>, 256);
            }
        } else if (r.window_block == 1024) {
            launch(windows_values_kernel<1024, V, I>, 1024);
        } else {
            launch(windows_values_kernel<256, V, I>, 256);
        }
    }
    const auto count = static_cast<long long>(r.chunks.size());
    if (count > 0) {
        values_of_chunks_kernel<V, I>
            <<<grid_for(exec, count, values_block / 32, 16), values_block, 0, stream_of(exec)>>>(
                in, r.chunks.data(), count, r.starts.data(), r.products.data());
        check_launch(numeric_where);
    }
}

#define LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA(I)                                                 \
    template std::size_t record_size<I>(const void*);                                          \
    template std::shared_ptr<void> record_products(const CudaExecutor&, const Pattern<I>&,     \
                                                   long long, long long, long long, long long, \
                                                   const I*, const I*, long long, bool,         \
                                                   std::size_t);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA(V, I)                                  \
    template void values_from_record(const CudaExecutor&, const void*,                         \
                                     const Operands<loom::cuda::device_type_t<V>, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
