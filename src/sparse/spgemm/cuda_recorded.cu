// CUDA SpGEMM, values only from a record: for every entry of C, the multiply-adds that land
// in it, in product order, each as the pair (entry of A, entry of B). A repeated numeric call
// then gives each entry of C to one thread, which sums its multiply-adds from 0 in that
// order: no hashing, no search, no atomics, no ordered_add, and the bits of the full phase
// (which adds every entry's multiply-adds from 0 in product order too). NOTES.md ("Repeated
// numeric calls") says when the record is made and what it costs.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <bit>
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

/// One multiply-add of the record: a[k] * b[j] (k < 0: the identity of the Jacobi product,
/// factor 1).
template <typename I>
struct RecordedProduct {
    I a;
    I b;
};

/// The record: products[starts[e] .. starts[e + 1]) are the multiply-adds of C's entry e,
/// in product order. starts are 32-bit when the multiply-adds allow (one array is empty):
/// for products with about one multiply-add per entry of C (power-law), 8-byte starts would
/// be a third of the record, read on every call.
template <typename I>
struct Record {
    Array<unsigned> starts32;
    Array<unsigned long long> starts64;
    Array<RecordedProduct<I>> products;
};

/// Whether a record of this many multiply-adds has 32-bit starts.
inline bool narrow_starts(long long multiply_adds)
{
    return multiply_adds <= static_cast<long long>(std::numeric_limits<unsigned>::max());
}

/// The first position in [first, end) of the ascending cols whose column is not below col.
template <typename I>
__device__ inline long long first_not_below(const I* cols, long long first, long long end, I col)
{
    while (first < end) {
        const long long mid = first + (end - first) / 2;
        if (cols[mid] < col) {
            first = mid + 1;
        } else {
            end = mid;
        }
    }
    return first;
}

/// The "entries" of the product in product order, one index space for all rows: row r's
/// are its identity (Jacobi only, v = a_ptrs[r] + r) and then A's entries of row r.
template <typename I>
__device__ inline long long entry_row(const Pattern<I>& in, long long rows, long long v)
{
    const long long shift = in.identity ? 1 : 0;
    return last_row_starting_by(rows, v, [&](long long r) { return in.a_ptrs[r] + shift * r; });
}

/// The A entry that entry v stands for in its row (-1: the identity).
template <typename I>
__device__ inline long long a_entry(const Pattern<I>& in, long long row, long long v)
{
    if (!in.identity) return v;
    const long long first = in.a_ptrs[row] + row;
    return v == first ? -1 : v - row - 1;
}

/// The row of B that entry v selects.
template <typename I>
__device__ inline long long b_row(const Pattern<I>& in, long long row, long long k)
{
    return k < 0 ? row : static_cast<long long>(in.a_cols[k]);
}

template <typename I>
__global__ void entry_lengths_kernel(Pattern<I> in, long long rows, long long entries,
                                     long long* lengths)
{
    for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < entries;
         v += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long row = entry_row(in, rows, v);
        const long long r = b_row(in, row, a_entry(in, row, v));
        lengths[v] = in.b_ptrs[r + 1] - in.b_ptrs[r];
    }
}

/// A warp per entry v: its products (first = offsets[v], in product order) get their
/// position in C's sorted row (binary search) as key. A column missing from the row (C's
/// columns are not what the full phase wrote) raises *missing and keys the product to the
/// row's first entry, so that everything stays in bounds; the record is then dropped.
template <typename I>
__global__ void position_products_kernel(Pattern<I> in, long long rows, long long entries,
                                         const long long* offsets, const I* c_ptrs, const I* c_cols,
                                         std::make_unsigned_t<I>* keys,
                                         RecordedProduct<I>* products, int* missing)
{
    const int lane = threadIdx.x % 32;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
    for (long long v = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
         v < entries; v += warps) {
        const long long row = entry_row(in, rows, v);
        const long long k = a_entry(in, row, v);
        const long long r = b_row(in, row, k);
        const long long c_first = c_ptrs[row];
        const long long c_end = c_ptrs[row + 1];
        long long out = offsets[v];
        for (long long j = in.b_ptrs[r] + lane; j < in.b_ptrs[r + 1]; j += 32) {
            const I col = in.b_cols[j];
            const long long lo = first_not_below(c_cols, c_first, c_end, col);
            const bool found = lo < c_end && c_cols[lo] == col;
            if (!found) *missing = 1;
            const long long q = out + (j - in.b_ptrs[r]);
            keys[q] = static_cast<std::make_unsigned_t<I>>(found ? lo : c_first);
            products[q] = {static_cast<I>(k), static_cast<I>(j)};
        }
    }
}

