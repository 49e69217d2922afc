// CUDA incomplete factorizations, values in V's device type.
//
// The IKJ factorization (ILU(0), ILU(k), IC) is ONE launch that runs the levels of the
// symbolic phase's schedule in order without a launch per level (factorize_by_levels): a
// block holds rows of one level and waits on one counter of the level before; its rows are
// planned from the pattern before the wait and factorized in registers after it, each entry
// seeing the same operations in the same order as rows.hpp's factorize_row (the same numbers
// as the host backends up to fused multiply-adds and l_ik = sum * (1 / u_kk) for sum / u_kk),
// and the pivots are checked in the same
// launch (the same first bad row). ilu NOTES.md, "CUDA", says why and what it measured.
//
// The sweeps, the assembly, the extraction and the sweeping kinds' pivot check are plain
// passes over F (8 lanes per row, or a thread per row for the pivot check).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/parallel_reduce.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate.hpp"
#include "loom/base/array.hpp"
#include "loom/launch/row_search.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/sptrsv/sync_free.cuh"

namespace loom::sparse::cuda {

using loom::cuda::as_device;
using loom::cuda::ceildiv;
using loom::cuda::check_launch;
using loom::cuda::device_type_t;
using loom::cuda::stream_of;

namespace ilu_kernels {

constexpr const char* where = "loom::sparse::ilu_numeric";
constexpr int block_size = 256;
/// factorize_by_levels: each level's counter in its own 128-byte line (below a size cap).
constexpr int counter_stride = 32;

template <typename I>
__device__ __forceinline__ bool row_of_thread(const detail::FactorPattern<I>& f, I& i)
{
    i = static_cast<I>(blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
    return i < static_cast<I>(f.n);
}

/// Lanes per row of the kernels over F's entries: neighbouring lanes read neighbouring
/// entries (a thread per row read them 7 apart on a stencil).
constexpr int entry_lanes = 8;

/// body(i, p) for every entry p of every row i, entry_lanes lanes per row.
template <typename I, typename Body>
__global__ void for_each_entry(detail::FactorPattern<I> f, Body body)
{
    const auto thread = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const auto i = static_cast<I>(thread / entry_lanes);
    if (i >= static_cast<I>(f.n)) return;
    for (I p = f.row_ptrs[i] + static_cast<I>(thread % entry_lanes); p < f.row_ptrs[i + 1];
         p += entry_lanes) {
        body(i, p);
    }
}

/// *counter, ordering this thread's later reads after the writes released before the
/// counter took that value (an acquire load: no full fence after the poll).
__device__ __forceinline__ std::uint32_t load_acquire(const std::uint32_t* counter)
{
    std::uint32_t value;
    asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(value) : "l"(counter) : "memory");
    return value;
}

/// *counter += 1, releasing the writes ordered before it (a release reduction: the fence and
/// the atomic in one operation, no sequentially consistent fence).
__device__ __forceinline__ void add_release(std::uint32_t* counter)
{
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" : : "l"(counter), "r"(1u) : "memory");
}

/// Spins until *counter == target. One poller per block, so the back-off stays short (none
/// at all measured the same: 27-point 40^3 848 vs 856 us, 7-point 100^3 951 vs 946 us).
/// Session 13 (H200, round 1): relaxed polls and one acquire fence after them 786 / 1028 us
/// against 702 / 927; a poller per warp and no block meeting after the wait 713 us on
/// 27-point: both deleted.
__device__ __forceinline__ void wait_until(const std::uint32_t* counter, std::uint32_t target)
{
    unsigned pause = 16;
    while (load_acquire(counter) != target) {
        __nanosleep(pause);
        if (pause < 64) pause *= 2;
    }
}

/// Lanes per row: 4 for short rows, half a warp for long ones. H200, ILU(0) of 27-point 40^3
/// (27 entries a row): a warp per row 1.74 ms, half a warp 1.27 ms, 8 lanes 1.24 ms
/// (csrilu02 1.14 ms): a warp left 5 of its 32 lanes idle and held half the rows per block.
template <typename I>
int lanes_per_row(const detail::FactorPattern<I>& f)
{
    return f.nnz > 8 * f.n ? 16 : 4;
}

/// What row i's group finds in the pattern before it waits (plan_row): lane t owns the
/// entries t, t + G, ... (E of them) of row i and, for each strictly lower entry s (column
/// k_s), where row k_s holds its entries' columns. Rows with more than E * G entries or NL
/// lower ones do not fit and take the in-place walk (factorize_in_place).
template <int G, int E, int NL, typename I>
struct RowPlan {
    I begin = 0;
    I end = 0;
    I lower = 0;
    bool fits = false;
    /// The position of (k_s, j) in row k_s, j the column of the lane's e-th entry; -1 when
    /// absent or when that entry comes before s.
    I pos[E][NL];
    /// For the lane's lower entries (i, k): the position of u_kk; -1 for the others.
    I pivot[E];
};

template <int G, int E, int NL, typename I>
__device__ __forceinline__ RowPlan<G, E, NL, I> plan_row(const detail::FactorPattern<I>& f, I i,
                                                        int lane)
{
    RowPlan<G, E, NL, I> plan;
    plan.begin = f.row_ptrs[i];
    plan.end = f.row_ptrs[i + 1];
    plan.lower = f.diag[i] - plan.begin;
    plan.fits = plan.end - plan.begin <= E * G && plan.lower <= NL;
    if (!plan.fits) return plan;
    I col[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const I t = lane + e * G;
        col[e] = plan.begin + t < plan.end ? f.col_idxs[plan.begin + t] : I{-1};
        plan.pivot[e] = t < plan.lower ? f.diag[col[e]] : I{-1};
    }
    // Every search at once, round by round (a lower bound in row k_s's upper part for each
    // owned column): the loads of one round are independent, so the plan costs a few round
    // trips through memory, not one per step of each search in turn.
    I base[E][NL];
    I left[E][NL];
    I k_end[NL];
#pragma unroll
    for (int s = 0; s < NL; ++s) {
        const bool active = s < plan.lower;
        const I k = active ? f.col_idxs[plan.begin + s] : I{0};
        const I k_first = active ? f.diag[k] + 1 : I{0};
        k_end[s] = active ? f.row_ptrs[k + 1] : I{0};
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const bool wanted = active && lane + e * G > s && col[e] >= 0;
            base[e][s] = k_first;
            left[e][s] = wanted ? k_end[s] - k_first : I{0};
        }
    }
    for (bool searching = true; searching;) {
        searching = false;
#pragma unroll
        for (int s = 0; s < NL; ++s) {
#pragma unroll
            for (int e = 0; e < E; ++e) {
                if (left[e][s] <= 0) continue;
                const I half = left[e][s] / 2;
                if (f.col_idxs[base[e][s] + half] < col[e]) {
                    base[e][s] += half + 1;
                    left[e][s] -= half + 1;
                } else {
                    left[e][s] = half;
                }
                searching = searching || left[e][s] > 0;
            }
        }
    }
#pragma unroll
    for (int s = 0; s < NL; ++s) {
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const bool wanted = s < plan.lower && lane + e * G > s && col[e] >= 0;
            const bool found = wanted && base[e][s] < k_end[s] && f.col_idxs[base[e][s]] == col[e];
            plan.pos[e][s] = found ? base[e][s] : I{-1};
        }
    }
    return plan;
}

