// CUDA SpGEMM, heavy rows (too long for the light tables) whose bitmap of B's columns is
// dense enough: a block per row sets the bits of its columns, in shared memory when the
// bitmap fits, else in a per-block bitmap in global memory. Symbolic: the set bits are the
// row's length. Numeric: a block scan of the words' popcounts gives every column its
// position (and writes the columns, sorted); every product then adds into C directly.
#include <algorithm>

#include <cub/device/device_scan.cuh>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/cub.cuh"
#include "base/cuda/hash_table.cuh"
#include "base/instantiate.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {

using loom::cuda::grid_for;

namespace {

using loom::cuda::racy_load;

/// Shared memory of a heavy block besides its bitmap.
template <typename V>
struct HeavyShared {
    Batch<heavy_block> batch;
    V factors[heavy_block];
    unsigned long long lowest;   ///< first bitmap word touched by the row
    unsigned long long highest;  ///< last one
    unsigned long long count;
};

/// Owner slots of ordered_add in a numeric heavy block (position in the row modulo this):
/// positions that share one wait for each other, so enough that a step's 1024 products
/// rarely do; 32 KiB beside a shared bitmap of at most 160 KiB.
constexpr int heavy_owner_slots = 8192;

/// Shared memory of a numeric heavy block besides its bitmap and positions.
template <typename V>
struct HeavyNumericShared {
    HeavyShared<V> row;
    int owners[heavy_owner_slots];
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

// ------------------------------------------------------- rows split into pieces (symbolic)

/// Products of a piece of the bitmap passes: 32 steps of a block, so that the longest row of
/// a power-law product (30 M multiply-adds) spreads over ~900 blocks.
constexpr long long bitmap_piece_products = 32768;
/// Global memory for the per-row bitmaps of one launch of split rows.
constexpr std::size_t split_bitmap_budget = std::size_t{1} << 30;

template <typename I>
__global__ void __launch_bounds__(256)
    entry_lengths_kernel(Pattern<I> in, long long rows, long long entries, long long* lengths)
{
    for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < entries;
         v += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long r = 0;
        if (in.identity) {
            const long long row = last_row_starting_by(
                rows, v, [&](long long q) { return entry_start(in, q); });
            long long k = 0;
            r = selected_b_row(in, row, v, k);
        } else {
            r = in.a_cols[v];
        }
        lengths[v] = in.b_ptrs[r + 1] - in.b_ptrs[r];
    }
}

/// counts[h] = pieces of item h (0 for rows of at most `light` entries when c_ptrs is given).
template <typename I>
__global__ void __launch_bounds__(256)
    piece_counts_kernel(const I* rows, long long n, const unsigned long long* flops,
                        const I* c_ptrs, long long light, long long per_piece, long long* counts)
{
    for (long long h = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; h < n;
         h += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long row = rows ? static_cast<long long>(rows[h]) : h;
        const bool wanted = c_ptrs == nullptr || c_ptrs[row + 1] - c_ptrs[row] > light;
        counts[h] = wanted ? ceildiv(static_cast<long long>(flops[row]), per_piece) : 0;
    }
}

/// A thread per piece: its item (the last whose pieces start at or before it), its first
/// product and the entry that holds it.
template <typename I>
__global__ void __launch_bounds__(256)
    list_pieces_kernel(Pattern<I> in, const long long* entry_offsets, const I* rows, long long n,
                       const long long* offsets, long long count, long long per_piece,
                       Piece* pieces)
{
    for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < count;
         c += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long lo = 0;
        long long hi = n - 1;
        while (lo < hi) {
            const long long mid = lo + (hi - lo + 1) / 2;
            if (offsets[mid] <= c) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        const long long row = rows ? static_cast<long long>(rows[lo]) : lo;
        const long long first = (c - offsets[lo]) * per_piece;
        long long skip = 0;
        const long long entry = piece_first_entry(in, entry_offsets, row, first, skip);
        pieces[c] = {lo, first, entry, skip};
    }
}

/// Sets the bits of the columns of the products of pieces [0, count) in their rows' bitmaps
/// (item h's at bitmaps + (h - item_first) * words): a block per piece.
template <typename I>
__global__ void __launch_bounds__(heavy_block)
    mark_pieces_kernel(Pattern<I> in, const Piece* pieces,
                       long long count, const I* rows, const unsigned long long* flops,
                       long long item_first, long long words, unsigned* bitmaps)
{
    __shared__ Batch<heavy_block> batch;
    for (long long p = blockIdx.x; p < count; p += gridDim.x) {
        const Piece piece = pieces[p];
        const long long row = rows[piece.item];
        const long long products =
            min(bitmap_piece_products, static_cast<long long>(flops[row]) - piece.first);
        unsigned* bitmap = bitmaps + (piece.item - item_first) * words;
        for_each_product_in_range<heavy_block>(
            piece.entry, entry_start(in, row + 1), piece.skip, products, in.b_ptrs, batch,
            [&](long long v, int) -> long long {
                long long k = 0;
                return selected_b_row(in, row, v, k);
            },
            [&](long long j, int, bool valid) {
                if (valid) {
                    const auto col = static_cast<unsigned long long>(in.b_cols[j]);
                    atomicOr(bitmap + (col >> 5), 1u << (col & 31));
                }
            });
    }
}

/// counts[row] = the bits set in the row's bitmap, which is cleared: a block per item.
template <typename I>
__global__ void __launch_bounds__(heavy_block)
    count_bitmaps_kernel(const I* rows, long long item_first, long long n, long long words,
                         unsigned* bitmaps, I* counts, bool clear = true)
{
    __shared__ unsigned long long total;
    for (long long h = blockIdx.x; h < n; h += gridDim.x) {
        if (threadIdx.x == 0) total = 0;
        __syncthreads();
        unsigned* bitmap = bitmaps + h * words;
        unsigned long long count = 0;
        for (long long w = threadIdx.x; w < words; w += heavy_block) {
            count += __popc(bitmap[w]);
            if (clear) bitmap[w] = 0;
        }
        if (count > 0) atomicAdd(&total, count);
        __syncthreads();
        if (threadIdx.x == 0) counts[rows[item_first + h]] = static_cast<I>(total);
        __syncthreads();
    }
}

/// C's columns of every item's row from its bitmap (cleared when asked, for the next chunk's
/// rows): a block per item, each thread a contiguous stretch of words: their popcounts, one
/// block scan for the stretches' first positions, then the stretch's columns. One scan per row: a scan per 1024 words
/// (62 scans, each waiting for its loads, for a B of 2 M columns) took 41 ms on the power-law
/// product's 9 k rows over 4096 entries (session 14, round 1).
template <typename I>
__global__ void __launch_bounds__(heavy_block)
    columns_from_bitmaps_kernel(const I* __restrict__ rows, long long item_first, long long n,
                                long long words, unsigned* __restrict__ bitmaps,
                                const I* __restrict__ c_ptrs, I* __restrict__ c_cols, bool clear)
{
    // words loaded together, so that their loads are in flight at once
    constexpr int U = 8;
    __shared__ Batch<heavy_block> batch;
    const long long per_thread = ceildiv(words, static_cast<long long>(heavy_block));
    const long long w0 = min(words, threadIdx.x * per_thread);
    const long long w1 = min(words, w0 + per_thread);
    for (long long h = blockIdx.x; h < n; h += gridDim.x) {
        const long long row = rows[item_first + h];
        const long long out = c_ptrs[row];
        const long long length = c_ptrs[row + 1] - out;
        unsigned* bitmap = bitmaps + h * words;
        long long count = 0;
        for (long long w = w0; w < w1; w += U) {
            unsigned bits[U];
#pragma unroll
            for (int u = 0; u < U; ++u) bits[u] = w + u < w1 ? bitmap[w + u] : 0u;
#pragma unroll
            for (int u = 0; u < U; ++u) count += __popc(bits[u]);
        }
        long long position = team_inclusive_scan<heavy_block>(count, batch) - count;
        for (long long w = w0; w < w1; w += U) {
            unsigned bits[U];
#pragma unroll
            for (int u = 0; u < U; ++u) bits[u] = w + u < w1 ? bitmap[w + u] : 0u;
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (clear && bits[u] != 0) bitmap[w + u] = 0;
                for (unsigned rest = bits[u]; rest != 0; rest &= rest - 1, ++position) {
                    if (position < length) {
                        c_cols[out + position] = static_cast<I>((w + u) * 32 + (__ffs(rest) - 1));
                    }
                }
            }
        }
        __syncthreads();  // the next row's scan rewrites the warp totals
    }
}