/// starts[e] = the first of the sorted keys equal to e (every entry of C has at least one
/// multiply-add; the loops also cover entries without), starts[nnz] = n.
template <typename K, typename S>
__global__ void entry_starts_kernel(const K* keys, long long n, long long nnz, S* starts)
{
    for (long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; q < n;
         q += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long key = keys[q];
        const long long before = q == 0 ? -1 : static_cast<long long>(keys[q - 1]);
        for (long long e = before + 1; e <= key; ++e) starts[e] = static_cast<S>(q);
        if (q == n - 1) {
            for (long long e = key + 1; e <= nnz; ++e) starts[e] = static_cast<S>(n);
        }
    }
}

/// Threads of a values-from-record block; a warp gives values to 32 consecutive entries.
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

/// A warp per 32 consecutive entries of C, a lane per entry: the warp stages the operands of
/// the entries' multiply-adds (contiguous in the record) window by window, reading the record
/// coalesced and gathering A's and B's values all at once; then each lane adds its entry's
/// multiply-adds from 0 in product order, each computed as the full phase computes it
/// (selected_row's factor times B's value), so the bits are the full phase's.
template <typename V, typename I, typename S>
__global__ void __launch_bounds__(values_block)
    values_from_record_kernel(Operands<V, I> in, long long rows, long long nnz, const S* starts,
                              const RecordedProduct<I>* products)
{
    constexpr int window = record_window<V>();
    // raw bytes: a complex V has constructors, which __shared__ variables may not run
    __shared__ __align__(16) unsigned char staged[sizeof(StagedProducts<V>) * (values_block / 32)];
    auto& mine = reinterpret_cast<StagedProducts<V>*>(staged)[threadIdx.x / 32];
    const int lane = threadIdx.x % 32;
    const long long warps = static_cast<long long>(gridDim.x) * (values_block / 32);
    for (long long base =
             (blockIdx.x * static_cast<long long>(values_block) + threadIdx.x) / 32 * 32;
         base < nnz; base += warps * 32) {
        const long long e = base + lane;
        const bool active = e < nnz;
        const long long first = static_cast<long long>(starts[base]);
        const long long end = static_cast<long long>(starts[min(base + 32, nnz)]);
        const long long my_first = active ? static_cast<long long>(starts[e]) : end;
        const long long my_end = active ? static_cast<long long>(starts[e + 1]) : end;
        const V scale =
            active && in.pattern.identity ? row_scale(in, loom::row_of_entry(in.c_ptrs, rows, e)) : V(1);
        V sum(0);
        for (long long w = first; w < end; w += window) {
            const int count = static_cast<int>(min(static_cast<long long>(window), end - w));
            for (int t = lane; t < count; t += 32) {
                const RecordedProduct<I> p = products[w + t];
                mine.unit[t] = p.a < 0;
                mine.a[t] = p.a < 0 ? V(1) : in.a_vals[p.a];
                mine.b[t] = in.b_vals[p.b];
            }
            __syncwarp();
            const long long stop = min(my_end, w + count);
            for (long long q = max(my_first, w); q < stop; ++q) {
                const int t = static_cast<int>(q - w);
                const V factor =
                    mine.unit[t] || !in.pattern.identity ? mine.a[t] : scale * mine.a[t];
                sum += unfused_product(factor, mine.b[t]);
            }
            __syncwarp();
        }
        if (active) in.c_vals[e] = sum;
    }
}

}  // namespace

template <typename I>
std::size_t record_bytes(long long multiply_adds, long long nnz)
{
    const std::size_t start_bytes = narrow_starts(multiply_adds) ? 4 : 8;
    return static_cast<std::size_t>(multiply_adds) * sizeof(RecordedProduct<I>) +
           static_cast<std::size_t>(nnz + 1) * start_bytes;
}