/// Marks row i as the first bad pivot when it is (rows.hpp: pivot_breaks): first_bad holds
/// the smallest such row.
template <typename D, typename R, typename I>
__device__ __forceinline__ void check_pivot(const D& d, R row_max, bool cholesky, I i,
                                            unsigned long long* first_bad)
{
    if (detail::pivot_breaks(d, row_max, cholesky)) {
        atomicMin(first_bad, static_cast<unsigned long long>(i));
    }
}

/// The lane's entries of row i of A assembled onto F (zero past the row's end) and the
/// group's largest magnitude among them (for the pivot check): they depend on no other row,
/// so they are read before the block waits.
template <int G, int E, int NL, typename D, typename I, typename R>
__device__ __forceinline__ void assemble_planned(const detail::FactorPattern<I>& f,
                                                 const RowPlan<G, E, NL, I>& plan, I i,
                                                 const detail::Assembly<D, I>& a, int lane,
                                                 unsigned mask, D (&sum)[E], R& row_max)
{
    row_max = 0;
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const I p = plan.begin + lane + e * G;
        sum[e] = p < plan.end ? detail::assembled_entry(f, i, p, a.a, a.gather_ptrs, a.sources,
                                                        a.scale, a.shift)
                              : D{};
        const R m = detail::magnitude(sum[e]);
        if (m > row_max) row_max = m;
    }
    for (int offset = G / 2; offset > 0; offset /= 2) {
        const R other = loom::cuda::shuffle_xor(row_max, offset, mask);
        if (other > row_max) row_max = other;
    }
}