/// Bitmaps of the rows rows[0 .. n), a launch of pieces per chunk of rows whose bitmaps fit
/// split_bitmap_budget; then finish(item_first, items, bitmaps) reads (and clears) them.
template <typename I, typename Finish>
void for_each_bitmap_chunk(const CudaExecutor& exec, const Pattern<I>& in, const I* rows,
                           long long n, const unsigned long long* flops, long long row_count,
                           long long a_nnz, long long b_cols, const char* where, Finish&& finish)
{
    if (n == 0) return;
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    const long long words = ceildiv(b_cols, 32);
    const long long per_chunk = std::max<long long>(
        1, static_cast<long long>(split_bitmap_budget / (sizeof(unsigned) * words)));
    Array<unsigned> bitmaps(self, std::min(n, per_chunk) * words);
    LOOM_CUDA_CHECK(cudaMemsetAsync(bitmaps.data(), 0, sizeof(unsigned) * bitmaps.size(), stream),
                    where);
    const auto offsets = entry_offsets(exec, in, row_count, a_nnz, where);
    const auto plan = plan_pieces<I>(exec, in, offsets.data(), rows, n, flops, nullptr, 0,
                                     bitmap_piece_products, where);
    const auto piece_offsets = plan.offsets.to_host();
    for (long long first = 0; first < n; first += per_chunk) {
        const long long items = std::min(per_chunk, n - first);
        const long long p0 = piece_offsets[static_cast<std::size_t>(first)];
        const long long p1 = piece_offsets[static_cast<std::size_t>(first + items)];
        if (p1 > p0) {
            mark_pieces_kernel<I><<<grid_for(exec, p1 - p0, 1, 4), heavy_block, 0, stream>>>(
                in, plan.pieces.data() + p0, p1 - p0, rows, flops, first, words,
                bitmaps.data());
            check_launch(where);
        }
        finish(first, items, bitmaps.data(), words);
    }
}

