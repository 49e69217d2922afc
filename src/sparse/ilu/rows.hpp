// The work on one row (or one entry) of an incomplete factorization, written once for every
// backend: the host backends call these with V, the CUDA kernels with V's device type.
//
// Every kernel works on F, the combined factor: a square CSR pattern with sorted rows and a
// diagonal entry in every row, which holds L's strictly lower entries and U's upper ones
// (L's unit diagonal implied). IC kinds factor the symmetric pattern the same way and take
// their L from U (ilu.cpp).
#pragma once

#include <limits>
#include <type_traits>

#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"

namespace loom::sparse::detail {

/// F's pattern, and where each row keeps its diagonal.
template <typename I>
struct FactorPattern {
    size_type n = 0;
    size_type nnz = 0;
    const I* row_ptrs = nullptr;
    const I* col_idxs = nullptr;
    const I* diag = nullptr;
};

template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE auto real_of(const T& x)
{
    if constexpr (std::is_floating_point_v<T>) {
        return x;
    } else {
        return x.real();
    }
}

template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE T conj_of(const T& x)
{
    if constexpr (std::is_floating_point_v<T>) {
        return x;
    } else {
        return T(x.real(), -x.imag());
    }
}

template <typename R>
LOOM_HOST_DEVICE LOOM_INLINE R square_root(R x)
{
    if constexpr (std::is_same_v<R, float>) {
        return sqrtf(x);
    } else {
        return sqrt(x);
    }
}

template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE auto magnitude(const T& x)
{
    if constexpr (std::is_floating_point_v<T>) {
        return x < 0 ? -x : x;
    } else {
        return square_root(x.real() * x.real() + x.imag() * x.imag());
    }
}

/// The position of column c among the sorted columns cols[begin .. end - 1], or -1.
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE I find_column(const I* cols, I begin, I end, I c)
{
    I lo = begin;
    I hi = end;
    while (lo < hi) {
        const I mid = lo + (hi - lo) / 2;
        if (cols[mid] < c) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < end && cols[lo] == c ? lo : I{-1};
}

/// The position of column c in row r of F, or -1.
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE I find_in_row(const FactorPattern<I>& f, I r, I c)
{
    return find_column(f.col_idxs, f.row_ptrs[r], f.row_ptrs[r + 1], c);
}

/// A on F's pattern: entry p of row i is the sum of A's entries that `sources` lists for it
/// (gather_ptrs[p] .. gather_ptrs[p + 1] - 1; s >= 0 is a[s], s < 0 is conj(a[-s - 1]), the
/// mirror of a lower entry for IC), plus shift * scale[i] on the diagonal (scale: nullptr
/// when no shift).
template <typename T, typename I>
LOOM_HOST_DEVICE LOOM_INLINE T assembled_entry(const FactorPattern<I>& f, I i, I p, const T* a,
                                               const I* gather_ptrs, const I* sources,
                                               const T* scale, T shift)
{
    T sum{};
    for (I g = gather_ptrs[p]; g < gather_ptrs[p + 1]; ++g) {
        const I s = sources[g];
        sum += s >= 0 ? a[s] : conj_of(a[-s - 1]);
    }
    if (scale != nullptr && p == f.diag[i]) sum += shift * scale[i];
    return sum;
}

/// assembled_entry for every entry of row i.
template <typename T, typename I>
LOOM_HOST_DEVICE void assemble_row(const FactorPattern<I>& f, I i, const T* a,
                                   const I* gather_ptrs, const I* sources, const T* scale,
                                   T shift, T* a_f)
{
    for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
        a_f[p] = assembled_entry(f, i, p, a, gather_ptrs, sources, scale, shift);
    }
}

/// Row i of ILU by the IKJ variant of Gaussian elimination, in place: needs the rows of its
/// strictly lower entries finished, and row i holding A's values.
template <typename T, typename I>
LOOM_HOST_DEVICE void factorize_row(const FactorPattern<I>& f, I i, T* values)
{
    const I end = f.row_ptrs[i + 1];
    for (I p = f.row_ptrs[i]; p < end && f.col_idxs[p] < i; ++p) {
        const I k = f.col_idxs[p];
        const T l = values[p] / values[f.diag[k]];
        values[p] = l;
        // Both rows are sorted: one merge walk finds the columns they share beyond k.
        I target = p + 1;
        for (I q = f.diag[k] + 1; q < f.row_ptrs[k + 1]; ++q) {
            const I j = f.col_idxs[q];
            while (target < end && f.col_idxs[target] < j) ++target;
            if (target == end) break;
            if (f.col_idxs[target] == j) values[target] -= l * values[q];
        }
    }
}

/// Chow-Patel's starting point for entry p = (i, j): l_ij = a_ij / a_jj, u_ij = a_ij.
template <typename T, typename I>
LOOM_HOST_DEVICE LOOM_INLINE T initial_entry(const FactorPattern<I>& f, I i, I p, const T* a_f)
{
    const I j = f.col_idxs[p];
    return j < i ? a_f[p] / a_f[f.diag[j]] : a_f[p];
}

/// ParILUT's candidates of row i: the columns of row i of F, of row i of A (pattern a, sorted
/// rows without duplicates) and of rows k of U for every lower entry l_ik, merged in column
/// order; emit(j, a_ij, s) for each, s = sum_{k < min(i, j)} l_ik u_kj in increasing k
/// (a_ij 0 outside A). `cursor` is scratch at F's lower positions of row i (each lower entry's
/// place in its row of U). Without Values only the columns are merged (a_ij, s are 0).
/// One merge instead of L U by SpGEMM and A - L U by SpAdd: no product matrix is stored.
template <bool Values, typename T, typename I, typename Emit>
LOOM_HOST_DEVICE void merge_candidates(const FactorPattern<I>& f, const T* fv,
                                       const FactorPattern<I>& a, const T* av, I i, I* cursor,
                                       Emit emit)
{
    constexpr I none = std::numeric_limits<I>::max();
    const I lower_begin = f.row_ptrs[i];
    const I lower_end = f.diag[i];
    I own = lower_begin;
    I q = a.row_ptrs[i];
    const I own_end = f.row_ptrs[i + 1];
    const I q_end = a.row_ptrs[i + 1];
    I j = none;
    if (own < own_end) j = f.col_idxs[own];
    if (q < q_end && a.col_idxs[q] < j) j = a.col_idxs[q];
    for (I p = lower_begin; p < lower_end; ++p) {
        // u_kk is not a term: U's row k from its first entry right of the diagonal.
        const I k = f.col_idxs[p];
        cursor[p] = f.diag[k] + 1;
        if (cursor[p] < f.row_ptrs[k + 1] && f.col_idxs[cursor[p]] < j) j = f.col_idxs[cursor[p]];
    }
    while (j != none) {
        I next = none;
        T a_ij{};
        T sum{};
        if (own < own_end && f.col_idxs[own] == j) ++own;
        if (own < own_end) next = f.col_idxs[own];
        if (q < q_end && a.col_idxs[q] == j) {
            if constexpr (Values) a_ij = av[q];
            ++q;
        }
        if (q < q_end && a.col_idxs[q] < next) next = a.col_idxs[q];
        for (I p = lower_begin; p < lower_end; ++p) {
            const I end = f.row_ptrs[f.col_idxs[p] + 1];
            I c = cursor[p];
            if (c < end && f.col_idxs[c] == j) {
                if constexpr (Values) sum += fv[p] * fv[c];
                cursor[p] = ++c;
            }
            if (c < end && f.col_idxs[c] < next) next = f.col_idxs[c];
        }
        emit(j, a_ij, sum);
        j = next;
    }
}

/// One fixed-point update of entry p = (i, j) from the values `old`:
/// u_ij = a_ij - sum_{k < i} l_ik u_kj, l_ij = (a_ij - sum_{k < j} l_ik u_kj) / u_jj.
template <typename T, typename I>
LOOM_HOST_DEVICE T sweep_entry(const FactorPattern<I>& f, I i, I p, const T* a_f, const T* old)
{
    const I j = f.col_idxs[p];
    const I limit = j < i ? j : i;
    T sum = a_f[p];
    for (I t = f.row_ptrs[i]; t < f.row_ptrs[i + 1] && f.col_idxs[t] < limit; ++t) {
        const I kj = find_in_row(f, f.col_idxs[t], j);
        if (kj >= 0) sum -= old[t] * old[kj];
    }
    return j < i ? sum / old[f.diag[j]] : sum;
}

/// Whether pivot d breaks the factorization: zero, tiny against row_max (the largest |a_ij|
/// of its row of A), not finite, or (IC) not positive.
template <typename T, typename R>
LOOM_HOST_DEVICE LOOM_INLINE bool pivot_breaks(const T& d, R row_max, bool cholesky)
{
    const R m = magnitude(d);
    const bool finite = m <= std::numeric_limits<R>::max();
    const bool large = m > std::numeric_limits<R>::epsilon() * row_max;
    return !finite || !large || (cholesky && !(real_of(d) > 0));
}

/// Whether row i's pivot breaks the factorization (pivot_breaks).
template <typename T, typename I>
LOOM_HOST_DEVICE bool bad_pivot(const FactorPattern<I>& f, I i, const T* a_f, const T* values,
                                bool cholesky)
{
    using R = decltype(magnitude(T{}));
    R row_max = 0;
    for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
        const R m = magnitude(a_f[p]);
        if (m > row_max) row_max = m;
    }
    return pivot_breaks(values[f.diag[i]], row_max, cholesky);
}

