// ParILUT / ParICT's pattern search in the executor's memory, written once for OpenMP and CUDA
// from Loom's primitives (the host search, threshold.hpp, computes the same steps row by row):
//  1. candidates: with L = F's strictly lower part plus a unit diagonal and U its upper part,
//     R = A - L U (SpGEMM, SpAdd) has the pattern F u A u pattern(Ls U); the candidate value
//     of (i, j) is R_ij + u_ij for j >= i and R_ij / u_jj + l_ij for j < i, i.e.
//     a_ij - sum_{k < min(i,j)} l_ik u_kj (/ u_jj in L), as the host search's;
//  2. selection: the budget's largest |values| among the competing entries (the k-th largest
//     by CUB's radix sort of the magnitudes on CUDA, nth_element on the host), ties kept in
//     row-major order up to the budget (an exclusive prefix sum ranks them); IC chooses in
//     the upper part and mirrors it;
//  3. compaction by a prefix sum of the keep flags, then one fixed-point sweep (rows.hpp).
// The sums of SpGEMM run in another order than the host's, so on ties of equal magnitude
// (3D Poisson is full of them) the kept entry can differ from the host search's.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <type_traits>

#include "base/parallel.hpp"
#include "base/prefix_sum.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sort/bitonic.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"
#include "loom/sparse/spgemm.hpp"
#include "sparse/ilu/analysis_unified.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/ilu/profile.hpp"
#include "sparse/ilu/rows.hpp"

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

/// A on the base pattern, with the values the numeric phase gathers (ilu.cpp: gather_lists):
/// A and every diagonal entry (ILU); A's lower triangle and its conjugated mirror (IC).
/// Duplicates are summed and rows sorted by SpAdd.
template <typename Exec, typename V, typename I>
matrix::Csr<V, I> base_matrix(const Exec& exec, const matrix::Csr<V, I>& a, bool cholesky)
{
    const auto n = a.rows();
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

/// L (F's strictly lower part and a unit diagonal) and U (F's upper part), whose product's
/// pattern is F u pattern(Ls Us): the split of the symbolic phase, F's values extracted.
template <typename Exec, typename V, typename I>
void split_factor(const Exec& exec, const matrix::Csr<V, I>& f, const Array<I>& diag,
                  matrix::Csr<V, I>& l, matrix::Csr<V, I>& u)
{
    const auto fp = pattern_of(f, &diag);
    Array<I> l_index, u_index;
    factor_analysis::split_pattern(exec, fp, false, l, u, l_index, u_index);
    const auto fv = kernel_data(exec, f.values().data());
    const I* li = l_index.data();
    const I* ui = u_index.data();
    auto lv = kernel_data(exec, l.values().data());
    auto uv = kernel_data(exec, u.values().data());
    parallel_for_uneven(
        exec, f.rows(),
        [=] LOOM_HOST_DEVICE(size_type i) {
            detail::extract_row(fp, static_cast<I>(i), fv, li, ui, false, lv, uv);
        },
        where);
}

/// Step 1: the candidates, R's pattern with the residual-based values.
template <typename Exec, typename V, typename I>
matrix::Csr<V, I> candidates(const Exec& exec, const matrix::Csr<V, I>& a_base,
                             const matrix::Csr<V, I>& f, const Array<I>& diag,
                             detail::IluProfile& profile)
{
    matrix::Csr<V, I> l, u;
    split_factor(exec, f, diag, l, u);
    profile.lap("split");
    const auto lu = spgemm(l, u);
    profile.lap("spgemm");
    auto r = spadd(V{1}, a_base, V{-1}, lu);
    profile.lap("spadd");
    const auto fp = pattern_of(f, &diag);
    const auto fv = kernel_data(exec, f.values().data());
    const auto rp = pattern_of(r);
    auto rv = kernel_data(exec, r.values().data());
    for_each_entry(exec, rp, [=] LOOM_HOST_DEVICE(I i, I e) {
        const I j = rp.col_idxs[e];
        const I p = detail::find_in_row(fp, i, j);
        auto value = rv[e];
        if (j < i) value = value / fv[fp.diag[j]];
        if (p >= 0) value += fv[p];
        rv[e] = value;
    });
    return r;
}

/// The k-th largest of keys (1 <= k <= keys.size()): on CUDA by CUB's radix sort of a copy,
/// on the host by nth_element (linear; a full sort was the largest cost of the OpenMP search).
template <typename Exec, typename R>
R kth_largest(const Exec&, const Array<R>& keys, size_type k)
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

/// Step 2: keep[e] = 1 for the entries of r that stay (one spare element at the end, for the
/// prefix sum that turns the flags into positions).
template <typename Exec, typename V, typename I>
Array<I> selection(const Exec& exec, const matrix::Csr<V, I>& r,
                   const Array<remove_complex_t<V>>& row_norm,
                   const detail::ThresholdParams& params)
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
        const R m = detail::magnitude(rv[e]);
        const bool competes = j != i && (!cholesky || j > i) && !(m < drop * norm[i]);
        key[e] = competes ? m : R{-1};
    });
    const auto competing = parallel_reduce(
        exec, nnz, [=] LOOM_HOST_DEVICE(size_type e) { return key[e] >= 0 ? size_type{1} : 0; },
        size_type{0}, Plus{}, where);
    // Everything stays when it fits (threshold 0, every tie), nothing when there is no room.
    R threshold = 0;
    size_type ties = competing;
    if (competing > params.budget) {
        if (params.budget == 0) {
            threshold = std::numeric_limits<R>::infinity();
            ties = 0;
        } else {
            threshold = kth_largest(exec, keys, params.budget);
            const auto above = parallel_reduce(
                exec, nnz,
                [=] LOOM_HOST_DEVICE(size_type e) { return key[e] > threshold ? size_type{1} : 0; },
                size_type{0}, Plus{}, where);
            ties = params.budget - above;
        }
    }
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