/// Columns and values of heavy rows: a block per row; bitmap of B's columns, then the
/// position of column c in the row is positions[c / 32] + the bits below c in its word.
template <typename V, typename I>
__global__ void __launch_bounds__(heavy_block)
    multiply_heavy_kernel(const I* group_rows, long long n, Operands<V, I> in, long long words,
                          bool in_shared, unsigned* global_bitmaps, I* global_positions)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& numeric_sh = *reinterpret_cast<HeavyNumericShared<V>*>(shared_bytes);
    auto& sh = numeric_sh.row;
    int* owners = numeric_sh.owners;
    for (int o = threadIdx.x; o < heavy_owner_slots; o += heavy_block) owners[o] = no_owner;
    // positions first: they may need 8-byte alignment, the bitmap words only 4
    unsigned char* tail = shared_bytes + sizeof(HeavyNumericShared<V>);
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
        for_each_row_product_step<heavy_block>(
            in, true, row, sh.batch, sh.factors, [&](long long j, int s, bool valid) {
                long long position = length;
                V product{};
                if (valid) {
                    const auto col = static_cast<unsigned long long>(pattern.b_cols[j]);
                    const unsigned below =
                        racy_load(bitmap + (col >> 5)) & ((1u << (col & 31)) - 1u);
                    position = static_cast<long long>(positions[col >> 5]) + __popc(below);
                    product = unfused_product(sh.factors[s], in.b_vals[j]);
                }
                const bool add = position < length;
                const long long at = add ? position : 0;
                ordered_add<heavy_block>(in.ordered, in.c_vals + out + at, product, add,
                                         owners + (at & (heavy_owner_slots - 1)));
            });
        __syncthreads();
        if (lowest <= highest) {
            for (auto w = lowest + threadIdx.x; w <= highest; w += heavy_block) bitmap[w] = 0;
        }
        __syncthreads();
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

}  // namespace

