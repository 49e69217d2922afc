// CUDA SpGEMM, deterministic values: every entry of C summed over its multiply-adds in
// product order by one thread, from a list of the multiply-adds sorted by the entry of C they
// land in. The list is made once C's columns are known (sorted rows): each multiply-add finds
// its entry by binary search in its row of C, a stable radix sort orders the (entry,
// multiply-add) pairs, a binary search per entry gives its stretch of the list. A handle keeps
// the list when it fits SpgemmOptions::reuse_memory_limit, and a repeated numeric call is then
// that one summing kernel (values only, every row class alike); otherwise the list is made
// again, chunk by chunk, after the hashing kernels of every deterministic numeric call.
// NOTES.md ("Deterministic values and the record") explains the costs.
#include <cub/device/device_radix_sort.cuh>

#include <bit>

#include "base/cuda/cub.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::as_device;
using loom::cuda::grid_for;
using loom::cuda::run_cub;

/// One multiply-add: the entry of A (-1: the identity of the Jacobi product) times the entry
/// of B.
template <typename I>
struct Product {
    I a;
    I b;
};

/// A chunk's multiply-adds in the order of C's entries, product order within an entry, and
/// where each entry's stretch starts (entries + 1 offsets).
template <typename I>
struct SortedProducts {
    Array<Product<I>> products;
    Array<unsigned> starts;
};

/// What a handle keeps for values-only calls: the sorted multiply-adds of every chunk.
template <typename I>
struct CudaRecord {
    std::vector<SortedProducts<I>> chunks;
};

/// The last i in [lo, hi) with first(i) <= x, for a nondecreasing first(i) with first(lo) <= x.
template <typename First>
__device__ long long last_at_or_below(long long lo, long long hi, long long x, First&& first)
{
    while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        if (first(mid) <= x) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/// The first i in [lo, hi) with values[i] >= value (hi if none), values ascending.
template <typename T, typename U>
__device__ long long lower_bound(const T* values, long long lo, long long hi, U value)
{
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (values[mid] < value) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/// "Entries" of rows [first_row, end_row): A's, each row's preceded by the identity's for
/// the Jacobi product, numbered from the chunk's first. Entry x lies in row `row` and selects
/// B's row `selected` (a = -1 for the identity, else A's entry).
struct EntryOf {
    long long row;
    long long a;
    long long selected;
};

template <typename I>
__device__ inline long long entry_start(const Pattern<I>& in, long long row)
{
    return static_cast<long long>(in.a_ptrs[row]) + (in.identity ? row : 0);
}

template <typename I>
__device__ EntryOf entry_of(const Pattern<I>& in, ProductChunk chunk, long long x)
{
    const long long global = chunk.first_a_entry + x;
    const long long row = last_at_or_below(chunk.first_row, chunk.end_row, global,
                                           [&](long long r) { return entry_start(in, r); });
    const long long offset = global - entry_start(in, row);
    if (in.identity && offset == 0) return {row, -1, row};
    const long long a = in.a_ptrs[row] + offset - (in.identity ? 1 : 0);
    return {row, a, in.a_cols[a]};
}

/// lengths[x] = the multiply-adds of entry x (the length of the row of B it selects).
template <typename I>
__global__ void __launch_bounds__(256)
    entry_lengths_kernel(Pattern<I> in, ProductChunk chunk, long long entries, int64* lengths)
{
    for (long long x = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; x < entries;
         x += static_cast<long long>(gridDim.x) * blockDim.x) {
        const auto entry = entry_of(in, chunk, x);
        lengths[x] = in.b_ptrs[entry.selected + 1] - in.b_ptrs[entry.selected];
    }
}

/// For every multiply-add of entry x (a thread per entry): the entry of C it lands in,
/// relative to the chunk's first (`missing`, sorting last, if its column is not in C's row,
/// which a pattern that the handle checked rules out), and the entries it multiplies.
template <typename I>
__global__ void __launch_bounds__(256)
    locate_products_kernel(Pattern<I> in, ProductChunk chunk, long long entries,
                           const int64* offsets, const I* c_ptrs, const I* c_cols,
                           unsigned missing, unsigned* keys, Product<I>* products)
{
    for (long long x = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; x < entries;
         x += static_cast<long long>(gridDim.x) * blockDim.x) {
        const auto entry = entry_of(in, chunk, x);
        const long long row_first = c_ptrs[entry.row];
        const long long row_end = c_ptrs[entry.row + 1];
        long long p = offsets[x];
        for (long long j = in.b_ptrs[entry.selected]; j < in.b_ptrs[entry.selected + 1]; ++j, ++p) {
            const I col = in.b_cols[j];
            const long long lo = lower_bound(c_cols, row_first, row_end, col);
            const bool found = lo < row_end && c_cols[lo] == col;
            keys[p] = found ? static_cast<unsigned>(lo - chunk.first_entry) : missing;
            products[p] = {static_cast<I>(entry.a), static_cast<I>(j)};
        }
    }
}

/// starts[e] = the first sorted multiply-add of entry e (keys sorted), e in [0, entries].
__global__ void __launch_bounds__(256) entry_starts_kernel(const unsigned* keys, long long products,
                                                           long long entries, unsigned* starts)
{
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e <= entries;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        starts[e] = static_cast<unsigned>(lower_bound(keys, 0, products, static_cast<unsigned>(e)));
    }
}

/// C's values of one chunk: entry e is the sum, in order, of its stretch of multiply-adds.
template <typename V, typename I>
__global__ void __launch_bounds__(256)
    sum_products_kernel(Operands<V, I> in, ProductChunk chunk, const Product<I>* products,
                        const unsigned* starts)
{
    const long long entries = chunk.end_entry - chunk.first_entry;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < entries;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        V scale(1);
        if (in.pattern.identity) {
            const long long row =
                last_at_or_below(chunk.first_row, chunk.end_row, chunk.first_entry + e,
                                 [&](long long r) { return static_cast<long long>(in.c_ptrs[r]); });
            scale = row_scale(in, row);
        }
        V sum(0);
        for (unsigned q = starts[e]; q < starts[e + 1]; ++q) {
            const Product<I> product = products[q];
            const V factor = product.a < 0         ? V(1)
                             : in.pattern.identity ? scale * in.a_vals[product.a]
                                                   : in.a_vals[product.a];
            sum += factor * in.b_vals[product.b];
        }
        in.c_vals[chunk.first_entry + e] = sum;
    }
}

