// CUDA SpGEMM, symbolic phase: the flops of every row, the rows grouped by the table size
// their distinct columns need, the light groups counted by teams in shared-memory hash tables
// (the heavy ones by cuda_heavy.cu and cuda_hash.cu), C's row pointers, and the numeric
// phase's grouping and plan. cuda_common.cuh explains the design.
#include <limits>
#include <memory>
#include <string>

#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_reduce.cuh>

#include "base/cuda/cub.cuh"
#include "base/cuda/hash_table.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::empty_key;
using loom::cuda::exact_grid;
using loom::cuda::grid_for;
using loom::cuda::row_of_entry;
using loom::cuda::run_cub;

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
    auto& sh = team_shared<G, CountShared<G, I>>();
    bool active = false;
    const long long row = team_row<G>(group_rows, n, active);
    for (int s = T::rank(); s < S; s += G) sh.keys[s] = empty_key<I>;
    if (T::rank() == 0) sh.count = 0;
    T::sync();
    const int found = insert_row_columns<G, S>(in, active, row, sh.keys, sh.batch, direct);
    if (found > 0) atomicAdd(&sh.count, found);
    T::sync();
    if (active && T::rank() == 0) counts[row] = static_cast<I>(sh.count);
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

template <int G, typename I>
void launch_count(const CudaExecutor& exec, const RowGroups<I>& groups, int group,
                  const Pattern<I>& in, long long b_cols, I* counts)
{
    using T = Team<G>;
    const std::size_t bytes = sizeof(CountShared<G, I>) * T::per_block;
    allow_shared(exec, count_light_kernel<G, I>, bytes, symbolic_where);
    const bool direct = b_cols <= symbolic_slots_per_thread * G;
    count_light_kernel<G, I>
        <<<exact_grid(groups.size(group), T::per_block, symbolic_where), T::block_threads, bytes,
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

/// Descents (cols[k] >= cols[k + 1]) inside rows, counted as all descents minus those where
/// one row ends and the next begins, so that every thread looks at one entry or one row: a
/// thread per row walked a power-law matrix's 1.8 M-entry row alone (~140 ms on an H200).
template <typename I>
__global__ void __launch_bounds__(256)
    count_inner_descents_kernel(long long rows, long long nnz, const I* ptrs, const I* cols,
                                unsigned long long* descents, unsigned long long* at_row_ends)
{
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    const long long first = static_cast<long long>(blockIdx.x) * blockDim.x;
    // block-uniform loops: every thread reaches each __syncthreads_count
    for (long long base = first; base < nnz - 1; base += stride) {
        const long long k = base + threadIdx.x;
        const int n = __syncthreads_count(k < nnz - 1 && cols[k] >= cols[k + 1]);
        if (threadIdx.x == 0 && n > 0) atomicAdd(descents, static_cast<unsigned long long>(n));
    }
    for (long long base = first; base < rows; base += stride) {
        const long long r = base + threadIdx.x;
        bool descent = false;
        if (r < rows) {
            const long long end = ptrs[r + 1];
            descent = end > ptrs[r] && end < nnz && cols[end - 1] >= cols[end];
        }
        const int n = __syncthreads_count(descent);
        if (threadIdx.x == 0 && n > 0) atomicAdd(at_row_ends, static_cast<unsigned long long>(n));
    }
}

template <typename I>
void symbolic(const CudaExecutor& exec, const Pattern<I>& in, long long rows, long long a_nnz,
              long long b_cols, int numeric_light_groups, NumericHashShape numeric_hash,
              detail::SpgemmState<I>& state, KeptBitmaps<I>* kept)
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
        row_flops_kernel<<<exact_grid(threads, 256, where), 256, 0, stream>>>(
            a_nnz, rows, in.a_ptrs, in.a_cols, in.b_ptrs, flops);
        check_launch(where);
    }
    if (in.identity) {
        add_identity_flops_kernel<<<grid_for(exec, rows, 256, 8), 256, 0, stream>>>(
            rows, in.b_ptrs, flops);
        check_launch(where);
    }

    // distinct columns per row, into row_ptrs
    const auto groups = group_rows<I>(exec, rows, SymbolicNeed{flops, b_cols}, flops,
                                      light_groups_for(max_symbolic_table), b_cols, where);
    state.multiply_adds = static_cast<size_type>(groups.weight);
    I* counts = state.row_ptrs.data();
    for (int g = 0; g < light_groups_for(max_symbolic_table); ++g) {
        if (groups.size(g) > 0) count_group(exec, groups, g, g, in, b_cols, counts);
    }
    const long long wide = groups.size(hash_group) + groups.size(heavy_group);
    const long long words = ceildiv(b_cols, 32ll);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    if (kept != nullptr && wide > 0) {
        LOOM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), where);
    }
    if (kept != nullptr && wide > 0 &&
        static_cast<double>(wide) * words * sizeof(unsigned) <= 0.25 * free_bytes) {
        // every wide row (hash_group and heavy_group are neighbours) marked once, the
        // bitmaps kept for the columns
        kept->first = groups.offsets[hash_group];
        kept->n = wide;
        kept->bitmaps = Array<unsigned>(self, wide * words);
        LOOM_CUDA_CHECK(cudaMemsetAsync(kept->bitmaps.data(), 0,
                                        sizeof(unsigned) * kept->bitmaps.size(), stream),
                        where);
        mark_and_count_kept(exec, in, groups.begin(hash_group), wide, flops, rows, a_nnz, b_cols,
                            kept->bitmaps.data(), counts);
    } else {
        if (kept != nullptr) kept->n = 0;
        if (groups.size(heavy_group) > 0) {
            count_heavy_rows(exec, groups, in, b_cols, flops, a_nnz, counts);
        }
        if (groups.size(hash_group) > 0) count_hash_rows(exec, groups, in, b_cols, flops, counts);
    }
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
        plan->hash = plan_numeric_hash(exec, plan->groups, counts, numeric_hash);
    }
    state.backend = std::move(plan);
    if (kept != nullptr && kept->n > 0) kept->rows = std::move(groups.rows);
}

}  // namespace
}  // namespace loom::sparse::cuda::spgemm_kernels

