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
#include <limits>
#include <memory>

#include "base/cuda/cub.cuh"
#include "base/instantiate.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

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

/// The record. Multiply-adds are numbered in C's order (entry by entry, each entry's in
/// product order). The arrays span all multiply-adds and entries; the parts of the rows left
/// to the light kernel are unused.
template <typename I>
struct Record {
    std::size_t bytes = 0;
    Array<Chunk<I>> chunks;
    Array<unsigned> starts;                ///< per entry: its first multiply-add
    Array<RecordedProduct<I>> products;    ///< per multiply-add
};

/// Products of a piece of the record's passes: 16 steps of a block of record_block.
constexpr long long record_piece_products = 4096;
constexpr int record_block = 256;

/// A heavy row's bitmap word for finding positions: the columns of C's row in this word of
/// B's columns (bits), and the position in the row of the first of them.
struct PositionWord {
    unsigned bits;
    unsigned first;
};

/// Columns of a heavy row a block of position_tables_kernel takes.
constexpr long long table_chunk = 16384;

/// tables[h * words ..] from the sorted columns of heavy row rows[h]; table_index[row] = h. A
/// block per chunk of table_chunk columns (blockIdx.y) of a row (blockIdx.x), so that the
/// row of 2 M entries is not one block's.
template <typename I>
__global__ void __launch_bounds__(256)
    position_tables_kernel(const I* rows, long long n, const I* c_ptrs, const I* c_cols,
                           long long words, PositionWord* tables, int* table_index)
{
    for (long long h = blockIdx.x; h < n; h += gridDim.x) {
        const long long row = rows[h];
        const long long first = c_ptrs[row];
        const long long end = c_ptrs[row + 1];
        PositionWord* table = tables + h * words;
        for (long long chunk_first = first + blockIdx.y * table_chunk; chunk_first < end;
             chunk_first += static_cast<long long>(gridDim.y) * table_chunk) {
            const long long chunk_end = min(end, chunk_first + table_chunk);
            for (long long i = chunk_first + threadIdx.x; i < chunk_end; i += blockDim.x) {
                const auto col = static_cast<unsigned long long>(c_cols[i]);
                const auto w = static_cast<long long>(col >> 5);
                if (w >= words) continue;  // not a column of B: the record is dropped later
                atomicOr(&table[w].bits, 1u << (col & 31));
                if (i == first ||
                    (static_cast<unsigned long long>(c_cols[i - 1]) >> 5) != col >> 5) {
                    table[w].first = static_cast<unsigned>(i - first);
                }
            }
        }
        if (threadIdx.x == 0 && blockIdx.y == 0) table_index[row] = static_cast<int>(h);
    }
}

/// recorded[r] = row r's multiply-adds when it is recorded (more than `light` entries), else 0
/// (to be scanned: where each recorded row's multiply-adds start in the record).
template <typename I>
__global__ void __launch_bounds__(256)
    recorded_flops_kernel(long long rows, const I* c_ptrs, const unsigned long long* flops,
                          long long light, long long* recorded)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        recorded[r] = c_ptrs[r + 1] - c_ptrs[r] > light ? static_cast<long long>(flops[r]) : 0;
    }
}

/// A block per piece of the recorded rows' products: each product q (numbered from
/// row_first[row], in product order) gets its entry of C (its position in C's sorted row:
/// from the row's PositionWord table, or by binary search) as key, q as value, and its
/// (A entry, B entry) pair. A column missing from C's row sets *missing and keys the product
/// to the row's first entry (in bounds; the record is then dropped).
template <typename I>
__global__ void __launch_bounds__(record_block)
    position_pieces_kernel(Pattern<I> in, const Piece* pieces, long long count,
                           const unsigned long long* flops, const long long* row_first,
                           const I* c_ptrs, const I* c_cols, const int* table_index,
                           const PositionWord* tables, long long words,
                           std::make_unsigned_t<I>* keys, unsigned* numbers,
                           RecordedProduct<I>* pairs, int* missing)
{
    using Key = std::make_unsigned_t<I>;
    __shared__ Batch<record_block> batch;
    __shared__ I entry_a[record_block];
    for (long long p = blockIdx.x; p < count; p += gridDim.x) {
        const Piece piece = pieces[p];
        const long long row = piece.item;
        const long long n =
            min(record_piece_products, static_cast<long long>(flops[row]) - piece.first);
        const long long c_first = c_ptrs[row];
        const long long c_end = c_ptrs[row + 1];
        const long long q_first = row_first[row] + piece.first;
        const int t = table_index != nullptr ? table_index[row] : -1;
        const PositionWord* table = t >= 0 ? tables + t * words : nullptr;
        for_each_product_in_range<record_block>(
            piece.entry, entry_start(in, row + 1), piece.skip, n, in.b_ptrs, batch,
            [&](long long v, int s) -> long long {
                long long k = 0;
                const long long b_row = selected_b_row(in, row, v, k);
                entry_a[s] = static_cast<I>(k < in.a_ptrs[row] ? -1 : k);
                return b_row;
            },
            [&](long long j, int s, bool valid, long long index) {
                if (!valid) return;
                const I col = in.b_cols[j];
                long long position = -1;
                if (table != nullptr) {
                    const auto c = static_cast<unsigned long long>(col);
                    if (static_cast<long long>(c >> 5) < words) {
                        const PositionWord word = table[c >> 5];
                        const unsigned bit = 1u << (c & 31);
                        if (word.bits & bit) position = word.first + __popc(word.bits & (bit - 1));
                    }
                } else {
                    const long long lo = first_not_below(c_cols, c_first, c_end, col);
                    if (lo < c_end && c_cols[lo] == col) position = lo - c_first;
                }
                if (position < 0 || position >= c_end - c_first) {
                    *missing = 1;
                    position = 0;
                }
                const long long q = q_first + index;
                keys[q] = static_cast<Key>(c_first + position);
                numbers[q] = static_cast<unsigned>(q);
                pairs[q] = {entry_a[s], static_cast<I>(j)};
            });
    }
}

