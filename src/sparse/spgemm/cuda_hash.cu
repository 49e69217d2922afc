// CUDA SpGEMM, heavy rows with a wide B (too sparse for a bitmap of B's columns): a block per
// row accumulates in a two-level hash table (a first level in shared memory, a second level
// in global memory for rows that may overflow it, from a pool sized by the rows' needs and
// cut into launches that fit hash_pool_budget). Symbolic: the keys inserted are the row's
// length. Numeric: both levels are appended to C's row (unsorted) or to sort buffers that
// one CUB segmented sort orders before the copy into C.
#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include <cub/device/device_segmented_sort.cuh>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/cub.cuh"
#include "base/cuda/hash_table.cuh"
#include "base/instantiate.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::empty_key;
using loom::cuda::find_slot;
using loom::cuda::grid_for;
using loom::cuda::load_coherent;
using loom::cuda::run_cub;
using loom::cuda::TwoLevelTable;
using loom::cuda::warp_append;

/// Probes in shared memory before a key goes to the second level: every product of a column
/// that lives in the second level pays them first, so few; enough that the first level fills
/// to a high load before columns spill.
constexpr int shared_probes = 16;

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
        const long long position = warp_append(key != empty_key<I>, counter);
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
    auto* owners = reinterpret_cast<int*>(shared_bytes + sizeof(HashShared<V>));
    auto* values = reinterpret_cast<V*>(shared_bytes + numeric_hash_header_bytes<V>());
    auto* keys = reinterpret_cast<I*>(values + shared_slots);
    for (int o = threadIdx.x; o < hash_owner_slots; o += heavy_block) owners[o] = no_owner;
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
        for_each_row_product_step<heavy_block>(
            in, true, row, sh.batch, sh.factors, [&](long long j, int s, bool valid) {
                long long slot = -1;
                V product{};
                if (valid) {
                    bool inserted = false;
                    slot = find_slot(tables, pattern.b_cols[j], inserted);
                    product = unfused_product(sh.factors[s], in.b_vals[j]);
                }
                const long long at = max(slot, 0ll);
                V* target = at < shared_slots ? values + at : global_values + (at - shared_slots);
                ordered_add<heavy_block>(in.ordered, target, product, slot >= 0,
                                         owners + (at & (hash_owner_slots - 1)));
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
    heavy_needs_kernel<<<grid_for(exec, n, 256, 8), 256, 0, stream_of(exec)>>>(
        groups.begin(hash_group), n, need, needs.data());
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

/// Offset of the next buffer of a scratch allocation, aligned for any element type.
std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

/// Distinct columns of the heavy rows with a wide B (two-level hash).
template <typename I>
void count_hash_rows(const CudaExecutor& exec, const RowGroups<I>& groups, const Pattern<I>& in,
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
        count_hash_kernel<I><<<grid_for(exec, chunk.count, 1, 2), heavy_block, bytes, stream>>>(
            hash_rows(groups, chunk), in, slots, pool.data(), counts);
        check_launch(where);
    }
}

template <typename I>
HashPlan plan_numeric_hash(const CudaExecutor& exec, const RowGroups<I>& groups,
                           const I* c_ptrs, NumericHashShape shape)
{
    constexpr const char* where = symbolic_where;
    const int slots = hash_shared_slots(exec, shape.header, shape.slot_bytes, where);
    return plan_hash(exec, groups, NumericNeed<I>{c_ptrs}, slots, shape.slot_bytes,
                     2 * shape.slot_bytes, where);
}

/// Columns and values of the heavy rows with a wide B (two-level hash), the plan made by the
/// symbolic phase. Sorted output: each chunk's rows are appended to sort buffers, sorted there
/// by one CUB segmented sort and copied to C.
template <typename V, typename I>
void multiply_hash_rows(const CudaExecutor& exec, const RowGroups<I>& groups,
                        const HashPlan& plan, const Operands<V, I>& in, bool sort)
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
    const std::size_t bytes = numeric_hash_header_bytes<V>() +
                              (sizeof(I) + sizeof(V)) * static_cast<std::size_t>(slots);
    allow_shared(exec, multiply_hash_kernel<V, I>, bytes, where);
    for (const auto& chunk : plan.chunks) {
        const auto rows = hash_rows(groups, chunk);
        cub::DoubleBuffer<I> cols(reinterpret_cast<I*>(buffer(2)), reinterpret_cast<I*>(buffer(4)));
        cub::DoubleBuffer<V> vals(reinterpret_cast<V*>(buffer(3)), reinterpret_cast<V*>(buffer(5)));
        multiply_hash_kernel<V, I><<<grid_for(exec, chunk.count, 1, 2), heavy_block, bytes,
                                     stream>>>(
            rows, in, slots, pool_keys, pool_values, sort, cols.Current(), vals.Current());
        check_launch(where);
        if (!sort) continue;
        const long long* starts = chunk.entry_offsets.data();
        run_cub(exec, where, [&](void* temp, std::size_t& temp_bytes) {
            return cub::DeviceSegmentedSort::SortPairs(temp, temp_bytes, cols, vals, chunk.entries,
                                                       chunk.count, starts, starts + 1, stream);
        });
        copy_sorted_kernel<<<grid_for(chunk.count, 1, 65535), 256, 0, stream>>>(
            rows, cols.Current(), vals.Current(), in);
        check_launch(where);
    }
}

#define LOOM_INSTANTIATE_SPGEMM_HASH_COUNT_CUDA(I)                                             \
    template void count_hash_rows(const CudaExecutor&, const RowGroups<I>&, const Pattern<I>&,  \
                                  long long, const unsigned long long*, I*);                   \
    template HashPlan plan_numeric_hash(const CudaExecutor&, const RowGroups<I>&, const I*,    \
                                        NumericHashShape);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_HASH_COUNT_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_HASH_MULTIPLY_CUDA(V, I)                                       \
    template void multiply_hash_rows(const CudaExecutor&, const RowGroups<I>&, const HashPlan&, \
                                     const Operands<loom::cuda::device_type_t<V>, I>&, bool);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_HASH_MULTIPLY_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