/// Sorted multiply-adds of one chunk (C's columns in place, sorted).
template <typename I>
SortedProducts<I> sort_products(const CudaExecutor& exec, const Pattern<I>& in,
                                const ProductChunk& chunk, const I* c_ptrs, const I* c_cols)
{
    constexpr const char* where = numeric_where;
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    const long long entries = chunk.end_a_entry - chunk.first_a_entry;
    const long long c_entries = chunk.end_entry - chunk.first_entry;
    Array<int64> offsets(self, entries + 1);
    entry_lengths_kernel<<<grid_for(exec, entries, 256, 8), 256, 0, stream>>>(in, chunk, entries,
                                                                              offsets.data());
    check_launch(where);
    loom::cuda::exclusive_prefix_sum(exec, offsets.data(), entries + 1);
    Array<unsigned> keys(self, 2 * chunk.products);
    Array<Product<I>> unsorted(self, chunk.products);
    SortedProducts<I> sorted{Array<Product<I>>(self, chunk.products),
                             Array<unsigned>(self, c_entries + 1)};
    const auto missing = static_cast<unsigned>(c_entries);
    locate_products_kernel<<<grid_for(exec, entries, 256, 8), 256, 0, stream>>>(
        in, chunk, entries, offsets.data(), c_ptrs, c_cols, missing, keys.data(), unsorted.data());
    check_launch(where);
    // the keys need the bits of `missing`; a stable sort keeps product order within an entry
    const int end_bit = std::bit_width(static_cast<unsigned>(missing));
    cub::DoubleBuffer<unsigned> key_buffers(keys.data(), keys.data() + chunk.products);
    cub::DoubleBuffer<Product<I>> product_buffers(unsorted.data(), sorted.products.data());
    run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, key_buffers, product_buffers,
                                               chunk.products, 0, std::max(end_bit, 1), stream);
    });
    if (product_buffers.Current() == unsorted.data()) std::swap(sorted.products, unsorted);
    entry_starts_kernel<<<grid_for(exec, c_entries + 1, 256, 8), 256, 0, stream>>>(
        key_buffers.Current(), chunk.products, c_entries, sorted.starts.data());
    check_launch(where);
    return sorted;
}

template <typename V, typename I>
void sum_products(const CudaExecutor& exec, const Operands<V, I>& in, const ProductChunk& chunk,
                  const SortedProducts<I>& sorted)
{
    const long long entries = chunk.end_entry - chunk.first_entry;
    if (entries == 0) return;
    sum_products_kernel<<<grid_for(exec, entries, 256, 8), 256, 0, stream_of(exec)>>>(
        in, chunk, sorted.products.data(), sorted.starts.data());
    check_launch(numeric_where);
}

