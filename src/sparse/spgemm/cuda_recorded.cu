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
                                      long long light, std::size_t limit)
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

    record->bytes = static_cast<std::size_t>(chunk_count) * sizeof(Chunk<I>) +
                    static_cast<std::size_t>(nnz + 1) * sizeof(unsigned) +
                    static_cast<std::size_t>(multiply_adds) * sizeof(RecordedProduct<I>);
    // during construction: two key buffers, two number buffers, the unsorted pairs, the
    // entries' offsets
    const auto building =
        static_cast<std::size_t>(multiply_adds) *
            (2 * sizeof(Key) + 2 * sizeof(unsigned) + sizeof(RecordedProduct<I>)) +
        static_cast<std::size_t>(entries + 1) * sizeof(long long);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    LOOM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), record_where);
    if (record->bytes > limit ||
        static_cast<double>(record->bytes + building) > record_share_of_free * free_bytes) {
        return nullptr;
    }

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
    const auto count = static_cast<long long>(r.chunks.size());
    values_of_chunks_kernel<V, I>
        <<<grid_for(exec, count, values_block / 32, 16), values_block, 0, stream_of(exec)>>>(
            in, r.chunks.data(), count, r.starts.data(), r.products.data());
    check_launch(numeric_where);
}

#define LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA(I)                                                 \
    template std::size_t record_size<I>(const void*);                                          \
    template std::shared_ptr<void> record_products(const CudaExecutor&, const Pattern<I>&,     \
                                                   long long, long long, long long, long long, \
                                                   const I*, const I*, long long, std::size_t);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA(V, I)                                  \
    template void values_from_record(const CudaExecutor&, const void*,                         \
                                     const Operands<loom::cuda::device_type_t<V>, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
