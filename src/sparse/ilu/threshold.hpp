// ParILUT / ParICT's pattern search on the host (Anzt, Chow, Dongarra 2018; Ginkgo's
// par_ilut), row by row, for the reference backend (OpenMP and CUDA run the same steps in
// their own memory on flat arrays: threshold_unified.hpp); for_rows(n, body) runs the loop
// over rows. Each step:
//  1. candidates: row i of F grows by the pattern of row i of L U and of A; every entry gets
//     its residual-based value a_ij - sum_{k < min(i,j)} l_ik u_kj (divided by u_jj in L),
//     which for entries already in F is one fixed-point sweep (the same merge per row as the
//     executors', rows.hpp: merge_candidates, so the same sums in the same order);
//  2. drop: off-diagonal entries below the drop tolerance go, then the smallest until the
//     budget holds (an exact selection by nth_element); IC keeps F symmetric by choosing in
//     the upper part and mirroring it;
//  3. one fixed-point sweep on the new pattern.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "sparse/ilu/kernels.hpp"
#include "sparse/ilu/rows.hpp"

namespace loom::sparse::detail {

/// A factor F owned on the host.
template <typename V, typename I>
struct HostFactor {
    std::vector<I> ptrs;
    std::vector<I> cols;
    std::vector<I> diag;
    std::vector<V> values;