namespace loom::sparse::cuda {

template <typename V, typename I>
void spgemm_symbolic(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                     const matrix::Csr<V, I>& B, bool with_identity,
                     detail::SpgemmState<I>& state)
{
    using namespace spgemm_kernels;
    const Pattern<I> in{A.row_ptrs().data(), A.col_idxs().data(), B.row_ptrs().data(),
                        B.col_idxs().data(), with_identity};
    using DV = loom::cuda::device_type_t<V>;
    // when this phase will find the wide rows' columns (below): their bitmaps from the count
    // kept for that, so that their products are marked once, not twice
    KeptBitmaps<I> kept;
    const bool keep = state.columns_in_symbolic && B.cols() <= (size_type{1} << 23) &&
                      (state.record_limit > 0 || state.one_shot_record_limit > 0);
    symbolic(exec, in, A.rows(), A.nnz(), B.cols(), light_groups_for(max_numeric_table<V, I>()),
             NumericHashShape{numeric_hash_header_bytes<DV>(), sizeof(DV) + sizeof(I)}, state,
             keep ? &kept : nullptr);
    auto& plan = *static_cast<CudaPlan<I>*>(state.backend.get());
    plan.b_rows_distinct = rows_strictly_ascending(exec, B, symbolic_where);
    const long long wide_rows = plan.groups.size(hash_group) + plan.groups.size(heavy_group);
    if (wide_rows > 0 && state.record_limit == 0) {
        // a one-shot product with heavy rows: a record for its one numeric call costs less
        // than the heavy rows' full phase, which a block per row runs in product order
        state.record_limit = state.one_shot_record_limit;
    }
    // heavy rows' columns come from bitmaps of B's columns: at most 2^23 columns, so that a
    // hash row (over 4096 entries) spends at most 64 words of bitmap per entry; and only
    // when a record follows (otherwise the first numeric call runs their full phase, which
    // writes their columns again)
    const bool columns = state.columns_in_symbolic && state.nnz > 0 &&
                         (wide_rows == 0 || (B.cols() <= (size_type{1} << 23) &&
                                             state.record_limit > 0));
    if (columns) {
        // the light rows' columns cost a pass of keys only, the heavy rows' one of bitmaps;
        // the numeric calls compute values only
        state.columns = Array<I>(exec.shared_from_this(), state.nnz);
        const int light_groups = light_groups_for(max_numeric_table<V, I>());
        write_light_columns(exec, plan, in, light_groups, state.row_ptrs.data(),
                            state.columns.data());
        if (wide_rows > 0 && kept.n > 0) {
            // every wide row of the symbolic grouping from its kept bitmap (the numeric
            // grouping's wide rows are among them; rows that turned out light get the same
            // columns a second time)
            columns_from_kept(exec, kept.rows.data() + kept.first, kept.n,
                              static_cast<long long>(B.cols()), kept.bitmaps.data(),
                              state.row_ptrs.data(), state.columns.data());
        } else if (wide_rows > 0) {
            // no memory to keep them: marked again (hash_group and heavy_group are
            // neighbours in the grouping)
            write_bitmap_columns(exec, in, plan.groups.begin(hash_group), wide_rows,
                                 reinterpret_cast<const unsigned long long*>(
                                     state.row_flops.data()),
                                 static_cast<long long>(A.rows()),
                                 static_cast<long long>(A.nnz()), B.cols(),
                                 state.row_ptrs.data(), state.columns.data());
        }
        state.columns_from_symbolic = true;
        if (state.record_limit > 0 && (plan.b_rows_distinct || wide_rows > 0)) {
            // a handle's: the record costs one pass of positions here, where C's columns
            // were just found, instead of a slower first numeric call
            record_in_symbolic<DV>(exec, state, in, static_cast<long long>(A.nnz()));
        }
    }
}

template <typename V, typename I>
bool rows_strictly_ascending(const CudaExecutor& exec, const matrix::Csr<V, I>& M,
                             const char* where)
{
    if (M.rows() == 0) return true;
    const auto stream = loom::cuda::stream_of(exec);
    Array<unsigned long long> counts(exec.shared_from_this(), 2);
    LOOM_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, 2 * sizeof(unsigned long long), stream),
                    where);
    const auto items = std::max<long long>(M.rows(), M.nnz());
    spgemm_kernels::count_inner_descents_kernel<<<loom::cuda::grid_for(exec, items, 256, 8), 256,
                                                  0, stream>>>(
        M.rows(), M.nnz(), M.row_ptrs().data(), M.col_idxs().data(), counts.data(),
        counts.data() + 1);
    loom::cuda::check_launch(where);
    // the descents at row ends are among all descents: equal counts mean none inside a row
    return loom::detail::load_element(counts, 0) == loom::detail::load_element(counts, 1);
}

#define LOOM_INSTANTIATE_SPGEMM_SYMBOLIC_CUDA(V, I)                                            \
    template void spgemm_symbolic(const CudaExecutor&, const matrix::Csr<V, I>&,               \
                                  const matrix::Csr<V, I>&, bool, detail::SpgemmState<I>&);   \
    template bool rows_strictly_ascending(const CudaExecutor&, const matrix::Csr<V, I>&,       \
                                          const char*);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_SYMBOLIC_CUDA)

}  // namespace loom::sparse::cuda
