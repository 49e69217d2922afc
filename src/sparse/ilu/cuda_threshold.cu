// CUDA ParILUT / ParICT pattern search on the device (threshold_unified.hpp), and its
// candidates' merge by 8 lanes a row.
#include <limits>
#include <type_traits>

#include "base/cuda/helpers.cuh"
#include "base/cuda/parallel.cuh"
#include "base/cuda/parallel_reduce.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate.hpp"
#include "sparse/ilu/threshold_search.hpp"
#include "sparse/ilu/threshold_unified.hpp"

namespace loom::sparse::cuda {
namespace {

constexpr int merge_block_size = 256;
/// Lanes a row's merge needs besides one per lower entry: F's own row and A's row.
constexpr int merge_extra_lanes = 2;

/// Row i's candidates (rows.hpp: merge_candidates) by a group of G lanes (an aligned slice of
/// a warp, 32 / G rows a warp): lane t < lower walks row k_t of U (from its first entry right
/// of the diagonal), lane `lower` F's row i, lane `lower + 1` A's row i, each holding its next
/// column (and value) ahead of use. Per column j, the smallest over the group's lanes: the
/// lanes at j add their products l_ik u_kj in lane order, which is increasing k, each product
/// rounded before the sum as on the host (the host's sums, bit for bit, for real types), and
/// the group emits. The whole warp runs the loop until its last group is done (the shuffles
/// take every lane), so `valid` is false for a group without a row (past n); the caller
/// checks that the row fits (lower + 2 <= G).
template <int G, bool Values, typename D, typename I>
__device__ __forceinline__ void merge_row_by_group(const detail::FactorPattern<I>& fp,
                                                   const D* fv,
                                                   const detail::FactorPattern<I>& ap,
                                                   const D* av, I i, bool valid, I* count,
                                                   const I* rp, I* rc, D* rv, D* ra)
{
    using loom::cuda::full_mask;
    using loom::cuda::shuffle;
    constexpr I none = std::numeric_limits<I>::max();
    const int lane = static_cast<int>(threadIdx.x % loom::cuda::warp_size);
    const int t = lane % G;
    const int group_first = lane - t;
    const unsigned group_bits =
        G == loom::cuda::warp_size ? full_mask : ((1u << G) - 1u) << group_first;
    const int lower = valid ? static_cast<int>(fp.diag[i] - fp.row_ptrs[i]) : -1;
    const int a_lane = lower + 1;
    I c = 0;
    I end = 0;
    const I* cols = fp.col_idxs;
    const D* vals = fv;
    D l{};
    if (t < lower) {
        const I p = fp.row_ptrs[i] + t;
        const I k = fp.col_idxs[p];
        c = fp.diag[k] + 1;
        end = fp.row_ptrs[k + 1];
        if constexpr (Values) l = fv[p];
    } else if (valid && t == lower) {
        c = fp.row_ptrs[i];
        end = fp.row_ptrs[i + 1];
    } else if (valid && t == a_lane) {
        cols = ap.col_idxs;
        vals = av;
        c = ap.row_ptrs[i];
        end = ap.row_ptrs[i + 1];
    }
    const bool has_value = Values && (t < lower || (valid && t == a_lane));
    I col = c < end ? cols[c] : none;
    I next_col = c + 1 < end ? cols[c + 1] : none;
    D value = has_value && c < end ? vals[c] : D{};
    D next_value = has_value && c + 1 < end ? vals[c + 1] : D{};
    I e = Values && valid ? rp[i] : I{0};
    // Values: lane t holds the row's candidate G m + t until the group stores G of them at
    // once (one lane storing each one was 3x the count pass: H200, 7-point 100^3).
    I flushed = e;
    I buffered_col = 0;
    D buffered_residual{};
    D buffered_a{};
    for (;;) {
        I j = col;
#pragma unroll
        for (int offset = G / 2; offset > 0; offset /= 2) {
            const I other = __shfl_xor_sync(full_mask, j, offset);
            j = other < j ? other : j;
        }
        if (__all_sync(full_mask, j == none)) break;
        const bool active = j != none;  // the same on the group's lanes
        const bool hit = active && col == j;
        if constexpr (Values) {
            const D term = hit && t < lower ? l * value : D{};
            unsigned terms = __ballot_sync(full_mask, hit && t < lower) & group_bits;
            D sum{};
            // Each group's terms in lane order; the loop runs while any group has one left.
            while (__any_sync(full_mask, terms != 0)) {
                const int source = terms != 0 ? __ffs(terms) - 1 : lane;
                const D other = shuffle(term, source);
                if (terms != 0) {
                    sum += other;
                    terms &= terms - 1;
                }
            }
            const D a_ij = shuffle(hit && t == a_lane ? value : D{},
                                   group_first + (a_lane < G ? a_lane : 0));
            if (active && t == static_cast<int>(e - flushed)) {
                buffered_col = j;
                buffered_residual = a_ij - sum;
                buffered_a = a_ij;
            }
            if (active && e + 1 - flushed == G) {
                rc[flushed + t] = buffered_col;
                rv[flushed + t] = buffered_residual;
                ra[flushed + t] = buffered_a;
                flushed = e + 1;
            }
        }
        if (active) ++e;
        if (hit) {
            ++c;
            col = next_col;
            value = next_value;
            next_col = c + 1 < end ? cols[c + 1] : none;
            if (has_value && c + 1 < end) next_value = vals[c + 1];
        }
    }
    if constexpr (Values) {
        if (valid && t < static_cast<int>(e - flushed)) {
            rc[flushed + t] = buffered_col;
            rv[flushed + t] = buffered_residual;
            ra[flushed + t] = buffered_a;
        }
    }
    if (count != nullptr && valid && t == 0) count[i] = Values ? e - rp[i] : e;
}

/// The candidates of rows first_row .. first_row + 32 / G - 1 (those below n) by the warp, G
/// lanes a row. Where one of them has more lower entries than G - 2, the warp takes them one
/// at a time, and a row with more lower entries than a warp has lanes for merges on lane 0
/// (merge_candidates with the scratch cursors). Uniform over the warp.
template <int G, bool Values, typename D, typename I>
__device__ __forceinline__ void merge_rows(const detail::FactorPattern<I>& fp, const D* fv,
                           const detail::FactorPattern<I>& ap, const D* av, I* cursor, I* count,
                           const I* rp, I* rc, D* rv, D* ra, long long first_row)
{
    using loom::cuda::full_mask;
    constexpr int rows = loom::cuda::warp_size / G;
    if (first_row >= static_cast<long long>(fp.n)) return;  // the whole warp
    const int lane = static_cast<int>(threadIdx.x % loom::cuda::warp_size);
    const long long own_row = first_row + lane / G;
    const bool valid = own_row < static_cast<long long>(fp.n);
    const auto i = static_cast<I>(valid ? own_row : first_row);
    const bool fits = !valid || fp.diag[i] - fp.row_ptrs[i] + merge_extra_lanes <= G;
    if (__all_sync(full_mask, fits)) {
        merge_row_by_group<G, Values>(fp, fv, ap, av, i, valid, count, rp, rc, rv, ra);
        return;
    }
    if constexpr (G < loom::cuda::warp_size) {
        // (Halves by groups twice as wide, 16 lanes then 32, spilled registers: not measured.)
        for (int r = 0; r < rows; ++r) {
            merge_rows<loom::cuda::warp_size, Values>(fp, fv, ap, av, cursor, count, rp, rc, rv,
                                                      ra, first_row + r);
        }
    } else {
        if (lane == 0) {
            I e = Values ? rp[i] : I{0};
            detail::merge_candidates<Values>(fp, fv, ap, av, i, cursor, [&](I j, D a_ij, D sum) {
                if constexpr (Values) {
                    rc[e] = j;
                    rv[e] = a_ij - sum;
                    ra[e] = a_ij;
                }
                ++e;
            });
            if (count != nullptr) count[i] = Values ? e - rp[i] : e;
        }
        // The whole warp again before another row's shuffles.
        __syncwarp();
    }
}

/// The candidates of 32 / G rows a warp (merge_rows).
template <int G, bool Values, typename D, typename I>
__global__ void __launch_bounds__(merge_block_size)
    merge_candidates_kernel(detail::FactorPattern<I> fp, const D* fv, detail::FactorPattern<I> ap,
                            const D* av, I* cursor, I* count, const I* rp, I* rc, D* rv, D* ra)
{
    const long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) /
                           loom::cuda::warp_size;
    merge_rows<G, Values>(fp, fv, ap, av, cursor, count, rp, rc, rv, ra,
                          warp * (loom::cuda::warp_size / G));
}

}  // namespace

