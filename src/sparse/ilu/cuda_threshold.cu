// CUDA ParILUT / ParICT pattern search on the device (threshold_unified.hpp), and its
// candidates' merge by a warp per row.
#include <limits>

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

/// Row i's candidates (rows.hpp: merge_candidates) by one warp: lane t < lower walks row k_t
/// of U (from its first entry right of the diagonal), lane `lower` F's row i, lane
/// `lower + 1` A's row i, each holding its next column (and value) ahead of use. Per column j,
/// the smallest over the lanes: the lanes at j add their products l_ik u_kj in lane order,
/// which is increasing k, each product rounded before the sum as on the host (the host's
/// sums, bit for bit, for real types), and lane 0 emits. Rows with more lower entries than
/// lanes merge on lane 0 (merge_candidates with the scratch cursors).
template <bool Values, typename D, typename I>
__global__ void __launch_bounds__(merge_block_size)
    merge_candidates_kernel(detail::FactorPattern<I> fp, const D* fv, detail::FactorPattern<I> ap,
                            const D* av, I* cursor, I* count, const I* rp, I* rc, D* rv, D* ra)
{
    using loom::cuda::full_mask;
    using loom::cuda::shuffle;
    constexpr I none = std::numeric_limits<I>::max();
    const long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) /
                           loom::cuda::warp_size;
    const int lane = static_cast<int>(threadIdx.x % loom::cuda::warp_size);
    if (warp >= static_cast<long long>(fp.n)) return;  // the whole warp
    const auto i = static_cast<I>(warp);
    const I lower_begin = fp.row_ptrs[i];
    const int lower = static_cast<int>(fp.diag[i] - lower_begin);
    // The residual only: L's entries are divided by u_jj in a pass of their own
    // (divide_lower_candidates), off this loop's chain of dependent loads.
    const auto emit_at = [=](I e, I j, D a_ij, D sum) {
        rc[e] = j;
        rv[e] = a_ij - sum;
        ra[e] = a_ij;
    };
    if (lower + merge_extra_lanes > loom::cuda::warp_size) {
        if (lane != 0) return;
        I e = Values ? rp[i] : I{0};
        detail::merge_candidates<Values>(fp, fv, ap, av, i, cursor, [&](I j, D a_ij, D sum) {
            if constexpr (Values) emit_at(e, j, a_ij, sum);
            ++e;
        });
        if (count != nullptr) count[i] = Values ? e - rp[i] : e;
        return;
    }
    const int a_lane = lower + 1;
    I c = 0;
    I end = 0;
    const I* cols = fp.col_idxs;
    const D* vals = fv;
    D l{};
    if (lane < lower) {
        const I p = lower_begin + lane;
        const I k = fp.col_idxs[p];
        c = fp.diag[k] + 1;
        end = fp.row_ptrs[k + 1];
        if constexpr (Values) l = fv[p];
    } else if (lane == lower) {
        c = fp.row_ptrs[i];
        end = fp.row_ptrs[i + 1];
    } else if (lane == a_lane) {
        cols = ap.col_idxs;
        vals = av;
        c = ap.row_ptrs[i];
        end = ap.row_ptrs[i + 1];
    }
    const bool has_value = Values && (lane < lower || lane == a_lane);
    I col = c < end ? cols[c] : none;
    I next_col = c + 1 < end ? cols[c + 1] : none;
    D value = has_value && c < end ? vals[c] : D{};
    D next_value = has_value && c + 1 < end ? vals[c + 1] : D{};
    I e = Values ? rp[i] : I{0};
    // Values: lane t holds the row's candidate 32 m + t until the warp stores 32 of them at
    // once (lane 0 storing each one was 3x the count pass: H200, 7-point 100^3).
    I flushed = e;
    I buffered_col = 0;
    D buffered_residual{};
    D buffered_a{};
    for (;;) {
        I j = col;
#pragma unroll
        for (int offset = loom::cuda::warp_size / 2; offset > 0; offset /= 2) {
            const I other = __shfl_xor_sync(full_mask, j, offset);
            j = other < j ? other : j;
        }
        if (j == none) break;
        const bool hit = col == j;
        if constexpr (Values) {
            const D term = hit && lane < lower ? l * value : D{};
            unsigned terms = __ballot_sync(full_mask, hit && lane < lower);
            D sum{};
            while (terms != 0) {
                sum += shuffle(term, __ffs(terms) - 1);
                terms &= terms - 1;
            }
            const D a_ij = shuffle(hit && lane == a_lane ? value : D{}, a_lane);
            if (lane == static_cast<int>(e - flushed)) {
                buffered_col = j;
                buffered_residual = a_ij - sum;
                buffered_a = a_ij;
            }
            if (e + 1 - flushed == loom::cuda::warp_size) {
                rc[flushed + lane] = buffered_col;
                rv[flushed + lane] = buffered_residual;
                ra[flushed + lane] = buffered_a;
                flushed = e + 1;
            }
        }
        ++e;
        if (hit) {
            ++c;
            col = next_col;
            value = next_value;
            next_col = c + 1 < end ? cols[c + 1] : none;
            if (has_value && c + 1 < end) next_value = vals[c + 1];
        }
    }
    if constexpr (Values) {
        if (lane < static_cast<int>(e - flushed)) {
            rc[flushed + lane] = buffered_col;
            rv[flushed + lane] = buffered_residual;
            ra[flushed + lane] = buffered_a;
        }
    }
    if (count != nullptr && lane == 0) count[i] = Values ? e - rp[i] : e;
}

}  // namespace

template <typename D, typename I>
void merge_candidates_by_warps(const CudaExecutor& exec, const detail::FactorPattern<I>& fp,
                               const D* fv, const detail::FactorPattern<I>& ap, const D* av,
                               I* cursor, I* count, const I* rp, I* rc, D* rv, D* ra)
{
    if (fp.n == 0) return;
    const auto blocks = static_cast<unsigned>(loom::cuda::ceildiv(
        static_cast<long long>(fp.n) * loom::cuda::warp_size, merge_block_size));
    const auto stream = loom::cuda::stream_of(exec);
    if (rv == nullptr) {
        merge_candidates_kernel<false><<<blocks, merge_block_size, 0, stream>>>(
            fp, fv, ap, av, cursor, count, rp, rc, rv, ra);
    } else {
        merge_candidates_kernel<true><<<blocks, merge_block_size, 0, stream>>>(
            fp, fv, ap, av, cursor, count, rp, rc, rv, ra);
    }
    loom::cuda::check_launch(threshold_search::where);
}

LOOM_DEFINE_ILU_THRESHOLD_SEARCH(CudaExecutor)

#define LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_CUDA(V, I) \
    LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_CUDA)

}  // namespace loom::sparse::cuda