template <typename I>
std::shared_ptr<void> record_products(const CudaExecutor& exec, const Pattern<I>& in,
                                      long long rows, long long a_nnz, long long multiply_adds,
                                      long long nnz, const I* c_ptrs, const I* c_cols,
                                      std::size_t limit)
{
    using Key = std::make_unsigned_t<I>;
    const long long entries = a_nnz + (in.identity ? rows : 0);
    if (rows == 0 || nnz == 0 || entries == 0) return nullptr;
    const auto kept = record_bytes<I>(multiply_adds, nnz);
    // during construction: two key buffers, a second product buffer, the entries' offsets
    const auto building =
        static_cast<std::size_t>(multiply_adds) * (2 * sizeof(Key) + sizeof(RecordedProduct<I>)) +
        static_cast<std::size_t>(entries + 1) * sizeof(long long);
    const CudaExecutor::DeviceScope scope(exec.device_id());
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    LOOM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), record_where);
    if (kept > limit || static_cast<double>(kept + building) > record_share_of_free * free_bytes) {
        return nullptr;
    }
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    auto record = std::make_shared<Record<I>>();
    {
        // where each entry's products start in product order
        Array<long long> offsets(self, entries + 1);
        LOOM_CUDA_CHECK(cudaMemsetAsync(offsets.data(), 0, sizeof(long long), stream),
                        record_where);
        entry_lengths_kernel<<<grid_for(exec, entries, 256, 32), 256, 0, stream>>>(
            in, rows, entries, offsets.data() + 1);
        check_launch(record_where);
        run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceScan::InclusiveSum(temp, bytes, offsets.data() + 1,
                                                 offsets.data() + 1, entries, stream);
        });

        Array<Key> keys(self, multiply_adds);
        Array<Key> keys_sorted(self, multiply_adds);
        Array<RecordedProduct<I>> products(self, multiply_adds);
        record->products = Array<RecordedProduct<I>>(self, multiply_adds);
        Array<int> missing(self, 1);
        missing.fill(0);
        position_products_kernel<<<grid_for(exec, entries, 256 / 32, 32), 256, 0, stream>>>(
            in, rows, entries, offsets.data(), c_ptrs, c_cols, keys.data(), products.data(),
            missing.data());
        check_launch(record_where);
        if (loom::detail::load_element(missing, 0) != 0) return nullptr;

        // stable: the products of one entry stay in product order
        const int key_bits =
            std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned long long>(nnz - 1))));
        cub::DoubleBuffer<Key> key_buffers(keys.data(), keys_sorted.data());
        cub::DoubleBuffer<RecordedProduct<I>> product_buffers(products.data(),
                                                              record->products.data());
        run_cub(exec, record_where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(temp, bytes, key_buffers, product_buffers,
                                                   multiply_adds, 0, key_bits, stream);
        });
        if (product_buffers.Current() != record->products.data()) {
            std::swap(products, record->products);
        }
        const auto mark_starts = [&](auto* starts) {
            entry_starts_kernel<<<grid_for(exec, multiply_adds, 256, 32), 256, 0, stream>>>(
                key_buffers.Current(), multiply_adds, nnz, starts);
            check_launch(record_where);
        };
        if (narrow_starts(multiply_adds)) {
            record->starts32 = Array<unsigned>(self, nnz + 1);
            mark_starts(record->starts32.data());
        } else {
            record->starts64 = Array<unsigned long long>(self, nnz + 1);
            mark_starts(record->starts64.data());
        }
    }
    return record;
}

template <typename V, typename I>
void values_from_record(const CudaExecutor& exec, const void* record, const Operands<V, I>& in,
                        long long rows, long long nnz)
{
    const auto& r = *static_cast<const Record<I>*>(record);
    const auto launch = [&](const auto* starts) {
        values_from_record_kernel<<<grid_for(exec, nnz, values_block, 16), values_block, 0,
                                    stream_of(exec)>>>(in, rows, nnz, starts, r.products.data());
        check_launch(numeric_where);
    };
    if (r.starts32.size() > 0) {
        launch(r.starts32.data());
    } else {
        launch(r.starts64.data());
    }
}

#define LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA(I)                                                 \
    template std::size_t record_bytes<I>(long long, long long);                                \
    template std::shared_ptr<void> record_products(const CudaExecutor&, const Pattern<I>&,     \
                                                   long long, long long, long long, long long, \
                                                   const I*, const I*, std::size_t);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_RECORD_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA(V, I)                                     \
    template void values_from_record(const CudaExecutor&, const void*,                            \
                                     const Operands<loom::cuda::device_type_t<V>, I>&, long long, \
                                     long long);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_VALUES_FROM_RECORD_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
