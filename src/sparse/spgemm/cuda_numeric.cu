// CUDA SpGEMM, numeric phase: the light groups' columns and values by teams in shared-memory
// hash tables (or, values only, by binary search in C's known columns), the heavy ones by
// cuda_heavy.cu and cuda_hash.cu. cuda_common.cuh explains the design.
#include <type_traits>

#include "base/cuda/hash_table.cuh"
#include "base/instantiate.hpp"
#include "loom/base/resources.hpp"
#include "loom/sort/bitonic.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::claim_slot;
using loom::cuda::empty_key;
using loom::cuda::exact_grid;
using loom::cuda::slot_of;

/// Team<G> as the team of loom::sort's team-level sort.
template <int G>
struct SortTeam {
    template <typename F>
    __device__ void team_vector_for(int n, const F& f) const
    {
        for (int i = Team<G>::rank(); i < n; i += G) f(i);
    }
    __device__ void team_barrier() const { Team<G>::sync(); }
};

/// Columns as unsigned: the empty slots (all bits set) sort after every column.
struct UnsignedLess {
    template <typename I>
    __device__ bool operator()(I a, I b) const
    {
        return static_cast<std::make_unsigned_t<I>>(a) < static_cast<std::make_unsigned_t<I>>(b);
    }
};

/// In-place sort of a team's table of S slots by column (empty slots last).
template <int G, int S, typename V, typename I>
__device__ void sort_table(I* keys, V* values)
{
    loom::sort::team_sort_pairs(SortTeam<G>{}, keys, values, S, UnsignedLess{});
}

// ----------------------------------------------------------------------- numeric kernels

template <int G, typename V, typename I>
struct MultiplyShared {
    V values[slots_per_thread * G];
    V factors[G];  ///< the factor of each entry of the current batch
    I keys[slots_per_thread * G];
    int owners[G > 32 ? slots_per_thread * G : 1];  ///< block teams: ordered_add's, per slot
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
        if constexpr (G > 32) sh.owners[s] = no_owner;
    }
    if (T::rank() == 0) sh.count = 0;
    T::sync();
    long long first = 0;
    long long end = 0;
    if (active) entry_range(in.pattern, row, first, end);
    const V scale = active ? row_scale(in, row) : V(1);
    for_each_product_step<G>(
        first, end, in.pattern.b_ptrs, sh.batch,
        [&](long long k, int s) -> long long {
            return selected_row(in, row, scale, k, sh.factors[s]);
        },
        [&](long long j, int s, bool valid) {
            // the key is claimed in any order (only its slot depends on that); the value is
            // added in product order when asked
            long long slot = -1;
            V product{};
            if (valid) {
                const I col = in.pattern.b_cols[j];
                bool inserted = false;
                slot = claim_slot(sh.keys, slot_of(col, S - 1, direct), unsigned{S - 1}, S, col,
                                  inserted);
                product = unfused_product(sh.factors[s], in.b_vals[j]);
            }
            const int at = slot < 0 ? 0 : static_cast<int>(slot);
            ordered_add<G>(in.ordered, sh.values + at, product, slot >= 0,
                           sh.owners + (G > 32 ? at : 0));
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
        if constexpr (G > 32) sh.owners[s] = no_owner;
    }
    T::sync();
    long long first = 0;
    long long end = 0;
    if (active) entry_range(in.pattern, row, first, end);
    const V scale = active ? row_scale(in, row) : V(1);
    for_each_product_step<G>(
        first, end, in.pattern.b_ptrs, sh.batch,
        [&](long long k, int s) -> long long {
            return selected_row(in, row, scale, k, sh.factors[s]);
        },
        [&](long long j, int s, bool valid) {
            // a column missing from the row cannot happen when C's pattern is the one the
            // handle recorded; skipped, to stay memory-safe
            const int position = valid ? find_column(sh.keys, length, in.pattern.b_cols[j]) : -1;
            const V product = position >= 0 ? unfused_product(sh.factors[s], in.b_vals[j]) : V{};
            const int at = max(position, 0);
            ordered_add<G>(in.ordered, sh.values + at, product, position >= 0,
                           sh.owners + (G > 32 ? at : 0));
        });
    T::sync();
    for (int s = T::rank(); s < length; s += G) in.c_vals[out + s] = sh.values[s];
}

