// The symbolic phase's analysis of F's pattern in the executor's memory, written once on the
// unified launchers for OpenMP and CUDA (the reference analyses on the host, ilu.cpp): each
// row's diagonal position, the gather lists (which entries of A make each entry of F) and
// the split of F into L's and U's patterns with l_index / u_index (rows.hpp: extract_row).
// Also the helpers the threshold search (threshold_unified.hpp) shares.
#pragma once

#include <type_traits>

#include "base/parallel.hpp"
#include "base/prefix_sum.hpp"
#include "loom/matrix/csr.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/ilu/rows.hpp"
#include "sparse/ilu/threshold_search.hpp"

namespace loom::sparse::factor_analysis {

using loom::detail::kernel_data;
using loom::detail::parallel_for;
using loom::detail::parallel_for_uneven;

inline constexpr const char* where = "loom::sparse::ilu_symbolic";

/// body(i, e) for every entry e of every row i of p (bodies independent of each other): on
/// CUDA 8 iterations a row, neighbouring ones on neighbouring entries (a thread per row read
/// its entries ~25 apart from its neighbours': H200, ParILUT 7-point 100^3, the selection's
/// keys 1.7 ms a step); elsewhere a row per iteration.
template <typename Exec, typename I, typename Body>
void for_each_entry(const Exec& exec, const detail::FactorPattern<I>& p, Body body)
{
    if constexpr (std::is_same_v<Exec, CudaExecutor>) {
        constexpr size_type lanes = 8;
        parallel_for(
            exec, p.n * lanes,
            [=] LOOM_HOST_DEVICE(size_type t) {
                const auto i = static_cast<I>(t / lanes);
                for (I e = p.row_ptrs[i] + static_cast<I>(t % lanes); e < p.row_ptrs[i + 1];
                     e += static_cast<I>(lanes)) {
                    body(i, e);
                }
            },
            where);
        return;
    }
    parallel_for_uneven(
        exec, p.n,
        [=] LOOM_HOST_DEVICE(size_type row) {
            const auto i = static_cast<I>(row);
            for (I e = p.row_ptrs[i]; e < p.row_ptrs[i + 1]; ++e) body(i, e);
        },
        where);
}

/// detail::exclusive_prefix_sum on exec's own kernel: this header is compiled into the CUDA
/// backend's library too, which reaches libloom's public API only.
template <typename Exec, typename I>
void scan(const Exec& exec, Array<I>& values)
{
    if (values.empty()) return;
    if constexpr (std::is_same_v<Exec, CudaExecutor>) {
        loom::cuda::exclusive_prefix_sum(exec, values.data(), values.size());
    } else if constexpr (std::is_same_v<Exec, OmpExecutor>) {
        loom::omp::exclusive_prefix_sum(exec, values.data(), values.size());
    } else {
        loom::reference::exclusive_prefix_sum(exec, values.data(), values.size());
    }
}

/// The pattern of a CSR matrix as rows.hpp sees it (diag: nullptr where not needed).
template <typename V, typename I>
detail::FactorPattern<I> pattern_of(const matrix::Csr<V, I>& m, const Array<I>* diag = nullptr)
{
    return {m.rows(), m.nnz(), m.row_ptrs().data(), m.col_idxs().data(),
            diag ? diag->data() : nullptr};
}

/// Each row's diagonal position in a pattern that holds every diagonal entry.
template <typename Exec, typename V, typename I>
Array<I> diagonal_positions(const Exec& exec, const matrix::Csr<V, I>& m)
{
    Array<I> diag(m.executor(), m.rows());
    const auto f = pattern_of(m);
    I* out = diag.data();
    parallel_for(
        exec, m.rows(),
        [=] LOOM_HOST_DEVICE(size_type i) {
            out[i] = detail::find_in_row(f, static_cast<I>(i), static_cast<I>(i));
        },
        where);
    return diag;
}

/// visit(p, s) for each entry of F that entry k = (r, c) of A makes, s its source code
/// (rows.hpp: assemble_row): ILU: (r, c) itself; IC: the lower triangle and its mirror.
template <typename I, typename Visit>
LOOM_HOST_DEVICE LOOM_INLINE void targets_of(const detail::FactorPattern<I>& f, I r, I c, I k,
                                             bool cholesky, Visit&& visit)
{
    if (cholesky && c > r) return;
    if (const I p = detail::find_in_row(f, r, c); p >= 0) visit(p, k);
    if (cholesky && c < r) {
        if (const I p = detail::find_in_row(f, c, r); p >= 0) visit(p, -k - 1);
    }
}

/// link(p, s) for every entry of A and each entry p of F it makes, a thread per row of A
/// walking it in order.
template <typename Exec, typename I, typename Link>
void for_each_link(const Exec& exec, const detail::FactorPattern<I>& a,
                   const detail::FactorPattern<I>& f, bool cholesky, Link link)
{
    parallel_for_uneven(
        exec, a.n,
        [=] LOOM_HOST_DEVICE(size_type row) {
            const auto r = static_cast<I>(row);
            for (I k = a.row_ptrs[r]; k < a.row_ptrs[r + 1]; ++k) {
                targets_of(f, r, a.col_idxs[k], k, cholesky, link);
            }
        },
        where);
}

/// The gather lists (ilu.cpp's host gather_lists, in the same order): every entry of F takes
/// its sources from ONE row of A (its own; IC's upper entry (c, r): row r), so a thread per
/// row of A counts and then places them in A's order without atomics.
template <typename Exec, typename V, typename I>
void gather_lists(const Exec& exec, const matrix::Csr<V, I>& a, const detail::FactorPattern<I>& f,
                  bool cholesky, Array<I>& gather_ptrs, Array<I>& sources)
{
    const auto ap = pattern_of(a);
    gather_ptrs = Array<I>(a.executor(), f.nnz + 1);
    gather_ptrs.fill(0);
    I* count = gather_ptrs.data();
    for_each_link(exec, ap, f, cholesky, [=] LOOM_HOST_DEVICE(I p, I) { ++count[p]; });
    scan(exec, gather_ptrs);
    sources = Array<I>(a.executor(),
                       static_cast<size_type>(loom::detail::load_element(gather_ptrs, f.nnz)));
    Array<I> next(a.executor(), gather_ptrs);
    I* place = next.data();
    I* out = sources.data();
    for_each_link(exec, ap, f, cholesky, [=] LOOM_HOST_DEVICE(I p, I s) { out[place[p]++] = s; });
}

/// L's and U's patterns from F's (values zero) and where each entry of F goes in them
/// (ilu.cpp's host split_pattern): L is F's part on and below the diagonal (ILU: its strict
/// part and a unit diagonal), U (ILU only) its part on and above; for IC, entry (i, j >= i)
/// of F goes to (j, i) of L.
template <typename Exec, typename V, typename I>
void split_pattern(const Exec& exec, const detail::FactorPattern<I>& f, bool cholesky,
                   matrix::Csr<V, I>& l, matrix::Csr<V, I>& u, Array<I>& l_index,
                   Array<I>& u_index)
{
    const auto n = f.n;
    const auto exec_ptr = exec.shared_from_this();
    // lower[i]: entries of F on and below the diagonal in the rows before i, so L's row i
    // starts there and U's at row_ptrs[i] - lower[i] + i.
    Array<I> lower(exec_ptr, n + 1);
    I* low = lower.data();
    parallel_for(
        exec, n, [=] LOOM_HOST_DEVICE(size_type i) { low[i] = f.diag[i] - f.row_ptrs[i] + 1; },
        where);
    scan(exec, lower);
    const auto l_nnz = static_cast<size_type>(loom::detail::load_element(lower, n));
    l = matrix::Csr<V, I>(exec_ptr, dim2{n, n}, l_nnz);
    u = cholesky ? matrix::Csr<V, I>{} : matrix::Csr<V, I>(exec_ptr, dim2{n, n}, f.nnz - l_nnz + n);
    l.values().fill(V{});
    if (!cholesky) u.values().fill(V{});
    l_index = Array<I>(exec_ptr, f.nnz);
    u_index = Array<I>(exec_ptr, f.nnz);
    I* lp = l.row_ptrs().data();
    I* lc = l.col_idxs().data();
    I* up = cholesky ? nullptr : u.row_ptrs().data();
    I* uc = cholesky ? nullptr : u.col_idxs().data();
    I* li = l_index.data();
    I* ui = u_index.data();
    parallel_for(
        exec, n + 1,
        [=] LOOM_HOST_DEVICE(size_type i) {
            lp[i] = low[i];
            if (up) up[i] = f.row_ptrs[i] - low[i] + static_cast<I>(i);
        },
        where);
    parallel_for_uneven(
        exec, n,
        [=] LOOM_HOST_DEVICE(size_type row) {
            const auto i = static_cast<I>(row);
            for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
                const I j = f.col_idxs[p];
                const I in_l = low[i] + (p - f.row_ptrs[i]);
                if (j <= i) lc[in_l] = j;
                if (cholesky) {
                    // (i, j > i) lands on (j, i), whose place in L is its place in F's row j.
                    const I mirror = j > i ? detail::find_in_row(f, j, i) : I{-1};
                    li[p] = j == i ? in_l : j > i ? low[j] + (mirror - f.row_ptrs[j]) : I{-1};
                    ui[p] = -1;
                    continue;
                }
                li[p] = j <= i ? in_l : I{-1};
                const I in_u = up[i] + (p - f.diag[i]);
                if (j >= i) uc[in_u] = j;
                ui[p] = j >= i ? in_u : I{-1};
            }
        },
        where);
}

/// F's analysis: diagonal positions, gather lists, L's and U's patterns.
template <typename Exec, typename V, typename I>
detail::FactorAnalysis<V, I> analyse(const Exec& exec, const matrix::Csr<V, I>& a,
                                     const matrix::Csr<V, I>& f, bool cholesky)
{
    detail::FactorAnalysis<V, I> result;
    result.diag = diagonal_positions(exec, f);
    const auto fp = pattern_of(f, &result.diag);
    gather_lists(exec, a, fp, cholesky, result.gather_ptrs, result.sources);
    split_pattern(exec, fp, cholesky, result.l, result.u, result.l_index, result.u_index);
    return result;
}

}  // namespace loom::sparse::factor_analysis