template <typename I>
Array<long long> entry_offsets(const CudaExecutor& exec, const Pattern<I>& in, long long rows,
                               long long a_nnz, const char* where)
{
    const long long entries = a_nnz + (in.identity ? rows : 0);
    Array<long long> offsets(exec.shared_from_this(), entries + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(offsets.data(), 0, sizeof(long long), stream_of(exec)), where);
    if (entries > 0) {
        entry_lengths_kernel<<<grid_for(exec, entries, 256, 32), 256, 0, stream_of(exec)>>>(
            in, rows, entries, offsets.data() + 1);
        check_launch(where);
        loom::cuda::run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::InclusiveSum(temp, bytes, offsets.data() + 1,
                                                 offsets.data() + 1, entries, stream_of(exec));
        });
    }
    return offsets;
}

template <typename I>
Pieces plan_pieces(const CudaExecutor& exec, const Pattern<I>& in, const long long* entry_offsets,
                   const I* rows, long long n, const unsigned long long* flops, const I* c_ptrs,
                   long long light, long long per_piece, const char* where)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    Pieces plan;
    plan.offsets = Array<long long>(self, n + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(plan.offsets.data(), 0, sizeof(long long), stream), where);
    if (n > 0) {
        piece_counts_kernel<I><<<grid_for(exec, n, 256, 32), 256, 0, stream>>>(
            rows, n, flops, c_ptrs, light, per_piece, plan.offsets.data() + 1);
        check_launch(where);
        loom::cuda::run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::InclusiveSum(temp, bytes, plan.offsets.data() + 1,
                                                 plan.offsets.data() + 1, n, stream);
        });
    }
    plan.count = loom::detail::load_element(plan.offsets, n);
    plan.pieces = Array<Piece>(self, plan.count);
    if (plan.count > 0) {
        list_pieces_kernel<I><<<grid_for(exec, plan.count, 256, 32), 256, 0, stream>>>(
            in, entry_offsets, rows, n, plan.offsets.data(), plan.count, per_piece,
            plan.pieces.data());
        check_launch(where);
    }
    return plan;
}

template <typename I>
void mark_and_count_kept(const CudaExecutor& exec, const Pattern<I>& in, const I* rows, long long n,
                         const unsigned long long* flops, long long row_count, long long a_nnz,
                         long long b_cols, unsigned* bitmaps, I* counts)
{
    if (n == 0) return;
    const auto stream = stream_of(exec);
    const long long words = ceildiv(b_cols, 32);
    const auto offsets = entry_offsets(exec, in, row_count, a_nnz, symbolic_where);
    const auto plan = plan_pieces<I>(exec, in, offsets.data(), rows, n, flops, nullptr, 0,
                                     bitmap_piece_products, symbolic_where);
    if (plan.count > 0) {
        mark_pieces_kernel<I><<<grid_for(exec, plan.count, 1, 4), heavy_block, 0, stream>>>(
            in, plan.pieces.data(), plan.count, rows, flops, 0, words, bitmaps);
        check_launch(symbolic_where);
    }
    count_bitmaps_kernel<I><<<grid_for(exec, n, 1, 4), heavy_block, 0, stream>>>(
        rows, 0, n, words, bitmaps, counts, false);
    check_launch(symbolic_where);
}

template <typename I>
void columns_from_kept(const CudaExecutor& exec, const I* rows, long long n, long long b_cols,
                       unsigned* bitmaps, const I* c_ptrs, I* c_cols)
{
    if (n == 0) return;
    columns_from_bitmaps_kernel<I><<<grid_for(exec, n, 1, 4), heavy_block, 0, stream_of(exec)>>>(
        rows, 0, n, ceildiv(b_cols, 32), bitmaps, c_ptrs, c_cols, false);
    check_launch(symbolic_where);
}

