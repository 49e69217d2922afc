// ParILUT / ParICT's pattern search in the executor's memory, written once for OpenMP and CUDA
// from Loom's primitives (the host search, threshold.hpp, computes the same steps row by row):
//  1. candidates: row i of F merged with row i of A and the rows of U its lower entries name
//     (rows.hpp: merge_candidates, a thread per row; on CUDA 8 lanes a row, cuda_threshold.cu;
//     counted then filled): the pattern F u A u pattern(Ls U), each entry valued
//     a_ij - sum_{k < min(i,j)} l_ik u_kj (/ u_jj in L), the host search's sums in the host
//     search's order;
//  2. selection: the budget's largest |values| among the competing entries (the exact k-th
//     largest, selected among the few keys a sorted sample brackets), ties kept in row-major
//     order up to the budget (an exclusive prefix sum ranks them); IC chooses in the upper
//     part and mirrors it;
//  3. compaction by a prefix sum of the keep flags, then one fixed-point sweep (rows.hpp).
// The candidates' sums can still differ from the host's where CUDA contracts a product and
// a sum into a fused multiply-add, so on ties of equal magnitude (3D Poisson is full of them)
// the kept entry can differ from the host search's there.
#pragma once

#include <algorithm>
#include <functional>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "base/parallel.hpp"
#include "base/prefix_sum.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sort/bitonic.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"
#include "sparse/ilu/analysis_unified.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/ilu/profile.hpp"
#include "sparse/ilu/rows.hpp"

namespace loom::sparse::cuda {

/// ParILUT's candidates by 8 lanes a row (cuda_threshold.cu; wider groups for longer rows):
/// the merge of rows.hpp's merge_candidates with a lane per cursor (one per lower entry's row
/// of U, one for F's row, one for A's), the products summed in increasing k as there. Without
/// values (rv == nullptr) count[i] = row i's candidates; with them, row i's candidates at
/// rp[i]: columns rc, values rv (the residuals a_ij - s, L's not yet divided by u_jj), a_ij ra.
/// cursor: scratch of nnz(F) for rows with more lower entries than a warp has lanes for
/// (those merge on one lane).
template <typename D, typename I>
void merge_candidates_by_warps(const CudaExecutor& exec, const detail::FactorPattern<I>& fp,
                               const D* fv, const detail::FactorPattern<I>& ap, const D* av,
                               I* cursor, I* count, const I* rp, I* rc, D* rv, D* ra);

}  // namespace loom::sparse::cuda