template <typename D, typename I>
void merge_candidates_by_warps(const CudaExecutor& exec, const detail::FactorPattern<I>& fp,
                               const D* fv, const detail::FactorPattern<I>& ap, const D* av,
                               I* cursor, I* count, const I* rp, I* rc, D* rv, D* ra)
{
    if (fp.n == 0) return;
    const auto stream = loom::cuda::stream_of(exec);
    const auto launch = [&](auto group) {
        constexpr int G = decltype(group)::value;
        const auto blocks = static_cast<unsigned>(loom::cuda::ceildiv(
            loom::cuda::ceildiv(static_cast<long long>(fp.n), loom::cuda::warp_size / G) *
                loom::cuda::warp_size,
            merge_block_size));
        if (rv == nullptr) {
            merge_candidates_kernel<G, false><<<blocks, merge_block_size, 0, stream>>>(
                fp, fv, ap, av, cursor, count, rp, rc, rv, ra);
        } else {
            merge_candidates_kernel<G, true><<<blocks, merge_block_size, 0, stream>>>(
                fp, fv, ap, av, cursor, count, rp, rc, rv, ra);
        }
    };
    // 8 lanes a row (rows of up to 6 lower entries; wider groups for the warps holding longer
    // rows). H200, ParILUT 7-point 100^3, 3 steps: search 9.7 ms with 8 lanes, 16.9 ms with a
    // warp a row.
    launch(std::integral_constant<int, 8>{});
    loom::cuda::check_launch(threshold_search::where);
}

LOOM_DEFINE_ILU_THRESHOLD_SEARCH(CudaExecutor)

#define LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_CUDA(V, I) \
    LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_CUDA)

}  // namespace loom::sparse::cuda