/// Rows cut into chunks of at most max_chunk_products multiply-adds (a longer row alone).
template <typename I>
std::vector<ProductChunk> plan_chunks(const detail::SpgemmState<I>& state, const Pattern<I>& in)
{
    const auto flops = state.row_flops.to_host();
    const auto c_ptrs = state.row_ptrs.to_host();
    const long long rows = state.size.rows;
    std::vector<I> a_ptrs(static_cast<std::size_t>(rows) + 1);
    const auto stream = stream_of(static_cast<const CudaExecutor&>(*state.exec));
    LOOM_CUDA_CHECK(cudaMemcpyAsync(a_ptrs.data(), in.a_ptrs, sizeof(I) * (rows + 1),
                                    cudaMemcpyDeviceToHost, stream),
                    numeric_where);
    LOOM_CUDA_CHECK(cudaStreamSynchronize(stream), numeric_where);
    const auto entry_start = [&](long long r) {
        return static_cast<long long>(a_ptrs[r]) + (in.identity ? r : 0);
    };
    std::vector<ProductChunk> chunks;
    ProductChunk chunk{};
    const auto close = [&](long long end_row) {
        chunk.end_row = end_row;
        chunk.end_entry = c_ptrs[end_row];
        chunk.end_a_entry = entry_start(end_row);
        if (chunk.products > 0) chunks.push_back(chunk);
        chunk = ProductChunk{end_row,
                             end_row,
                             c_ptrs[end_row],
                             c_ptrs[end_row],
                             entry_start(end_row),
                             entry_start(end_row),
                             0};
    };
    close(0);
    for (long long r = 0; r < rows; ++r) {
        const long long row_flops = flops[r];
        if (row_flops >= (1ll << 32)) {
            throw NotSupported(numeric_where,
                               "deterministic values need rows of fewer than 2^32 multiply-adds "
                               "(row " +
                                   std::to_string(r) + " has " + std::to_string(row_flops) +
                                   "); set SpgemmOptions::deterministic = false");
        }
        if (chunk.products > 0 && chunk.products + row_flops > max_chunk_products) close(r);
        chunk.products += row_flops;
    }
    close(rows);
    return chunks;
}

template <typename I>
long long record_bytes(const std::vector<ProductChunk>& chunks)
{
    long long bytes = 0;
    for (const auto& chunk : chunks) {
        bytes +=
            chunk.products * static_cast<long long>(sizeof(Product<I>)) +
            (chunk.end_entry - chunk.first_entry + 1) * static_cast<long long>(sizeof(unsigned));
    }
    return bytes;
}

}  // namespace

template <typename V, typename I>
void deterministic_values(const CudaExecutor& exec, detail::SpgemmState<I>& state,
                          CudaPlan<I>& plan, const Operands<V, I>& in)
{
    if (plan.product_chunks.empty()) plan.product_chunks = plan_chunks(state, in.pattern);
    const auto& chunks = plan.product_chunks;
    if (!state.recorded && state.record_limit > 0) {
        const auto bytes = record_bytes<I>(chunks);
        if (bytes <= state.record_limit) {
            try {
                auto record = std::make_shared<CudaRecord<I>>();
                for (const auto& chunk : chunks) {
                    record->chunks.push_back(
                        sort_products(exec, in.pattern, chunk, in.c_ptrs, in.c_cols));
                }
                state.recorded = std::move(record);
                state.recorded_bytes = bytes;
            } catch (const AllocationError&) {
                // the record only saves time on later calls; the chunks one at a time below
                // need less memory
            }
        }
    }
    if (state.recorded) {
        recorded_values(exec, state, plan, in);
        return;
    }
    for (const auto& chunk : chunks) {
        sum_products(exec, in, chunk, sort_products(exec, in.pattern, chunk, in.c_ptrs, in.c_cols));
    }
}

template <typename V, typename I>
void recorded_values(const CudaExecutor& exec, const detail::SpgemmState<I>& state,
                     const CudaPlan<I>& plan, const Operands<V, I>& in)
{
    const auto& record = *static_cast<const CudaRecord<I>*>(state.recorded.get());
    for (std::size_t c = 0; c < record.chunks.size(); ++c) {
        sum_products(exec, in, plan.product_chunks[c], record.chunks[c]);
    }
}

#define LOOM_INSTANTIATE_SPGEMM_RECORDED_CUDA(V, I)                                                \
    template void deterministic_values(const CudaExecutor&, detail::SpgemmState<I>&, CudaPlan<I>&, \
                                       const Operands<loom::cuda::device_type_t<V>, I>&);          \
    template void recorded_values(const CudaExecutor&, const detail::SpgemmState<I>&,              \
                                  const CudaPlan<I>&,                                              \
                                  const Operands<loom::cuda::device_type_t<V>, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_RECORDED_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