/// starts[e] = the first of the sorted keys equal to e, for the entries that have keys (every
/// entry of a recorded row), and where the next recorded entry's start for the first entry
/// after each run of keys (the end of a recorded row); starts[nnz] = n. The entries of the
/// rows left out (gaps) are not read by values_of_chunks_kernel and stay as they were.
template <typename K>
__global__ void __launch_bounds__(256)
    entry_starts_kernel(const K* keys, long long n, long long nnz, unsigned* starts)
{
    for (long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; q < n;
         q += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long key = keys[q];
        const long long before = q == 0 ? -1 : static_cast<long long>(keys[q - 1]);
        if (key != before) {
            starts[key] = static_cast<unsigned>(q);
            if (before + 1 < key) starts[before + 1] = static_cast<unsigned>(q);
        }
        if (q == n - 1) {
            if (key + 1 < nnz) starts[key + 1] = static_cast<unsigned>(n);
            starts[nnz] = static_cast<unsigned>(n);
        }
    }
}

/// products[i] = pairs[numbers[i]]: the pairs in the sorted order.
template <typename I>
__global__ void __launch_bounds__(256)
    gather_pairs_kernel(long long n, const unsigned* numbers, const RecordedProduct<I>* pairs,
                        RecordedProduct<I>* products)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        products[i] = pairs[numbers[i]];
    }
}