    FactorPattern<I> view() const
    {
        return {static_cast<size_type>(diag.size()), static_cast<size_type>(cols.size()),
                ptrs.data(), cols.data(), diag.data()};
    }
    /// diag from ptrs and cols (every row holds its diagonal).
    void find_diagonal()
    {
        const auto n = static_cast<I>(ptrs.size()) - 1;
        diag.assign(n, 0);
        for (I i = 0; i < n; ++i) diag[i] = find_in_row(view(), i, i);
    }
};

/// a_ij from A on the base pattern, 0 outside it.
template <typename V, typename I>
V entry_of(const FactorPattern<I>& base, const V* a_f, I i, I j)
{
    const I p = find_in_row(base, i, j);
    return p >= 0 ? a_f[p] : V{};
}

/// Step 1 for row i: the candidate columns (sorted) and their values, by the merge the
/// executors' search runs too (rows.hpp: merge_candidates; cursor: scratch, one per entry of
/// cur).
template <typename V, typename I>
void candidate_row(const HostFactor<V, I>& cur, const FactorPattern<I>& base, const V* a_f,
                   I i, I* cursor, std::vector<I>& cols, std::vector<V>& values)
{
    cols.clear();
    values.clear();
    merge_candidates<true>(cur.view(), cur.values.data(), base, a_f, i, cursor,
                           [&](I j, V a_ij, V sum) {
                               const V r = a_ij - sum;
                               cols.push_back(j);
                               values.push_back(j < i ? r / cur.values[cur.diag[j]] : r);
                           });
}

/// The smallest magnitude an off-diagonal entry needs to stay among the `budget` largest of
/// `magnitudes`, and how many entries of exactly that magnitude may stay; everything stays
/// (threshold 0, all ties) when they fit.
template <typename R>
std::pair<R, size_type> selection_threshold(std::vector<R> magnitudes, size_type budget)
{
    const auto count = static_cast<size_type>(magnitudes.size());
    if (count <= budget) return {R{0}, count};
    if (budget == 0) return {std::numeric_limits<R>::infinity(), 0};
    std::nth_element(magnitudes.begin(), magnitudes.begin() + (budget - 1), magnitudes.end(),
                     std::greater<R>());
    const R threshold = magnitudes[budget - 1];
    const auto above = std::count_if(magnitudes.begin(), magnitudes.end(),
                                     [&](R m) { return m > threshold; });
    return {threshold, budget - static_cast<size_type>(above)};
}

template <typename V, typename I, typename ForRows>
void threshold_pattern(const FactorPattern<I>& base, const V* a_f, const ThresholdParams& params,
                       ForRows for_rows, std::vector<I>& out_ptrs, std::vector<I>& out_cols)
{
    using R = remove_complex_t<V>;
    const auto n = static_cast<I>(base.n);
    HostFactor<V, I> cur;
    cur.ptrs.assign(base.row_ptrs, base.row_ptrs + n + 1);
    cur.cols.assign(base.col_idxs, base.col_idxs + cur.ptrs[n]);
    cur.diag.assign(base.diag, base.diag + n);
    cur.values.resize(cur.cols.size());
    for_rows(n, [&](I i) {
        for (I p = cur.ptrs[i]; p < cur.ptrs[i + 1]; ++p) {
            cur.values[p] = initial_entry(base, i, p, a_f);
        }
    });
    std::vector<R> row_norm(n);
    for (I i = 0; i < n; ++i) {
        R sum = 0;
        for (I p = base.row_ptrs[i]; p < base.row_ptrs[i + 1]; ++p) sum += squared_norm(a_f[p]);
        row_norm[i] = std::sqrt(sum);
    }
    std::vector<std::vector<I>> cand_cols(n);
    std::vector<std::vector<V>> cand_values(n);
    for (int step = 0; step < params.steps; ++step) {
        std::vector<I> cursor(cur.cols.size());
        for_rows(n, [&](I i) {
            candidate_row(cur, base, a_f, i, cursor.data(), cand_cols[i], cand_values[i]);
        });
        // Which entries compete for the budget: off-diagonal ones above the drop tolerance,
        // IC only in the upper part.
        const auto competes = [&](I i, I j, const V& v) {
            return j != i && (!params.cholesky || j > i) &&
                   !(std::abs(v) < params.drop_tolerance * row_norm[i]);
        };
        std::vector<R> magnitudes;
        for (I i = 0; i < n; ++i) {
            for (size_type t = 0; t < static_cast<size_type>(cand_cols[i].size()); ++t) {
                if (competes(i, cand_cols[i][t], cand_values[i][t])) {
                    magnitudes.push_back(std::abs(cand_values[i][t]));
                }
            }
        }
        auto [threshold, ties] = selection_threshold(std::move(magnitudes), params.budget);
        std::vector<std::vector<I>> kept(n);
        for (I i = 0; i < n; ++i) {
            for (size_type t = 0; t < static_cast<size_type>(cand_cols[i].size()); ++t) {
                const I j = cand_cols[i][t];
                const V v = cand_values[i][t];
                bool keep = j == i;
                if (competes(i, j, v)) {
                    const R m = std::abs(v);
                    keep = m > threshold || (m == threshold && ties > 0 && ties-- > 0);
                }
                if (!keep) continue;
                kept[i].push_back(j);
                if (params.cholesky && j > i) kept[j].push_back(i);
            }
        }
        HostFactor<V, I> next;
        next.ptrs.assign(n + 1, 0);
        for (I i = 0; i < n; ++i) {
            std::sort(kept[i].begin(), kept[i].end());
            next.ptrs[i + 1] = next.ptrs[i] + static_cast<I>(kept[i].size());
            for (const I j : kept[i]) {
                const auto& cc = cand_cols[i];
                const auto at = std::lower_bound(cc.begin(), cc.end(), j);
                next.cols.push_back(j);
                next.values.push_back(at != cc.end() && *at == j ? cand_values[i][at - cc.begin()]
                                                                 : V{});
            }
        }
        next.find_diagonal();
        std::vector<V> a_next(next.cols.size());
        std::vector<V> swept(next.cols.size());
        const auto view = next.view();
        for_rows(n, [&](I i) {
            for (I p = next.ptrs[i]; p < next.ptrs[i + 1]; ++p) {
                a_next[p] = entry_of(base, a_f, i, next.cols[p]);
            }
        });
        for_rows(n, [&](I i) {
            for (I p = next.ptrs[i]; p < next.ptrs[i + 1]; ++p) {
                swept[p] = sweep_entry(view, i, p, a_next.data(), next.values.data());
            }
        });
        next.values = std::move(swept);
        cur = std::move(next);
    }
    out_ptrs = std::move(cur.ptrs);
    out_cols = std::move(cur.cols);
}

}  // namespace loom::sparse::detail