/// Distinct columns of the heavy rows (symbolic grouping): per-row bitmaps of B's columns set
/// by pieces of the rows' products over many blocks, then counted.
template <typename I>
void count_heavy_rows(const CudaExecutor& exec, const RowGroups<I>& groups, const Pattern<I>& in,
                      long long b_cols, const unsigned long long* flops, long long a_nnz,
                      I* counts)
{
    const auto stream = stream_of(exec);
    const I* rows = groups.begin(heavy_group);
    const long long n = groups.size(heavy_group);
    const long long row_count = groups.offsets[group_count];
    for_each_bitmap_chunk(exec, in, rows, n, flops, row_count, a_nnz, b_cols,
                          symbolic_where,
                          [&](long long first, long long items, unsigned* bitmaps, long long words) {
                              count_bitmaps_kernel<I>
                                  <<<grid_for(exec, items, 1, 4), heavy_block, 0, stream>>>(
                                      rows, first, items, words, bitmaps, counts);
                              check_launch(symbolic_where);
                          });
}

template <typename I>
void write_bitmap_columns(const CudaExecutor& exec, const Pattern<I>& in, const I* rows,
                          long long n, const unsigned long long* flops, long long row_count,
                          long long a_nnz, long long b_cols, const I* c_ptrs, I* c_cols)
{
    const auto stream = stream_of(exec);
    for_each_bitmap_chunk(exec, in, rows, n, flops, row_count, a_nnz, b_cols, symbolic_where,
                          [&](long long first, long long items, unsigned* bitmaps, long long words) {
                              columns_from_bitmaps_kernel<I>
                                  <<<grid_for(exec, items, 1, 4), heavy_block, 0, stream>>>(
                                      rows, first, items, words, bitmaps, c_ptrs, c_cols,
                                      true);
                              check_launch(symbolic_where);
                          });
}

template <typename V, typename I>
void multiply_heavy_rows(const CudaExecutor& exec, const RowGroups<I>& groups,
                         const Operands<V, I>& in, long long b_cols)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    constexpr const char* where = numeric_where;
    const long long heavy_rows = groups.size(heavy_group);
    const auto heavy = plan_heavy(exec, heavy_rows, b_cols, sizeof(HeavyNumericShared<V>),
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

#define LOOM_INSTANTIATE_SPGEMM_HEAVY_COUNT_CUDA(I)                                            \
    template void count_heavy_rows(const CudaExecutor&, const RowGroups<I>&, const Pattern<I>&, \
                                   long long, const unsigned long long*, long long, I*);       \
    template Array<long long> entry_offsets(const CudaExecutor&, const Pattern<I>&, long long, \
                                            long long, const char*);                           \
    template Pieces plan_pieces(const CudaExecutor&, const Pattern<I>&, const long long*,     \
                                const I*, long long, const unsigned long long*, const I*,      \
                                long long, long long, const char*);                            \
    template void mark_and_count_kept(const CudaExecutor&, const Pattern<I>&, const I*,        \
                                      long long, const unsigned long long*, long long,         \
                                      long long, long long, unsigned*, I*);                    \
    template void columns_from_kept(const CudaExecutor&, const I*, long long, long long,       \
                                    unsigned*, const I*, I*);                                  \
    template void write_bitmap_columns(const CudaExecutor&, const Pattern<I>&, const I*,       \
                                       long long, const unsigned long long*, long long,        \
                                       long long, long long, const I*, I*);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_HEAVY_COUNT_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_HEAVY_MULTIPLY_CUDA(V, I)                                      \
    template void multiply_heavy_rows(const CudaExecutor&, const RowGroups<I>&,                \
                                      const Operands<loom::cuda::device_type_t<V>, I>&,        \
                                      long long);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_HEAVY_MULTIPLY_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