namespace loom::sparse::threshold_search {

using factor_analysis::diagonal_positions;
using factor_analysis::for_each_entry;
using factor_analysis::pattern_of;
using factor_analysis::scan;
using loom::detail::kernel_data;
using loom::detail::parallel_for;
using loom::detail::parallel_for_uneven;
using loom::detail::parallel_reduce;

inline constexpr const char* where = "loom::sparse::ilu_symbolic (threshold search)";

struct Plus {
    template <typename T>
    LOOM_HOST_DEVICE T operator()(const T& a, const T& b) const
    {
        return a + b;
    }
};

/// Whether column j of row i lies below the diagonal (or on it, unless strict).
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE bool below(I j, I i, bool strict)
{
    return j < i || (!strict && j == i);
}

/// A's entries on and below the diagonal (strictly below when `strict`), rows as stored.
template <typename Exec, typename V, typename I>
matrix::Csr<V, I> lower_part(const Exec& exec, const matrix::Csr<V, I>& a, bool strict)
{
    const auto n = a.rows();
    const auto ap = pattern_of(a);
    const auto av = kernel_data(exec, a.values().data());
    Array<I> ptrs(a.executor(), n + 1);
    I* count = ptrs.data();
    parallel_for_uneven(
        exec, n,
        [=] LOOM_HOST_DEVICE(size_type row) {
            const auto i = static_cast<I>(row);
            I c = 0;
            for (I p = ap.row_ptrs[i]; p < ap.row_ptrs[i + 1]; ++p) c += below(ap.col_idxs[p], i, strict) ? 1 : 0;
            count[i] = c;
        },
        where);
    scan(exec, ptrs);
    const auto nnz = static_cast<size_type>(loom::detail::load_element(ptrs, n));
    matrix::Csr<V, I> l(a.executor(), dim2{n, n}, nnz);
    l.row_ptrs() = std::move(ptrs);
    const I* lp = l.row_ptrs().data();
    I* lc = l.col_idxs().data();
    auto lv = kernel_data(exec, l.values().data());
    parallel_for_uneven(
        exec, n,
        [=] LOOM_HOST_DEVICE(size_type row) {
            const auto i = static_cast<I>(row);
            I out = lp[i];
            for (I p = ap.row_ptrs[i]; p < ap.row_ptrs[i + 1]; ++p) {
                if (!below(ap.col_idxs[p], i, strict)) continue;
                lc[out] = ap.col_idxs[p];
                lv[out++] = av[p];
            }
        },
        where);
    return l;
}

/// Whether every row of a is strictly increasing (sorted, no duplicates) and holds its
/// diagonal entry: one pass over the rows and one read-back.
template <typename Exec, typename V, typename I>
bool sorted_with_every_diagonal(const Exec& exec, const matrix::Csr<V, I>& a)
{
    const auto ap = pattern_of(a);
    const auto bad = parallel_reduce(
        exec, a.rows(),
        [=] LOOM_HOST_DEVICE(size_type row) {
            const auto i = static_cast<I>(row);
            bool diagonal = false;
            for (I p = ap.row_ptrs[i]; p < ap.row_ptrs[i + 1]; ++p) {
                if (p > ap.row_ptrs[i] && ap.col_idxs[p] <= ap.col_idxs[p - 1]) return size_type{1};
                diagonal = diagonal || ap.col_idxs[p] == i;
            }
            return diagonal ? size_type{0} : size_type{1};
        },
        size_type{0}, Plus{}, where);
    return bad == 0;
}

/// A on the base pattern, with the values the numeric phase gathers (ilu.cpp: gather_lists):
/// A and every diagonal entry (ILU); A's lower triangle and its conjugated mirror (IC).
/// Duplicates are summed and rows sorted by SpAdd; an ILU base of an A whose rows are sorted
/// with every diagonal entry is a copy of A (SpAdd gives the same: 1.3 of ILU(0)'s 16.5 ms
/// symbolic phase on 7-point 100^3, H200).
template <typename Exec, typename V, typename I>
matrix::Csr<V, I> base_matrix(const Exec& exec, const matrix::Csr<V, I>& a, bool cholesky)
{
    const auto n = a.rows();
    if (!cholesky && sorted_with_every_diagonal(exec, a)) return matrix::Csr<V, I>(a.executor(), a);
    matrix::Csr<V, I> zero_diagonal(a.executor(), dim2{n, n}, n);
    I* zp = zero_diagonal.row_ptrs().data();
    I* zc = zero_diagonal.col_idxs().data();
    auto zv = kernel_data(exec, zero_diagonal.values().data());
    using D = std::remove_pointer_t<decltype(zv)>;
    parallel_for(
        exec, n + 1,
        [=] LOOM_HOST_DEVICE(size_type i) {
            zp[i] = static_cast<I>(i);
            if (i < n) {
                zc[i] = static_cast<I>(i);
                zv[i] = D{};
            }
        },
        where);
    if (!cholesky) return spadd(V{1}, a, V{1}, zero_diagonal);
    const auto lower = spadd(V{1}, lower_part(exec, a, false), V{1}, zero_diagonal);
    return spadd(V{1}, lower, V{1}, conj_transpose(lower_part(exec, a, true)));
}

/// One step's candidates: R, F's pattern grown by A's and L U's, holding the candidate
/// values; and A on R's pattern (0 outside A), which the sweep after the compaction reads.
template <typename V, typename I>
struct Candidates {
    matrix::Csr<V, I> r;
    Array<V> a;
};

/// Step 1: the candidates by one merge per row (rows.hpp: merge_candidates; on CUDA a warp
/// per row, merge_candidates_by_warps), counted, then filled: a_ij - s for j >= i,
/// (a_ij - s) / u_jj for j < i.
template <typename Exec, typename V, typename I>
Candidates<V, I> candidates(const Exec& exec, const matrix::Csr<V, I>& a_base,
                            const matrix::Csr<V, I>& f, const Array<I>& diag,
                            detail::IluProfile& profile)
{
    const auto n = f.rows();
    const auto fp = pattern_of(f, &diag);
    const auto ap = pattern_of(a_base);
    const auto fv = kernel_data(exec, f.values().data());
    const auto av = kernel_data(exec, a_base.values().data());
    using D = std::remove_const_t<std::remove_pointer_t<decltype(fv)>>;
    Array<I> cursors(f.executor(), f.nnz());
    I* cursor = cursors.data();
    Array<I> ptrs(f.executor(), n + 1);
    I* count = ptrs.data();
    // CUDA: 8 lanes a row (cuda_threshold.cu; H200, 7-point 100^3, 3 steps: search 9.7 ms,
    // 16.9 with a warp a row, 30.9 with a thread a row).
    constexpr bool by_warps = std::is_same_v<Exec, CudaExecutor>;
    if constexpr (by_warps) {
        cuda::merge_candidates_by_warps<D, I>(exec, fp, fv, ap, av, cursor, count, nullptr,
                                              nullptr, nullptr, nullptr);
    } else {
        parallel_for_uneven(
            exec, n,
            [=] LOOM_HOST_DEVICE(size_type row) {
                I c = 0;
                detail::merge_candidates<false>(fp, fv, ap, av, static_cast<I>(row), cursor,
                                                [&](I, D, D) { ++c; });
                count[row] = c;
            },
            where);
    }
    profile.lap("candidates: count");
    scan(exec, ptrs);
    const auto nnz = static_cast<size_type>(loom::detail::load_element(ptrs, n));
    profile.lap("candidates: scan");
    Candidates<V, I> out{matrix::Csr<V, I>(f.executor(), dim2{n, n}, nnz),
                         Array<V>(f.executor(), nnz)};
    out.r.row_ptrs() = std::move(ptrs);
    const I* rp = out.r.row_ptrs().data();
    I* rc = out.r.col_idxs().data();
    auto rv = kernel_data(exec, out.r.values().data());
    auto ra = kernel_data(exec, out.a.data());
    if constexpr (by_warps) {
        // Residuals only: L's candidates are divided by u_jj in the selection's pass over the
        // keys (off the merge's chain of dependent loads, and no pass of their own).
        cuda::merge_candidates_by_warps<D, I>(exec, fp, fv, ap, av, cursor, nullptr, rp, rc, rv,
                                              ra);
    } else {
        parallel_for_uneven(
            exec, n,
            [=] LOOM_HOST_DEVICE(size_type row) {
                const auto i = static_cast<I>(row);
                I e = rp[i];
                detail::merge_candidates<true>(fp, fv, ap, av, i, cursor,
                                               [&](I j, D a_ij, D sum) {
                                                   const D residual = a_ij - sum;
                                                   rc[e] = j;
                                                   rv[e] = j < i ? residual / fv[fp.diag[j]]
                                                                 : residual;
                                                   ra[e++] = a_ij;
                                               });
            },
            where);
    }
    return out;
}

/// The k-th largest of keys (1 <= k <= keys.size()) by a full selection: on CUDA CUB's radix
/// sort of a copy, on the host nth_element (linear; a full sort was a quarter of the search).
template <typename Exec, typename R>
R kth_largest_of_all(const Exec&, const Array<R>& keys, size_type k)
{
    if constexpr (std::is_same_v<Exec, CudaExecutor>) {
        Array<R> sorted(keys.executor(), keys);
        sort::vendor_sort(sorted, sort::Order::descending);
        return loom::detail::load_element(sorted, k - 1);
    } else {
        auto copy = keys.to_host();
        std::nth_element(copy.begin(), copy.begin() + (k - 1), copy.end(), std::greater<R>());
        return copy[k - 1];
    }
}

/// How many keys lie in [lower, upper].
template <typename Exec, typename R>
size_type count_between(const Exec& exec, const Array<R>& keys, R lower, R upper)
{
    const R* key = keys.data();
    return parallel_reduce(
        exec, keys.size(),
        [=] LOOM_HOST_DEVICE(size_type e) {
            return lower <= key[e] && key[e] <= upper ? size_type{1} : 0;
        },
        size_type{0}, Plus{}, where);
}

/// The keys in [lower, upper] (`count` of them), in their order.
template <typename Exec, typename R, typename I>
Array<R> keys_between(const Exec& exec, const Array<R>& keys, R lower, R upper, size_type count)
{
    const auto n = keys.size();
    const R* key = keys.data();
    Array<I> places(keys.executor(), n + 1);
    I* place = places.data();
    parallel_for(
        exec, n,
        [=] LOOM_HOST_DEVICE(size_type e) {
            place[e] = lower <= key[e] && key[e] <= upper ? 1 : 0;
        },
        where);
    scan(exec, places);
    Array<R> inside(keys.executor(), count);
    R* out = inside.data();
    parallel_for(
        exec, n,
        [=] LOOM_HOST_DEVICE(size_type e) {
            if (place[e + 1] != place[e]) out[place[e]] = key[e];
        },
        where);
    return inside;
}

/// The k-th largest of keys (1 <= k <= keys.size()), selected among few: a sorted sample of
/// the keys brackets it (Ginkgo's ParILUT samples too), a pass counts the keys above and
/// inside the bracket, and only those inside are selected exactly, so the answer is the full
/// selection's. Where the sample misleads (the k-th lies outside), all keys are selected.
/// Was a radix sort of every key: a quarter of the search on the H200 (24 of 94 ms); the few
/// inside (3-12% on 3D Poisson: up to 3 M keys there) are bracketed again the same way.
template <typename I, typename Exec, typename R>
R kth_largest(const Exec& exec, const Array<R>& keys, size_type k, detail::IluProfile& profile)
{
    constexpr size_type samples = 4096;
    const auto n = keys.size();
    if (n <= 16 * samples) {
        const auto kth = kth_largest_of_all(exec, keys, k);
        profile.lap("selection: k-th: sort of the few");
        return kth;
    }
    // One key of each of `samples` equal strata, at an offset hashed from the stratum.
    Array<R> drawn(keys.executor(), samples);
    R* sample = drawn.data();
    const R* key = keys.data();
    parallel_for(
        exec, samples,
        [=] LOOM_HOST_DEVICE(size_type t) {
            const size_type begin = t * n / samples;
            const size_type width = (t + 1) * n / samples - begin;
            sample[t] = key[begin + (t * size_type{2654435761u}) % width];
        },
        where);
    auto ranked = drawn.to_host();
    const R infinity = std::numeric_limits<R>::infinity();
    // A not-a-number key (a candidate over a zero pivot) would break the selection's ordering;
    // as the smallest it only moves the bracket, which the counts below check.
    for (auto& key_drawn : ranked) key_drawn = key_drawn == key_drawn ? key_drawn : -infinity;
    // The k-th's expected rank in the sample, give or take four standard deviations.
    const double q = static_cast<double>(k) / static_cast<double>(n);
    const double centre = q * samples;
    const double margin = 4 * std::sqrt(samples * q * (1 - q)) + 16;
    // The sample's keys of those two ranks (descending order) by two selections, not a sort of
    // the sample (4096 keys on the host: ~190 us against ~50 us, this machine).
    const bool has_upper = centre - margin >= 0;
    const bool has_lower = centre + margin < samples;
    const auto upper_rank = has_upper ? static_cast<size_type>(centre - margin) : 0;
    const auto lower_rank = has_lower ? static_cast<size_type>(centre + margin) : 0;
    if (has_upper) {
        std::nth_element(ranked.begin(), ranked.begin() + upper_rank, ranked.end(),
                         std::greater<R>());
    }
    if (has_lower) {
        // After the first selection the keys past upper_rank are those at or below it.
        const auto from = has_upper ? ranked.begin() + (upper_rank + 1) : ranked.begin();
        std::nth_element(from, ranked.begin() + lower_rank, ranked.end(), std::greater<R>());
    }
    profile.lap("selection: k-th: sample");
    const R upper = has_upper ? ranked[upper_rank] : infinity;
    const R lower = has_lower ? ranked[lower_rank] : -infinity;
    // Both counts in one pass while they fit 32 bits each (a pass over the keys and a wait
    // for its sum fewer; a key not a number is in neither, as in count_between).
    size_type above = 0;
    size_type inside = 0;
    if (n < (size_type{1} << 32)) {
        const auto both = parallel_reduce(
            exec, n,
            [=] LOOM_HOST_DEVICE(size_type e) {
                return (key[e] > upper ? size_type{1} << 32 : size_type{0}) +
                       (lower <= key[e] && key[e] <= upper ? size_type{1} : size_type{0});
            },
            size_type{0}, Plus{}, where);
        above = both >> 32;
        inside = both & 0xffffffffu;
    } else {
        above = upper == infinity
                    ? 0
                    : count_between(exec, keys, std::nextafter(upper, infinity), infinity);
        inside = count_between(exec, keys, lower, upper);
    }
    profile.lap("selection: k-th: bracket counts");
    if (above >= k || above + inside < k || inside == n) return kth_largest_of_all(exec, keys, k);
    // A bracket of one value (a swarm of ties) holds the k-th; else the few keys inside are
    // selected among alike: sampled again while more than the sample's 16 strata of them.
    if (lower == upper) return lower;
    const auto few = keys_between<Exec, R, I>(exec, keys, lower, upper, inside);
    profile.lap("selection: k-th: bracket compaction");
    return kth_largest<I>(exec, few, k - above, profile);
}

/// Step 2: keep[e] = 1 for the entries of r that stay (one spare element at the end, for the
/// prefix sum that turns the flags into positions).
/// pivots (CUDA, whose merge stores residuals): F's values and diagonal positions, by whose
/// u_jj L's candidates (j < i) are divided here first; nullptr where they already are.
template <typename Exec, typename V, typename I, typename D>
Array<I> selection(const Exec& exec, matrix::Csr<V, I>& r,
                   const Array<remove_complex_t<V>>& row_norm,
                   const detail::ThresholdParams& params, const D* pivots,
                   const I* pivot_positions, detail::IluProfile& profile)
{
    using R = remove_complex_t<V>;
    const auto nnz = r.nnz();
    const auto rp = pattern_of(r);
    const auto rv = kernel_data(exec, r.values().data());
    const R* norm = row_norm.data();
    const bool cholesky = params.cholesky;
    const double drop = params.drop_tolerance;
    // The magnitude of every competing entry, -1 for the others.
    Array<R> keys(r.executor(), nnz);
    R* key = keys.data();
    for_each_entry(exec, rp, [=] LOOM_HOST_DEVICE(I i, I e) {
        const I j = rp.col_idxs[e];
        if (pivots != nullptr && j < i) rv[e] = rv[e] / pivots[pivot_positions[j]];
        const R m = detail::magnitude(rv[e]);
        const bool competes = j != i && (!cholesky || j > i) && !(m < drop * norm[i]);
        key[e] = competes ? m : R{-1};
    });
    const auto competing = parallel_reduce(
        exec, nnz, [=] LOOM_HOST_DEVICE(size_type e) { return key[e] >= 0 ? size_type{1} : 0; },
        size_type{0}, Plus{}, where);
    profile.lap("selection: keys");
    // Everything stays when it fits (threshold 0, every tie), nothing when there is no room.
    R threshold = 0;
    size_type ties = competing;
    if (competing > params.budget) {
        if (params.budget == 0) {
            threshold = std::numeric_limits<R>::infinity();
            ties = 0;
        } else {
            threshold = kth_largest<I>(exec, keys, params.budget, profile);
            const auto above = parallel_reduce(
                exec, nnz,
                [=] LOOM_HOST_DEVICE(size_type e) { return key[e] > threshold ? size_type{1} : 0; },
                size_type{0}, Plus{}, where);
            ties = params.budget - above;
        }
    }
    profile.lap("selection: k-th largest");
    // Ties ranked in row-major order: rank[e] = tied entries before e.
    Array<I> ranks(r.executor(), nnz + 1);
    I* rank = ranks.data();
    parallel_for(
        exec, nnz, [=] LOOM_HOST_DEVICE(size_type e) { rank[e] = key[e] == threshold ? 1 : 0; },
        where);
    scan(exec, ranks);
    Array<I> keep(r.executor(), nnz + 1);
    I* kept = keep.data();
    const auto tie_limit = static_cast<I>(ties);
    for_each_entry(exec, rp, [=] LOOM_HOST_DEVICE(I i, I e) {
        const bool stays = key[e] > threshold || (key[e] == threshold && rank[e] < tie_limit);
        kept[e] = rp.col_idxs[e] == i || (key[e] >= 0 && stays) ? 1 : 0;
    });
    if (cholesky) {
        // The lower part mirrors the upper one (R's pattern is symmetric for IC).
        for_each_entry(exec, rp, [=] LOOM_HOST_DEVICE(I i, I e) {
            if (rp.col_idxs[e] >= i) return;
            const I mirror = detail::find_in_row(rp, rp.col_idxs[e], i);
            kept[e] = mirror >= 0 ? kept[mirror] : 0;
        });
    }
    return keep;
}

/// Step 3: the kept candidates with their values, and A's values on the kept pattern.
template <typename Exec, typename V, typename I>
Candidates<V, I> compact(const Exec& exec, const Candidates<V, I>& in, Array<I> keep)
{
    const auto& r = in.r;
    const auto n = r.rows();
    scan(exec, keep);
    const auto nnz = static_cast<size_type>(loom::detail::load_element(keep, r.nnz()));
    Candidates<V, I> out{matrix::Csr<V, I>(r.executor(), dim2{n, n}, nnz),
                         Array<V>(r.executor(), nnz)};
    const auto rp = pattern_of(r);
    const auto rv = kernel_data(exec, r.values().data());
    const auto ra = kernel_data(exec, in.a.data());
    const I* pos = keep.data();
    I* fp = out.r.row_ptrs().data();
    I* fc = out.r.col_idxs().data();
    auto fv = kernel_data(exec, out.r.values().data());
    auto fa = kernel_data(exec, out.a.data());
    parallel_for(
        exec, n + 1, [=] LOOM_HOST_DEVICE(size_type i) { fp[i] = pos[rp.row_ptrs[i]]; }, where);
    parallel_for(
        exec, r.nnz(),
        [=] LOOM_HOST_DEVICE(size_type e) {
            if (pos[e + 1] == pos[e]) return;
            fc[pos[e]] = rp.col_idxs[e];
            fv[pos[e]] = rv[e];
            fa[pos[e]] = ra[e];
        },
        where);
    return out;
}

/// values of f = one fixed-point sweep from its values, a_f: A on f's pattern, by the
/// numeric phase's sweep (kernels.hpp: on CUDA 8 lanes a row, not a thread).
template <typename Exec, typename V, typename I>
void sweep(const Exec& exec, const Array<V>& a_f, matrix::Csr<V, I>& f, const Array<I>& diag)
{
    const auto fp = pattern_of(f, &diag);
    Array<V> swept(f.executor(), f.nnz());
    if constexpr (std::is_same_v<Exec, CudaExecutor>) {
        cuda::ilu_sweep(exec, fp, a_f.data(), f.values().data(), swept.data());
    } else {
        omp::ilu_sweep(exec, fp, a_f.data(), f.values().data(), swept.data());
    }
    f.values() = std::move(swept);
}

/// The 2-norm of every row of A.
template <typename Exec, typename V, typename I>
Array<remove_complex_t<V>> row_norms(const Exec& exec, const matrix::Csr<V, I>& a)
{
    using R = remove_complex_t<V>;
    Array<R> norms(a.executor(), a.rows());
    const auto ap = pattern_of(a);
    const auto av = kernel_data(exec, a.values().data());
    R* out = norms.data();
    parallel_for_uneven(
        exec, a.rows(),
        [=] LOOM_HOST_DEVICE(size_type i) {
            R sum = 0;
            for (I p = ap.row_ptrs[i]; p < ap.row_ptrs[i + 1]; ++p) {
                const R m = detail::magnitude(av[p]);
                sum += m * m;
            }
            out[i] = detail::square_root(sum);
        },
        where);
    return norms;
}

/// The search: Chow-Patel's starting point on the base pattern, then params.steps times
/// candidates, selection, compaction and a sweep.
template <typename Exec, typename V, typename I>
matrix::Csr<V, I> search(const Exec& exec, const matrix::Csr<V, I>& a_base,
                         const detail::ThresholdParams& params)
{
    matrix::Csr<V, I> f(a_base.executor(), a_base);
    auto f_diag = diagonal_positions(exec, a_base);
    {
        const auto bp = pattern_of(a_base, &f_diag);
        const auto av = kernel_data(exec, a_base.values().data());
        auto fv = kernel_data(exec, f.values().data());
        for_each_entry(exec, bp, [=] LOOM_HOST_DEVICE(I i, I p) {
            fv[p] = detail::initial_entry(bp, i, p, av);
        });
    }
    const auto norms = row_norms(exec, a_base);
    detail::IluProfile profile(exec, "threshold search");
    for (int step = 0; step < params.steps; ++step) {
        auto c = candidates(exec, a_base, f, f_diag, profile);
        profile.lap("candidates: fill");
        const auto f_values = kernel_data(exec, f.values().data());
        using D = std::remove_const_t<std::remove_pointer_t<decltype(f_values)>>;
        const bool divided = !std::is_same_v<Exec, CudaExecutor>;
        auto keep = selection(exec, c.r, norms, params,
                              divided ? static_cast<const D*>(nullptr) : f_values,
                              divided ? static_cast<const I*>(nullptr) : f_diag.data(), profile);
        profile.lap("selection: ties, flags");
        auto kept = compact(exec, c, std::move(keep));
        f = std::move(kept.r);
        f_diag = diagonal_positions(exec, f);
        profile.lap("compaction");
        sweep(exec, kept.a, f, f_diag);
        profile.lap("sweep");
    }
    return f;
}

}  // namespace loom::sparse::threshold_search

#define LOOM_DEFINE_ILU_THRESHOLD_SEARCH(Exec)                                                  \
    template <typename V, typename I>                                                          \
    detail::FactorAnalysis<V, I> ilu_analyse(const Exec& exec, const matrix::Csr<V, I>& A,     \
                                             const matrix::Csr<V, I>& F, bool cholesky)        \
    {                                                                                          \
        return factor_analysis::analyse(exec, A, F, cholesky);                                 \
    }                                                                                          \
    template <typename V, typename I>                                                          \
    matrix::Csr<V, I> ilu_threshold_base(const Exec& exec, const matrix::Csr<V, I>& A,         \
                                         bool cholesky)                                        \
    {                                                                                          \
        return threshold_search::base_matrix(exec, A, cholesky);                               \
    }                                                                                          \
    template <typename V, typename I>                                                          \
    matrix::Csr<V, I> ilu_threshold_search(const Exec& exec, const matrix::Csr<V, I>& a_base,  \
                                           const detail::ThresholdParams& params)              \
    {                                                                                          \
        return threshold_search::search(exec, a_base, params);                                 \
    }
