// Batched LU: Getrf (with partial pivoting or none), Getrs, Gesv and InverseLU.
//
// Pivots are 0-based: ipiv(k) = p means rows k and p were interchanged at step k (LAPACK
// stores p + 1). Info follows LAPACK: k + 1 when U(k, k) is the first exactly zero pivot.
#pragma once

#include "loom/batched/common.hpp"
#include "loom/batched/triangular.hpp"

namespace loom::batched {
namespace detail {

/// Step k of the right-looking LU, once A(k, k) is the (non-zero) pivot: scales column k below
/// it and updates the trailing block, one row per worker group.
template <typename Par, typename VA>
LOOM_HOST_DEVICE void lu_eliminate(const Par& par, const VA& A, int k)
{
    using T = value_of<VA>;
    const int m = A.rows();
    const int n = A.cols();
    const T inv = T(1) / A(k, k);
    par.split(m - k - 1, [&](int t, const auto& sub) {
        const int i = k + 1 + t;
        const T l = A(i, k) * inv;
        sub.flat(n - k - 1, [&](int s) {
            const int j = k + 1 + s;
            A(i, j) -= l * A(k, j);
        });
        sub.barrier();  // every lane has read A(i, k)
        sub.single([&] { A(i, k) = l; });
    });
    par.barrier();
}

template <typename Par, typename VA, typename VP>
LOOM_HOST_DEVICE int getrf_partial(const Par& par, const VA& A, const VP& ipiv)
{
    using T = value_of<VA>;
    static_assert(!is_simd_v<T>,
                  "Getrf with Pivot::Partial needs one pivot sequence per matrix: call it on "
                  "scalar views (lane_view), or use Pivot::None on packs");
    const int m = A.rows();
    const int n = A.cols();
    LOOM_BATCHED_ASSERT(ipiv.size() >= min_int(m, n));
    int info = 0;
    for (int k = 0; k < min_int(m, n); ++k) {
        // Every worker finds the same pivot: the first of largest |Re| + |Im| (LAPACK's choice).
        int p = k;
        auto largest = math::abs1(A(k, k));
        for (int i = k + 1; i < m; ++i) {
            const auto candidate = math::abs1(A(i, k));
            if (candidate > largest) {
                largest = candidate;
                p = i;
            }
        }
        par.single([&] { ipiv(k) = p; });
        if (math::is_zero(A(p, k))) {  // the column is zero below the diagonal: nothing to do
            record_info(info, true, k);
            continue;
        }
        if (p != k) {
            par.flat(n, [&](int j) { swap_values(A(k, j), A(p, j)); });
            par.barrier();
        }
        lu_eliminate(par, A, k);
    }
    par.barrier();
    return info;
}

template <typename Par, typename VA>
LOOM_HOST_DEVICE info_type_t<value_of<VA>> getrf_nopivot(const Par& par, const VA& A)
{
    using T = value_of<VA>;
    info_type_t<T> info(0);
    for (int k = 0; k < min_int(A.rows(), A.cols()); ++k) {
        record_info(info, math::is_zero(A(k, k)), k);
        // A scalar stops at a zero pivot; a pack goes on (its other lanes are fine, the failed
        // lane only computes infinities).
        if constexpr (!is_simd_v<T>) {
            if (info != 0) return info;
        }
        lu_eliminate(par, A, k);
    }
    return info;
}

/// Applies the interchanges ipiv(0..n-1) to x, forwards or backwards.
template <typename VP, typename VX>
LOOM_HOST_DEVICE void apply_pivots(const VP& ipiv, const VX& x, int n, bool forward)
{
    for (int s = 0; s < n; ++s) {
        const int k = forward ? s : n - 1 - s;
        const int p = ipiv(k);
        if (p != k) swap_values(x(k), x(p));
    }
}

/// Solves op(A) X = B with A = P L U from Getrf (ipiv null for Pivot::None).
template <typename TransA, bool Pivoted, typename Par, typename VA, typename VP, typename VB>
LOOM_HOST_DEVICE void getrs(const Par& par, const VA& A, const VP& ipiv, const VB& B)
{
    static_assert(!(Pivoted && is_simd_v<value_of<VB>>),
                  "Getrs with Pivot::Partial needs one pivot sequence per matrix: scalar views");
    constexpr bool conj = conjugates_v<TransA>;
    const int n = A.rows();
    LOOM_BATCHED_ASSERT(A.cols() == n && B.rows() == n);
    par.split(B.cols(), [&](int j, const auto& sub) {
        const auto x = B.col(j);
        if constexpr (!transposes_v<TransA>) {
            if constexpr (Pivoted) {
                sub.single([&] { apply_pivots(ipiv, x, n, true); });
                sub.barrier();
            }
            tri_solve<true, false, true>(sub, A, x);
            tri_solve<false, false, false>(sub, A, x);
        } else {
            // op(A) = op(U) op(L) Pᵀ
            tri_solve<true, conj, false>(sub, A.transposed(), x);
            tri_solve<false, conj, true>(sub, A.transposed(), x);
            if constexpr (Pivoted) {
                sub.single([&] { apply_pivots(ipiv, x, n, false); });
            }
        }
    });
    par.barrier();
}

/// Inverse from the LU factors, in place (LAPACK's getri): inv(U) by Trtri, then
/// inv(A) L = inv(U) solved column by column from the right, then the column interchanges.
template <bool Pivoted, typename Par, typename VA, typename VP, typename VW>
LOOM_HOST_DEVICE info_type_t<value_of<VA>> inverse_lu(const Par& par, const VA& A, const VP& ipiv,
                                                      const VW& work)
{
    using T = value_of<VA>;
    static_assert(!(Pivoted && is_simd_v<T>),
                  "InverseLU with Pivot::Partial needs one pivot sequence per matrix: scalar views");
    const int n = A.rows();
    LOOM_BATCHED_ASSERT(A.cols() == n && work.size() >= n);
    const auto info = trtri<Uplo::Upper, Diag::NonUnit>(par, A);
    if constexpr (!is_simd_v<T>) {
        if (info != 0) return info;
    }
    for (int j = n - 1; j >= 0; --j) {
        par.flat(n - 1 - j, [&](int t) {
            const int i = j + 1 + t;
            work(i) = A(i, j);
            A(i, j) = T(0);
        });
        par.barrier();
        par.flat(n, [&](int i) {
            T s(0);
            for (int k = j + 1; k < n; ++k) s += A(i, k) * work(k);
            A(i, j) -= s;
        });
        par.barrier();
    }
    if constexpr (Pivoted) {
        par.flat(n, [&](int i) {
            for (int j = n - 2; j >= 0; --j) {
                const int p = ipiv(j);
                if (p != j) swap_values(A(i, j), A(i, p));
            }
        });
        par.barrier();
    }
    return info;
}

/// Stands in for the pivot view of Pivot::None.
struct NoPivots {
    LOOM_HOST_DEVICE int operator()(int k) const { return k; }
};

}  // namespace detail

/// LU factorization A = P L U of the m × n A, in place (L unit lower, U upper).
///   Pivot::Partial: invoke([member,] A, ipiv) with ipiv a VectorView<int> of min(m, n)
///                   entries; returns int info (a zero pivot column is skipped, as LAPACK).
///   Pivot::None:    invoke([member,] A); stops at the first zero pivot (packs: per lane) and
///                   returns its info (Simd<int, W> for packs).
template <typename ModeT, typename PivotT = Pivot::Partial>
struct Getrf : Invoke<ModeT, Getrf<ModeT, PivotT>> {
    static_assert(is_pivot_v<PivotT>);
    static constexpr bool pivoted = std::is_same_v<PivotT, Pivot::Partial>;