/// The lower entries of row i (of level `level`) whose rows lie two or more levels back, as
/// a bit mask (bit s: lower entry s), the same on every lane of the group: those rows are
/// final once level - 2 is, so the group eliminates them before it waits on level - 1 and
/// only the entries on rows of level - 1 stay on the chain after that wait. Every row of a
/// level - 1 entry depends on all rows before it in its own row, so in a symmetric pattern
/// no late entry updates an early one; where one does (u_{k_s' k_s} != 0 for a late s' < s
/// early, nonsymmetric patterns), the row is not split (0).
template <int G, int E, int NL, typename I>
__device__ __forceinline__ unsigned early_entries(const detail::FactorPattern<I>& f,
                                                  const RowPlan<G, E, NL, I>& plan,
                                                  const I* row_levels, I level, int lane,
                                                  unsigned mask)
{
    unsigned bits = 0;
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const I t = lane + e * G;
        if (t < plan.lower && row_levels[f.col_idxs[plan.begin + t]] <= level - 2) bits |= 1u << t;
    }
    for (int offset = G / 2; offset > 0; offset /= 2) {
        bits |= loom::cuda::shuffle_xor(bits, offset, mask);
    }
    bool tangled = false;
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const I t = lane + e * G;
#pragma unroll
        for (int s = 0; s < NL; ++s) {
            if (s < t && t < plan.lower && ((bits >> t) & 1u) && !((bits >> s) & 1u) &&
                plan.pos[e][s] >= 0) {
                tangled = true;
            }
        }
    }
    return __any_sync(mask, tangled) ? 0u : bits;
}

/// The IKJ elimination of the planned row's lower entries `which` (bit s: lower entry s), in
/// column order, every row they name final: the values the plan names for them are loaded
/// at once (one round trip through L2, `__ldcg`), then the owner of entry s computes l_ik and
/// shuffles it to the group, every lane subtracts l_ik u_kj from its own entries. Each entry
/// sees the same operations in the same order as factorize_row's when `which` is all of
/// them (but l_ik, a product with 1 / u_kk); split in two (early_entries), the updates of an
/// entry come in another order (the same math, other roundings).
template <int G, int E, int NL, typename D, typename I>
__device__ __forceinline__ void eliminate_planned(const RowPlan<G, E, NL, I>& plan,
                                                  unsigned which, const D* values, D (&sum)[E],
                                                  int lane, unsigned mask)
{
    using sync_free::load_coherent;
    D pivot[E];
    D u[E][NL];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const int t = lane + e * G;
        pivot[e] = plan.pivot[e] >= 0 && ((which >> t) & 1u) ? load_coherent(values + plan.pivot[e])
                                                              : D{1};
#pragma unroll
        for (int s = 0; s < NL; ++s) {
            u[e][s] = plan.pos[e][s] >= 0 && ((which >> s) & 1u)
                          ? load_coherent(values + plan.pos[e][s])
                          : D{};
        }
    }
    // 1 / u_kk for the lane's lower entries, off the chain: the chain then multiplies, and a
    // division on it cost ~80 ns a lower entry (H200, 27-point 40^3: 4.50 -> 2.93 us a level,
    // 1324 -> 856 us; rounding differs from the host's division by an ulp).
#pragma unroll
    for (int e = 0; e < E; ++e) pivot[e] = D{1} / pivot[e];
#pragma unroll
    for (int s = 0; s < NL; ++s) {
        if (s >= plan.lower) break;              // the same for the whole group
        if (!((which >> s) & 1u)) continue;      // likewise
        const D l = loom::cuda::shuffle(sum[s / G] * pivot[s / G], s % G, mask, G);
        if (lane == s % G) sum[s / G] = l;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            if (plan.pos[e][s] >= 0) sum[e] -= l * u[e][s];
        }
    }
}