/// Entry p = (i, j) of F into the factors: ILU: l_ij (j < i), a unit l_ii, u_ij (j >= i) at
/// l_index / u_index; IC: l_ji = conj(u_ij) / sqrt(u_ii) for j >= i at l_index (the position
/// of (j, i) in L).
template <typename T, typename I>
LOOM_HOST_DEVICE LOOM_INLINE void extract_entry(const FactorPattern<I>& f, I i, I p,
                                                const T* values, const I* l_index,
                                                const I* u_index, bool cholesky, T* l, T* u)
{
    const I j = f.col_idxs[p];
    if (cholesky) {
        if (j >= i) l[l_index[p]] = conj_of(values[p]) / T(square_root(real_of(values[f.diag[i]])));
    } else if (j < i) {
        l[l_index[p]] = values[p];
    } else {
        u[u_index[p]] = values[p];
        if (j == i) l[l_index[p]] = T(1);
    }
}

/// extract_entry for every entry of row i.
template <typename T, typename I>
LOOM_HOST_DEVICE void extract_row(const FactorPattern<I>& f, I i, const T* values,
                                  const I* l_index, const I* u_index, bool cholesky, T* l,
                                  T* u)
{
    for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
        extract_entry(f, i, p, values, l_index, u_index, cholesky, l, u);
    }
}

}  // namespace loom::sparse::detail