    template <typename Par, MatrixViewType VA, VectorViewType VP>
        requires(pivoted)
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VP& ipiv)
    {
        return detail::getrf_partial(par, A, ipiv);
    }
    template <typename Par, MatrixViewType VA>
        requires(!pivoted)
    LOOM_HOST_DEVICE static auto run(const Par& par, const VA& A)
    {
        return detail::getrf_nopivot(par, A);
    }
};

/// The LU factorization without pivoting.
template <typename ModeT>
using LU = Getrf<ModeT, Pivot::None>;

/// Solves op(A) X = B in place of B (a matrix, or a vector), with the factors of Getrf:
///   Pivot::Partial: invoke([member,] LU, ipiv, B);   Pivot::None: invoke([member,] LU, B).
/// Returns 0.
template <typename ModeT, typename TransA = Trans::NoTranspose, typename PivotT = Pivot::Partial>
struct Getrs : Invoke<ModeT, Getrs<ModeT, TransA, PivotT>> {
    static_assert(is_trans_v<TransA> && is_pivot_v<PivotT>);
    static constexpr bool pivoted = std::is_same_v<PivotT, Pivot::Partial>;

    template <typename Par, MatrixViewType VA, VectorViewType VP, typename VB>
        requires(pivoted)
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VP& ipiv, const VB& B)
    {
        detail::getrs<TransA, true>(par, A, ipiv, detail::as_column_matrix(B));
        return 0;
    }
    template <typename Par, MatrixViewType VA, typename VB>
        requires(!pivoted)
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VB& B)
    {
        detail::getrs<TransA, false>(par, A, detail::NoPivots{},
                                     detail::as_column_matrix(B));
        return 0;
    }
};