/// The planned row's values stored, and the pivot check (rows.hpp: bad_pivot) from them in
/// registers.
template <int G, int E, int NL, typename D, typename I, typename R>
__device__ __forceinline__ void store_planned(const RowPlan<G, E, NL, I>& plan, I i,
                                              const D (&sum)[E], R row_max, bool cholesky,
                                              D* values, unsigned long long* first_bad, int lane)
{
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const I p = plan.begin + lane + e * G;
        if (p < plan.end) values[p] = sum[e];
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
        if (lane + e * G == plan.lower) check_pivot(sum[e], row_max, cholesky, i, first_bad);
    }
}

/// Row i of F by the IKJ elimination, every row it reads final, in place (rows too long for
/// registers): row i's lower entries k in column order; the lanes share row k's upper
/// entries, each finding its column in row i by binary search. Then the pivot check.
template <int G, typename D, typename I>
__device__ void factorize_in_place(const detail::FactorPattern<I>& f, I i,
                                   const detail::Assembly<D, I>& a, bool cholesky, D* values,
                                   unsigned long long* first_bad, int lane, unsigned mask)
{
    using sync_free::load_coherent;
    using R = decltype(detail::magnitude(D{}));
    const I begin = f.row_ptrs[i];
    const I end = f.row_ptrs[i + 1];
    R row_max = 0;
    for (I p = begin + lane; p < end; p += G) {
        const D entry = detail::assembled_entry(f, i, p, a.a, a.gather_ptrs, a.sources, a.scale,
                                                a.shift);
        values[p] = entry;
        const R m = detail::magnitude(entry);
        if (m > row_max) row_max = m;
    }
    __syncwarp(mask);
    for (I p = begin; p < end && f.col_idxs[p] < i; ++p) {
        const I k = f.col_idxs[p];
        const I pivot = f.diag[k];
        const D l = load_coherent(values + p) / load_coherent(values + pivot);
        for (I q = pivot + 1 + lane; q < f.row_ptrs[k + 1]; q += G) {
            const I target = detail::find_column(f.col_idxs, p + 1, end, f.col_idxs[q]);
            if (target >= 0) {
                values[target] = load_coherent(values + target) - l * load_coherent(values + q);
            }
        }
        // Every lane has read a_ik (replaced by l_ik next), and the next k reads entries of
        // row i the lanes just updated.
        __syncwarp(mask);
        if (lane == 0) values[p] = l;
    }
    for (int offset = G / 2; offset > 0; offset /= 2) {
        const R other = loom::cuda::shuffle_xor(row_max, offset, mask);
        if (other > row_max) row_max = other;
    }
    // Row i's own entries, written by the group's lanes: visible to lane 0 after the meeting.
    __syncwarp(mask);
    if (lane == 0) check_pivot(load_coherent(values + f.diag[i]), row_max, cholesky, i, first_bad);
}