/// known_columns: C's columns are in place (sorted), values only.
template <int G, typename V, typename I>
void launch_multiply(const CudaExecutor& exec, const RowGroups<I>& groups, int group,
                     const Operands<V, I>& in, long long b_cols, bool sort, bool known_columns)
{
    using T = Team<G>;
    const std::size_t bytes = sizeof(MultiplyShared<G, V, I>) * T::per_block;
    const unsigned blocks = exact_grid(groups.size(group), T::per_block, numeric_where);
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

/// known_columns: C's columns are those a previous call wrote (sorted); light rows then
/// compute values only, heavy rows run as always.
template <typename V, typename I>
void numeric(const CudaExecutor& exec, const CudaPlan<I>& plan, const Operands<V, I>& in, bool sort,
             int light_groups, bool known_columns)
{
    const auto& groups = plan.groups;
    for (int g = 0; g < light_groups; ++g) {
        if (groups.size(g) > 0) {
            multiply_group(exec, groups, g, g, in, plan.b_cols, sort, known_columns);
        }
    }
    if (groups.size(staged_group) > 0) multiply_staged_rows(exec, plan.segments, in);
    if (groups.size(hash_group) > 0) multiply_hash_rows(exec, groups, plan.hash, in, sort);
    if (groups.size(heavy_group) > 0) multiply_heavy_rows(exec, groups, in, plan.b_cols);
}

}  // namespace
}  // namespace loom::sparse::cuda::spgemm_kernels

namespace loom::sparse::cuda {
namespace {

template <typename V, typename I>
spgemm_kernels::Operands<loom::cuda::device_type_t<V>, I> operands(
    const detail::SpgemmState<I>& state, const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
    const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    using loom::cuda::as_device;
    using DV = loom::cuda::device_type_t<V>;
    return {{A.row_ptrs().data(), A.col_idxs().data(), B.row_ptrs().data(), B.col_idxs().data(),
             jacobi != nullptr},
            as_device(A.values().data()),
            as_device(B.values().data()),
            jacobi ? as_device(jacobi->d_inv) : nullptr,
            jacobi ? static_cast<long long>(jacobi->stride) : 0,
            jacobi ? as_device(jacobi->omega) : DV(0),
            state.row_ptrs.data(),
            C.col_idxs().data(),
            as_device(C.values().data()),
            state.deterministic};
}

template <typename I>
spgemm_kernels::CudaPlan<I>& plan_of(const detail::SpgemmState<I>& state)
{
    return *static_cast<spgemm_kernels::CudaPlan<I>*>(state.backend.get());
}

}  // namespace

template <typename V, typename I>
void spgemm_numeric(const CudaExecutor& exec, detail::SpgemmState<I>& state,
                    const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                    const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    using namespace spgemm_kernels;
    numeric(exec, plan_of(state), operands(state, A, B, jacobi, C), state.sort_output,
            light_groups_for(max_numeric_table<V, I>()), false);
}

template <typename V, typename I>
void spgemm_numeric_known_columns(const CudaExecutor& exec, detail::SpgemmState<I>& state,
                                  const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                  const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    using namespace spgemm_kernels;
    if (!state.sort_output) {
        throw NotSupported(numeric_where, "the values-only numeric phase needs sorted rows");
    }
    const auto in = operands(state, A, B, jacobi, C);
    const auto rows = static_cast<long long>(state.size.rows);
    if (!state.recorded && state.record_limit > 0) {
        // made on the first values-only call, not the full one: a product computed once
        // never pays for it
        try {
            state.recorded = record_products(
                exec, in.pattern, rows, static_cast<long long>(A.nnz()),
                static_cast<long long>(state.multiply_adds), static_cast<long long>(state.nnz),
                state.row_ptrs.data(), C.col_idxs().data(), state.row_flops.data(), sizeof(V),
                static_cast<std::size_t>(state.record_limit));
        } catch (const OutOfMemory&) {
            // the record only saves time on later calls (free memory was misjudged)
        }
        state.recorded_bytes =
            state.recorded ? static_cast<size_type>(record_size<I>(state.recorded.get())) : 0;
    }
    if (state.recorded) {
        values_from_record(exec, state.recorded.get(), in);
        return;
    }
    numeric(exec, plan_of(state), in, true, light_groups_for(max_numeric_table<V, I>()), true);
}

#define LOOM_INSTANTIATE_SPGEMM_NUMERIC_CUDA(V, I)                                             \
    template void spgemm_numeric(const CudaExecutor&, detail::SpgemmState<I>&,                 \
                                 const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,           \
                                 const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);         \
    template void spgemm_numeric_known_columns(                                                \
        const CudaExecutor&, detail::SpgemmState<I>&, const matrix::Csr<V, I>&,                \
        const matrix::Csr<V, I>&, const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_NUMERIC_CUDA)

}  // namespace loom::sparse::cuda