/// Solves A X = B: Getrf then Getrs; A is replaced by its factors and B by X. Returns Getrf's
/// info; on a zero pivot B is left unchanged (packs: solved in the other lanes).
///   Pivot::Partial: invoke([member,] A, ipiv, B);   Pivot::None: invoke([member,] A, B).
template <typename ModeT, typename PivotT = Pivot::Partial>
struct Gesv : Invoke<ModeT, Gesv<ModeT, PivotT>> {
    static_assert(is_pivot_v<PivotT>);
    static constexpr bool pivoted = std::is_same_v<PivotT, Pivot::Partial>;

    template <typename Par, MatrixViewType VA, VectorViewType VP, typename VB>
        requires(pivoted)
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VP& ipiv, const VB& B)
    {
        return solve(par, A, ipiv, B);
    }
    template <typename Par, MatrixViewType VA, typename VB>
        requires(!pivoted)
    LOOM_HOST_DEVICE static auto run(const Par& par, const VA& A, const VB& B)
    {
        return solve(par, A, detail::NoPivots{}, B);
    }

private:
    template <typename Par, typename VA, typename VP, typename VB>
    LOOM_HOST_DEVICE static auto solve(const Par& par, const VA& A, const VP& ipiv, const VB& B)
    {
        const auto X = detail::as_column_matrix(B);
        if constexpr (pivoted) {
            const int info = detail::getrf_partial(par, A, ipiv);
            if (info == 0) detail::getrs<Trans::NoTranspose, true>(par, A, ipiv, X);
            return info;
        } else {
            const auto info = detail::getrf_nopivot(par, A);
            // A pack solves in every lane; the failed lanes' results are meaningless.
            if (is_simd_v<detail::value_of<VA>> || detail::all_zero(info)) {
                detail::getrs<Trans::NoTranspose, false>(par, A, ipiv, X);
            }
            return info;
        }
    }
};

/// The inverse of A from its LU factors (Getrf), in place; work is a vector of at least n
/// entries. Returns the info of the inverse of U (k + 1 at the first zero U(k, k); A is then
/// unchanged — packs: per lane).
///   Pivot::Partial: invoke([member,] LU, ipiv, work);   Pivot::None: invoke([member,] LU, work).
template <typename ModeT, typename PivotT = Pivot::Partial>
struct InverseLU : Invoke<ModeT, InverseLU<ModeT, PivotT>> {
    static_assert(is_pivot_v<PivotT>);
    static constexpr bool pivoted = std::is_same_v<PivotT, Pivot::Partial>;

    template <typename Par, MatrixViewType VA, VectorViewType VP, VectorViewType VW>
        requires(pivoted)
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VP& ipiv, const VW& work)
    {
        return detail::inverse_lu<true>(par, A, ipiv, work);
    }
    template <typename Par, MatrixViewType VA, VectorViewType VW>
        requires(!pivoted)
    LOOM_HOST_DEVICE static auto run(const Par& par, const VA& A, const VW& work)
    {
        return detail::inverse_lu<false>(par, A, detail::NoPivots{}, work);
    }
};

}  // namespace loom::batched