/// The IKJ factorization level by level in one launch: a block holds rows of one level
/// (IluSchedule's blocks, taken by a ticket in level order, as sync_free.cuh's rows: so a
/// block only waits on blocks that run), plans its rows from the pattern, waits until every
/// block of the level before has finished (counters[(l) * stride] counts them; levels
/// before that finished earlier, since their blocks waited alike), factorizes its rows and
/// counts itself done. One waiter per block polls one counter, not a lane per dependency.
/// counters: levels * stride + 1 words, zero before the launch (the last one the ticket);
/// first_bad: the first row whose pivot breaks the factorization, if less than its start.
template <int G, int E, int NL, int MinBlocks, typename D, typename I>
__global__ void __launch_bounds__(block_size, MinBlocks)
    factorize_by_levels(detail::FactorPattern<I> f, const I* order, const I* level_ptrs,
                        const I* level_blocks, const I* row_levels, I levels, int stride,
                        std::uint32_t* counters, detail::Assembly<D, I> a, bool cholesky,
                        D* values, unsigned long long* first_bad)
{
    using R = decltype(detail::magnitude(D{}));
    constexpr int rows_per_block = block_size / G;
    auto* ticket_counter = reinterpret_cast<unsigned int*>(counters + static_cast<long long>(levels) * stride);
    const auto ticket = static_cast<I>(sync_free::group_ticket<block_size, block_size>(ticket_counter));
    const auto level = static_cast<I>(last_row_starting_by(
        levels, ticket, [=](long long l) { return static_cast<long long>(level_blocks[l]); }));
    const I slot = level_ptrs[level] + (ticket - level_blocks[level]) * rows_per_block +
                   static_cast<I>(threadIdx.x / G);
    const bool has_row = slot < level_ptrs[level + 1];
    const int lane = threadIdx.x % G;
    const unsigned mask = sync_free::group_mask<G>();
    const I i = has_row ? order[slot] : I{0};
    RowPlan<G, E, NL, I> plan;
    D sum[E];
    R row_max = 0;
    unsigned early = 0;
    if (has_row) {
        plan = plan_row<G, E, NL>(f, i, lane);
        if (plan.fits) {
            assemble_planned(f, plan, i, a, lane, mask, sum, row_max);
            if (level >= 2) {
                early = early_entries(f, plan, row_levels, level, lane, mask);
            }
        }
    }
    // The entries on rows of level - 2 and before, while level - 1 runs (27-point 40^3: 77% of
    // the lower entries).
    if (__syncthreads_or(early != 0)) {
        if (threadIdx.x == 0) {
            wait_until(counters + static_cast<long long>(level - 2) * stride,
                       static_cast<std::uint32_t>(level_blocks[level - 1] - level_blocks[level - 2]));
        }
        __syncthreads();
        if (early != 0) eliminate_planned(plan, early, values, sum, lane, mask);
    }
    if (level > 0 && threadIdx.x == 0) {
        wait_until(counters + static_cast<long long>(level - 1) * stride,
                   static_cast<std::uint32_t>(level_blocks[level] - level_blocks[level - 1]));
    }
    __syncthreads();
    if (has_row) {
        if (plan.fits) {
            eliminate_planned(plan, ~early, values, sum, lane, mask);
            store_planned(plan, i, sum, row_max, cholesky, values, first_bad, lane);
        } else {
            factorize_in_place<G>(f, i, a, cholesky, values, first_bad, lane, mask);
        }
    }
    // The block's writes, then one release of them all (as a grid barrier does).
    __syncthreads();
    if (threadIdx.x == 0) add_release(counters + static_cast<long long>(level) * stride);
}

/// row_levels[order[slot]] = the level holding slot.
template <typename I>
__global__ void levels_of_rows(I n, const I* order, const I* level_ptrs, I levels, I* row_levels)
{
    const auto slot = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (slot >= n) return;
    row_levels[order[slot]] = static_cast<I>(last_row_starting_by(
        levels, slot, [=](long long l) { return static_cast<long long>(level_ptrs[l]); }));
}

/// reversed_order[reversed_ptrs[levels - 1 - l] + t] = order[level_ptrs[l] + t].
template <typename I>
__global__ void reverse_levels(I n, const I* order, const I* level_ptrs, I levels,
                               const I* reversed_ptrs, I* reversed_order)
{
    const auto slot = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (slot >= n) return;
    const auto l = static_cast<I>(last_row_starting_by(
        levels, slot, [=](long long level) { return static_cast<long long>(level_ptrs[level]); }));
    reversed_order[reversed_ptrs[levels - 1 - l] + (slot - level_ptrs[l])] = order[slot];
}

template <typename D, typename I>
__global__ void first_bad_pivot(detail::FactorPattern<I> f, const D* a_f, const D* values,
                                bool cholesky, unsigned long long* first)
{
    I i;
    if (row_of_thread(f, i) && detail::bad_pivot(f, i, a_f, values, cholesky)) {
        atomicMin(first, static_cast<unsigned long long>(i));
    }
}

template <typename I>
unsigned blocks_for(I count)
{
    return static_cast<unsigned>(ceildiv(count, block_size));
}

/// Launches for_each_entry(f, body) on exec's stream.
template <typename I, typename Body>
void for_entries(const CudaExecutor& exec, const detail::FactorPattern<I>& f, Body body)
{
    if (f.n == 0) return;
    for_each_entry<<<static_cast<unsigned>(ceildiv(f.n * entry_lanes, block_size)), block_size, 0,
                     stream_of(exec)>>>(f, body);
    check_launch(where);
}

}  // namespace ilu_kernels

template <typename V, typename I>
void ilu_assemble(const CudaExecutor& exec, const detail::FactorPattern<I>& f, const V* a,
                  const I* gather_ptrs, const I* sources, const V* scale, V shift, V* a_f)
{
    const auto ad = as_device(a);
    const auto scaled = as_device(scale);
    const auto shifted = as_device(shift);
    auto out = as_device(a_f);
    ilu_kernels::for_entries(exec, f, [=] __device__(I i, I p) {
        out[p] = detail::assembled_entry(f, i, p, ad, gather_ptrs, sources, scaled, shifted);
    });
}