/// Recorded rows' chunks: chunks[r] = ceil(length / chunk_entries) for a row longer than
/// `light` entries, else 0 (to be scanned).
template <typename I>
__global__ void count_chunks_kernel(long long rows, const I* c_ptrs, long long light,
                                    long long* chunks)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long length = c_ptrs[r + 1] - c_ptrs[r];
        chunks[r] = length > light ? ceildiv(length, static_cast<long long>(chunk_entries)) : 0;
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
                                      long long light, std::size_t limit,
                                      const unsigned long long* flops, const RowGroups<I>& groups,
                                      long long b_cols)
{
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

    // the recorded rows' chunks
    Array<long long> chunk_offsets(self, rows + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(chunk_offsets.data(), 0, sizeof(long long), stream),
                    record_where);
    count_chunks_kernel<<<grid_for(exec, rows, 256, 32), 256, 0, stream>>>(
        rows, c_ptrs, light, chunk_offsets.data() + 1);
    check_launch(record_where);
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, chunk_offsets.data() + 1,
                                             chunk_offsets.data() + 1, rows, stream);
    });
    const long long chunk_count = loom::detail::load_element(chunk_offsets, rows);
    if (chunk_count == 0) return nullptr;

    // the recorded rows' multiply-adds: where each row's start in the record
    Array<long long> row_first(self, rows + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(row_first.data(), 0, sizeof(long long), stream),
                    record_where);
    recorded_flops_kernel<I><<<grid_for(exec, rows, 256, 32), 256, 0, stream>>>(
        rows, c_ptrs, flops, light, row_first.data() + 1);
    check_launch(record_where);
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, row_first.data() + 1,
                                             row_first.data() + 1, rows, stream);
    });
    const long long recorded = loom::detail::load_element(row_first, rows);

    // kept: chunks, a start per entry, a pair per recorded multiply-add; while building: two
    // keys, two numbers and a pair per recorded multiply-add, the entries' product offsets,
    // the pieces
    record->bytes = static_cast<std::size_t>(chunk_count) * sizeof(Chunk<I>) +
                    static_cast<std::size_t>(nnz + 1) * sizeof(unsigned) +
                    static_cast<std::size_t>(recorded) * sizeof(RecordedProduct<I>);
    const auto building =
        static_cast<std::size_t>(recorded) *
            (2 * sizeof(Key) + 2 * sizeof(unsigned) + sizeof(RecordedProduct<I>)) +
        static_cast<std::size_t>(entries + 1) * sizeof(long long) +
        static_cast<std::size_t>(recorded / record_piece_products + rows + 1) *
            (sizeof(Piece) + sizeof(long long));
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    LOOM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), record_where);
    if (record->bytes > limit ||
        static_cast<double>(record->bytes + building) > record_share_of_free * free_bytes) {
        return nullptr;
    }

    const auto offsets = entry_offsets(exec, in, rows, a_nnz, record_where);
    const auto plan = plan_pieces<I>(exec, in, offsets.data(), nullptr, rows, flops, c_ptrs,
                                     light, record_piece_products, record_where);
    // position tables of the heavy (bitmap) rows, where they fit beside the rest: a product's
    // position is then one load, not a binary search over up to B.cols columns
    const long long heavy = groups.size(heavy_group);
    const long long words = ceildiv(b_cols, 32);
    Array<PositionWord> tables(self, 0);
    Array<int> table_index(self, 0);
    const auto table_bytes = static_cast<std::size_t>(heavy) *
                             static_cast<std::size_t>(words) * sizeof(PositionWord);
    if (heavy > 0 && b_cols <= std::numeric_limits<unsigned>::max() &&
        static_cast<double>(record->bytes + building + table_bytes) <=
            record_share_of_free * free_bytes) {
        tables = Array<PositionWord>(self, heavy * words);
        table_index = Array<int>(self, rows);
        LOOM_CUDA_CHECK(cudaMemsetAsync(tables.data(), 0, table_bytes, stream), record_where);
        LOOM_CUDA_CHECK(cudaMemsetAsync(table_index.data(), 0xff, sizeof(int) * rows, stream),
                        record_where);
        // a chunk of every row per grid row: a row has at most b_cols columns
        const dim3 grid(grid_for(exec, heavy, 1, 8),
                        static_cast<unsigned>(std::min<long long>(ceildiv(b_cols, table_chunk),
                                                                  65535)));
        position_tables_kernel<I><<<grid, 256, 0, stream>>>(
            groups.begin(heavy_group), heavy, c_ptrs, c_cols, words, tables.data(),
            table_index.data());
        check_launch(record_where);
    }
    const int* index = table_index.size() > 0 ? table_index.data() : nullptr;

    // every recorded multiply-add: its entry of C as key, its number in product order as
    // value, its pair; a stable radix sort by entry then puts each entry's multiply-adds
    // together, in product order (no atomics: counting each entry's multiply-adds and
    // scattering them with atomic countdowns took 53 ms on power-law, round 1)
    Array<Key> keys(self, recorded);
    Array<Key> keys_sorted(self, recorded);
    Array<unsigned> numbers(self, recorded);
    Array<unsigned> numbers_sorted(self, recorded);
    Array<RecordedProduct<I>> pairs(self, recorded);
    Array<int> missing(self, 1);
    missing.fill(0);
    if (plan.count > 0) {
        position_pieces_kernel<I><<<grid_for(exec, plan.count, 1, 8), record_block, 0, stream>>>(
            in, plan.pieces.data(), plan.count, flops, row_first.data(), c_ptrs, c_cols, index,
            tables.data(), words, keys.data(), numbers.data(), pairs.data(), missing.data());
        check_launch(record_where);
    }
    if (loom::detail::load_element(missing, 0) != 0) return nullptr;
    const int key_bits =
        std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned long long>(nnz - 1))));
    cub::DoubleBuffer<Key> key_buffers(keys.data(), keys_sorted.data());
    cub::DoubleBuffer<unsigned> number_buffers(numbers.data(), numbers_sorted.data());
    run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, key_buffers, number_buffers,
                                               recorded, 0, key_bits, stream);
    });
    Array<unsigned> starts(self, nnz + 1);
    entry_starts_kernel<<<grid_for(exec, recorded, 256, 32), 256, 0, stream>>>(
        key_buffers.Current(), recorded, nnz, starts.data());
    check_launch(record_where);
    record->products = Array<RecordedProduct<I>>(self, recorded);
    gather_pairs_kernel<I><<<grid_for(exec, recorded, 256, 32), 256, 0, stream>>>(
        recorded, number_buffers.Current(), pairs.data(), record->products.data());
    check_launch(record_where);

    record->chunks = Array<Chunk<I>>(self, chunk_count);
    list_chunks_kernel<<<grid_for(exec, rows, 256, 32), 256, 0, stream>>>(
        rows, chunk_offsets.data(), c_ptrs, record->chunks.data());
    check_launch(record_where);
    record->starts = std::move(starts);
    return record;
}

template <typename V, typename I>
void values_from_record(const CudaExecutor& exec, const void* record, const Operands<V, I>& in)
{
    const auto& r = *static_cast<const Record<I>*>(record);
    const auto count = static_cast<long long>(r.chunks.size());
    values_of_chunks_kernel<V, I>
        <<<grid_for(exec, count, values_block / 32, 16), values_block, 0, stream_of(exec)>>>(
            in, r.chunks.data(), count, r.starts.data(), r.products.data());
    check_launch(numeric_where);
}

#define LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA(I)                                                 \
    template std::size_t record_size<I>(const void*);                                          \
    template std::shared_ptr<void> record_products(                                            \
        const CudaExecutor&, const Pattern<I>&, long long, long long, long long, long long,    \
        const I*, const I*, long long, std::size_t, const unsigned long long*,                 \
        const RowGroups<I>&, long long);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA(V, I)                                  \
    template void values_from_record(const CudaExecutor&, const void*,                         \
                                     const Operands<loom::cuda::device_type_t<V>, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