/// Step 3: the kept entries of r with their candidate values.
template <typename Exec, typename V, typename I>
matrix::Csr<V, I> compact(const Exec& exec, const matrix::Csr<V, I>& r, Array<I> keep)
{
    const auto n = r.rows();
    scan(exec, keep);
    const auto nnz = static_cast<size_type>(loom::detail::load_element(keep, r.nnz()));
    matrix::Csr<V, I> f(r.executor(), dim2{n, n}, nnz);
    const auto rp = pattern_of(r);
    const auto rv = kernel_data(exec, r.values().data());
    const I* pos = keep.data();
    I* fp = f.row_ptrs().data();
    I* fc = f.col_idxs().data();
    auto fv = kernel_data(exec, f.values().data());
    parallel_for(
        exec, n + 1, [=] LOOM_HOST_DEVICE(size_type i) { fp[i] = pos[rp.row_ptrs[i]]; }, where);
    parallel_for(
        exec, r.nnz(),
        [=] LOOM_HOST_DEVICE(size_type e) {
            if (pos[e + 1] == pos[e]) return;
            fc[pos[e]] = rp.col_idxs[e];
            fv[pos[e]] = rv[e];
        },
        where);
    return f;
}

/// values of f = one fixed-point sweep from its values, A taken from a_base.
template <typename Exec, typename V, typename I>
void sweep(const Exec& exec, const matrix::Csr<V, I>& a_base, matrix::Csr<V, I>& f,
           const Array<I>& diag)
{
    const auto ap = pattern_of(a_base);
    const auto av = kernel_data(exec, a_base.values().data());
    const auto fp = pattern_of(f, &diag);
    Array<V> a_f(f.executor(), f.nnz());
    Array<V> swept(f.executor(), f.nnz());
    auto a = kernel_data(exec, a_f.data());
    auto out = kernel_data(exec, swept.data());
    const auto old = kernel_data(exec, f.values().data());
    using D = loom::detail::kernel_type_t<Exec, V>;
    for_each_entry(exec, fp, [=] LOOM_HOST_DEVICE(I i, I p) {
        const I q = detail::find_in_row(ap, i, fp.col_idxs[p]);
        a[p] = q >= 0 ? av[q] : D{};
    });
    for_each_entry(exec, fp, [=] LOOM_HOST_DEVICE(I i, I p) {
        out[p] = detail::sweep_entry(fp, i, p, a, old);
    });
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
        const auto r = candidates(exec, a_base, f, f_diag, profile);
        profile.lap("candidates");
        auto keep = selection(exec, r, norms, params);
        profile.lap("selection");
        f = compact(exec, r, std::move(keep));
        f_diag = diagonal_positions(exec, f);
        profile.lap("compaction");
        sweep(exec, a_base, f, f_diag);
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