template <typename I>
void ilu_level_blocks(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                      detail::IluSchedule<I>& schedule)
{
    const int rows_per_block = ilu_kernels::block_size / ilu_kernels::lanes_per_row(f);
    const auto& ptrs = schedule.host_level_ptrs;
    std::vector<I> first(std::max<size_type>(ptrs.size(), 1), 0);
    for (size_type l = 0; l + 1 < ptrs.size(); ++l) {
        first[l + 1] = first[l] + static_cast<I>(ceildiv(ptrs[l + 1] - ptrs[l], rows_per_block));
    }
    schedule.blocks = static_cast<size_type>(first.back());
    schedule.rows_per_block = rows_per_block;
    schedule.level_blocks = Array<I>(exec.shared_from_this(), first);
    const auto n = static_cast<I>(f.n);
    schedule.row_levels = Array<I>(exec.shared_from_this(), f.n);
    if (n == 0 || ptrs.size() < 2) return;
    schedule.max_lower = loom::detail::parallel_reduce(
        exec, f.n,
        [=] __host__ __device__(size_type i) {
            return static_cast<size_type>(f.diag[i] - f.row_ptrs[i]);
        },
        size_type{0}, loom::detail::Max{}, ilu_kernels::where);
    ilu_kernels::levels_of_rows<<<ilu_kernels::blocks_for(n), ilu_kernels::block_size, 0,
                                  stream_of(exec)>>>(
        n, schedule.order.const_data(), schedule.level_ptrs.const_data(),
        static_cast<I>(ptrs.size() - 1), schedule.row_levels.data());
    check_launch(ilu_kernels::where);
}

template <typename I>
void ilu_reversed_levels(const CudaExecutor& exec, const detail::IluSchedule<I>& schedule,
                         const I* reversed_ptrs, I* reversed_order)
{
    const auto n = static_cast<I>(schedule.host_level_ptrs.empty() ? 0 : schedule.host_level_ptrs.back());
    if (n == 0) return;
    ilu_kernels::reverse_levels<<<ilu_kernels::blocks_for(n), ilu_kernels::block_size, 0,
                                  stream_of(exec)>>>(
        n, schedule.order.const_data(), schedule.level_ptrs.const_data(),
        static_cast<I>(schedule.levels()), reversed_ptrs, reversed_order);
    check_launch(ilu_kernels::where);
}

template <typename V, typename I>
size_type ilu_factorize(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                        const detail::IluSchedule<I>& schedule, const detail::Assembly<V, I>& a,
                        bool cholesky, V* values)
{
    if (f.n == 0) return 0;
    const auto stream = stream_of(exec);
    const auto shared = exec.shared_from_this();
    const auto levels = static_cast<I>(schedule.levels());
    // A counter per 128-byte line while that costs at most 8 MB (the blocks waiting on
    // different levels then poll different lines of L2).
    const int stride = levels <= (1 << 16) ? ilu_kernels::counter_stride : 1;
    Array<std::uint32_t> counters(shared, static_cast<size_type>(levels) * stride + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.size() * sizeof(std::uint32_t),
                                    stream),
                    ilu_kernels::where);
    // All bits set: no bad row yet.
    Array<unsigned long long> first_bad(shared, 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(first_bad.data(), 0xff, sizeof(unsigned long long), stream),
                    ilu_kernels::where);
    using D = device_type_t<V>;
    const detail::Assembly<D, I> assembly{as_device(a.a), a.gather_ptrs, a.sources,
                                          as_device(a.scale), as_device(a.shift)};
    const auto blocks = static_cast<unsigned>(schedule.blocks);
    const auto launch = [&](auto kernel) {
        kernel<<<blocks, ilu_kernels::block_size, 0, stream>>>(
            f, schedule.order.const_data(), schedule.level_ptrs.const_data(),
            schedule.level_blocks.const_data(), schedule.row_levels.const_data(), levels, stride,
            counters.data(), assembly, cholesky, as_device(values), first_bad.data());
        check_launch(ilu_kernels::where);
    };
    // Registers for rows of up to 8 entries, 7 of them lower (G = 4), or 32 and 16 (G = 16).
    // Where no row has more than 4 lower entries (7-point stencils), registers for 4: 62 of
    // them, 4 blocks an SM (72 and 3 with 8), so the blocks of more levels ahead are resident
    // and planned before their wait. H200, 7-point 100^3: 828 against 927 us (the per-level
    // trace of session 13's round 1: a plan still running when the level before had finished in
    // 108 of 298 levels). Four blocks an SM for 8 lower entries spilled; three for G = 16
    // (128 -> 80 registers, spills): 967 against 702 us on 27-point.
    if (schedule.rows_per_block == ilu_kernels::block_size / 16) {
        launch(ilu_kernels::factorize_by_levels<16, 2, 16, 2, D, I>);
    } else if (schedule.max_lower <= 4) {
        // (Complex values: no bound, their registers would spill.)
        launch(ilu_kernels::factorize_by_levels<4, 2, 4, sizeof(D) <= sizeof(double) ? 4 : 1, D, I>);
    } else {
        launch(ilu_kernels::factorize_by_levels<4, 2, 8, 1, D, I>);
    }
    return static_cast<size_type>(std::min<unsigned long long>(first_bad.to_host()[0], f.n));
}

template <typename V, typename I>
void ilu_initial_guess(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                       const V* a_f, V* values)
{
    const auto a = as_device(a_f);
    auto out = as_device(values);
    ilu_kernels::for_entries(exec, f, [=] __device__(I i, I p) {
        out[p] = detail::initial_entry(f, i, p, a);
    });
}

template <typename V, typename I>
void ilu_sweep(const CudaExecutor& exec, const detail::FactorPattern<I>& f, const V* a_f,
               const V* old, V* values)
{
    const auto a = as_device(a_f);
    const auto previous = as_device(old);
    auto out = as_device(values);
    ilu_kernels::for_entries(exec, f, [=] __device__(I i, I p) {
        out[p] = detail::sweep_entry(f, i, p, a, previous);
    });
}

template <typename V, typename I>
size_type ilu_first_bad_pivot(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                              const V* a_f, const V* values, bool cholesky)
{
    if (f.n == 0) return 0;
    auto shared = exec.shared_from_this();
    Array<unsigned long long> first(shared, std::vector<unsigned long long>(1, static_cast<unsigned long long>(f.n)));
    ilu_kernels::first_bad_pivot<<<ilu_kernels::blocks_for(f.n), ilu_kernels::block_size, 0,
                                   stream_of(exec)>>>(f, as_device(a_f), as_device(values),
                                                      cholesky, first.data());
    check_launch(ilu_kernels::where);
    return static_cast<size_type>(first.to_host()[0]);
}

template <typename V, typename I>
void ilu_extract(const CudaExecutor& exec, const detail::FactorPattern<I>& f, const V* values,
                 const I* l_index, const I* u_index, bool cholesky, V* l, V* u)
{
    const auto v = as_device(values);
    auto l_out = as_device(l);
    auto u_out = as_device(u);
    if (cholesky) {
        ilu_kernels::for_entries(exec, f, [=] __device__(I i, I p) {
            detail::extract_entry(f, i, p, v, l_index, u_index, cholesky, l_out, u_out);
        });
        return;
    }
    // ILU: L's row i is F's lower part of row i then the unit diagonal, U's row i F's part
    // from the diagonal, both in F's order (split_pattern), so the places follow from the
    // diagonal's: no column or per-entry index read (16 bytes an entry moved, not 28).
    using D = device_type_t<V>;
    ilu_kernels::for_entries(exec, f, [=] __device__(I i, I p) {
        const I d = f.diag[i];
        const D value = v[p];
        if (p < d) {
            l_out[l_index[d] - (d - p)] = value;
        } else {
            u_out[u_index[d] + (p - d)] = value;
            if (p == d) l_out[l_index[d]] = D(1);
        }
    });
}

#define LOOM_INSTANTIATE(V, I) LOOM_INSTANTIATE_ILU_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)
#define LOOM_INSTANTIATE_LEVEL_BLOCKS(I)                                                    \
    template void ilu_level_blocks(const CudaExecutor&, const detail::FactorPattern<I>&,   \
                                   detail::IluSchedule<I>&);                                \
    template void ilu_reversed_levels(const CudaExecutor&, const detail::IluSchedule<I>&,  \
                                      const I*, I*);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_LEVEL_BLOCKS)

}  // namespace loom::sparse::cuda
