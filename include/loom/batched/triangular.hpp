// Batched triangular routines: Trsm, Trmm, Trsv (solve and multiply) and Trtri (inverse).
#pragma once

#include "loom/batched/common.hpp"

namespace loom::batched {
namespace detail {

/// x := inv(A) x for the n × n triangular A (conjugated on load when Conj), run by par.
template <bool Lower, bool Conj, bool Unit, typename Par, typename VA, typename VX>
LOOM_HOST_DEVICE void tri_solve(const Par& par, const VA& A, const VX& x)
{
    using T = value_of<VX>;
    const int n = A.rows();
    for (int s = 0; s < n; ++s) {
        const int k = Lower ? s : n - 1 - s;
        if constexpr (!Unit) {
            par.single([&] { x(k) = x(k) / maybe_conj<Conj>(A(k, k)); });
            par.barrier();
        }
        const T xk = x(k);
        if constexpr (Lower) {
            par.flat(n - k - 1, [&](int t) {
                const int i = k + 1 + t;
                x(i) -= maybe_conj<Conj>(A(i, k)) * xk;
            });
        } else {
            par.flat(k, [&](int i) { x(i) -= maybe_conj<Conj>(A(i, k)) * xk; });
        }
        par.barrier();
    }
}

/// x := alpha A x for the n × n triangular A, in place, run by par.
template <bool Lower, bool Conj, bool Unit, typename Par, typename T, typename VA, typename VX>
LOOM_HOST_DEVICE void tri_mult(const Par& par, const T& alpha, const VA& A, const VX& x)
{
    const int n = A.rows();
    // Lower: row i needs the old x(0..i), so the columns go right to left; upper: left to right.
    for (int s = 0; s < n; ++s) {
        const int k = Lower ? n - 1 - s : s;
        const T xk = x(k);
        const T axk = alpha * xk;
        if constexpr (Lower) {
            par.flat(n - k - 1, [&](int t) {
                const int i = k + 1 + t;
                x(i) += maybe_conj<Conj>(A(i, k)) * axk;
            });
        } else {
            par.flat(k, [&](int i) { x(i) += maybe_conj<Conj>(A(i, k)) * axk; });
        }
        par.barrier();  // everyone has read x(k) before it changes
        if constexpr (Unit) {
            par.single([&] { x(k) = axk; });
        } else {
            par.single([&] { x(k) = maybe_conj<Conj>(A(k, k)) * axk; });
        }
        par.barrier();
    }
}

/// The triangular operand of a left-side problem equivalent to Side/Trans: a right-side
/// X op(A) = B is solved as op(A)ᵀ Xᵀ = Bᵀ, with Xᵀ's columns being X's rows.
template <typename SideT, typename UploT, typename TransA>
struct LeftForm {
    static constexpr bool left = std::is_same_v<SideT, Side::Left>;
    static constexpr bool transposed = left ? transposes_v<TransA> : !transposes_v<TransA>;
    static constexpr bool conj = conjugates_v<TransA>;
    static constexpr bool lower = std::is_same_v<UploT, Uplo::Lower> != transposed;

    template <typename VA>
    LOOM_HOST_DEVICE static VA a(const VA& A)
    {
        if constexpr (transposed) {
            return A.transposed();
        } else {
            return A;
        }
    }
    template <typename VB>
    LOOM_HOST_DEVICE static VB b(const VB& B)
    {
        if constexpr (left) {
            return B;
        } else {
            return B.transposed();
        }
    }
};

/// The frame trsm and trmm share: the columns x of op(B), seen as a left-side problem, are
/// independent, one per worker group; each is zeroed when alpha is zero, else handed to
/// column(sub, op(A), x, alpha) with Form's op(A). No team-wide barrier between columns.
template <typename Form, typename Par, typename Alpha, typename VA, typename VB, typename F>
LOOM_HOST_DEVICE int triangular_columns(const Par& par, const Alpha& alpha_in, const VA& A,
                                        const VB& B, F&& column)
{
    using T = value_of<VB>;
    const T alpha(alpha_in);
    const auto Aop = Form::a(A);
    const auto X = Form::b(B);
    LOOM_BATCHED_ASSERT(A.rows() == A.cols() && X.rows() == A.rows());
    const bool zero = all_zero(alpha);
    par.split(X.cols(), [&](int j, const auto& sub) {
        const auto x = X.col(j);
        if (zero) {
            sub.flat(x.size(), [&](int i) { x(i) = T(0); });
            return;
        }
        column(sub, Aop, x, alpha);
    });
    par.barrier();
    return 0;
}

template <typename SideT, typename UploT, typename TransA, typename DiagT, typename Par,
          typename Alpha, typename VA, typename VB>
LOOM_HOST_DEVICE int trsm(const Par& par, const Alpha& alpha, const VA& A, const VB& B)
{
    using Form = LeftForm<SideT, UploT, TransA>;
    constexpr bool unit = std::is_same_v<DiagT, Diag::Unit>;
    const bool one = all_one(value_of<VB>(alpha));
    return triangular_columns<Form>(par, alpha, A, B, [&](const auto& sub, const auto& Aop,
                                                          const auto& x, const auto& a) {
        if (!one) {
            sub.flat(x.size(), [&](int i) { x(i) = a * x(i); });
            sub.barrier();
        }
        tri_solve<Form::lower, Form::conj, unit>(sub, Aop, x);
    });
}

template <typename SideT, typename UploT, typename TransA, typename DiagT, typename Par,
          typename Alpha, typename VA, typename VB>
LOOM_HOST_DEVICE int trmm(const Par& par, const Alpha& alpha, const VA& A, const VB& B)
{
    using Form = LeftForm<SideT, UploT, TransA>;
    constexpr bool unit = std::is_same_v<DiagT, Diag::Unit>;
    return triangular_columns<Form>(par, alpha, A, B, [&](const auto& sub, const auto& Aop,
                                                          const auto& x, const auto& a) {
        tri_mult<Form::lower, Form::conj, unit>(sub, a, Aop, x);
    });
}

template <typename UploT, typename TransA, typename DiagT, typename Par, typename Alpha,
          typename VA, typename VX>
LOOM_HOST_DEVICE int trsv(const Par& par, const Alpha& alpha_in, const VA& A, const VX& x)
{
    using T = value_of<VX>;
    using Form = LeftForm<Side::Left, UploT, TransA>;
    LOOM_BATCHED_ASSERT(A.rows() == A.cols() && x.size() == A.rows());
    const T alpha(alpha_in);
    if (!all_one(alpha)) {
        par.flat(x.size(), [&](int i) { x(i) = alpha * x(i); });
        par.barrier();
    }
    tri_solve<Form::lower, Form::conj, std::is_same_v<DiagT, Diag::Unit>>(par, Form::a(A), x);
    return 0;
}

template <typename UploT, typename DiagT, typename Par, typename VA>
LOOM_HOST_DEVICE info_type_t<value_of<VA>> trtri(const Par& par, const VA& A)
{
    using T = value_of<VA>;
    constexpr bool unit = std::is_same_v<DiagT, Diag::Unit>;
    const int n = A.rows();
    LOOM_BATCHED_ASSERT(A.cols() == n);
    info_type_t<T> info(0);
    if constexpr (!unit) {
        for (int k = 0; k < n; ++k) record_info(info, math::is_zero(A(k, k)), k);
        // A singular matrix is left untouched (LAPACK); packs go on, lanes are independent.
        if constexpr (!is_simd_v<T>) {
            if (info != 0) return info;
        }
    }
    // Column j of the inverse is -inv(A(j,j)) times the already inverted block applied to the
    // original column j (LAPACK's trti2).
    for (int s = 0; s < n; ++s) {
        const int j = std::is_same_v<UploT, Uplo::Upper> ? s : n - 1 - s;
        if constexpr (!unit) {
            par.single([&] { A(j, j) = T(1) / A(j, j); });
            par.barrier();
        }
        const T minus_ajj = unit ? T(-1) : -A(j, j);
        if constexpr (std::is_same_v<UploT, Uplo::Upper>) {
            tri_mult<false, false, unit>(par, minus_ajj, A.sub(0, 0, j, j), A.col(j).sub(0, j));
        } else {
            const int rest = n - 1 - j;
            tri_mult<true, false, unit>(par, minus_ajj, A.sub(j + 1, j + 1, rest, rest),
                                        A.col(j).sub(j + 1, rest));
        }
    }
    par.barrier();
    return info;
}

}  // namespace detail

/// Triangular solve with many right-hand sides, in place:
/// B := alpha inv(op(A)) B (Side::Left) or B := alpha B inv(op(A)) (Side::Right), A triangular
/// (UploT) with a unit or non-unit diagonal. A zero diagonal is not checked (use Trtri or the
/// factorization's info). Returns 0.
template <typename ModeT, typename SideT, typename UploT, typename TransA, typename DiagT>
struct Trsm : Invoke<ModeT, Trsm<ModeT, SideT, UploT, TransA, DiagT>> {
    static_assert(is_side_v<SideT> && is_uplo_v<UploT> &&
                  is_trans_v<TransA> && is_diag_v<DiagT>);

    template <typename Par, typename Alpha, MatrixViewType VA, MatrixViewType VB>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VA& A, const VB& B)
    {
        return detail::trsm<SideT, UploT, TransA, DiagT>(par, alpha, A, B);
    }
};

/// Triangular multiply, in place: B := alpha op(A) B (Left) or B := alpha B op(A) (Right).
/// Returns 0.
template <typename ModeT, typename SideT, typename UploT, typename TransA, typename DiagT>
struct Trmm : Invoke<ModeT, Trmm<ModeT, SideT, UploT, TransA, DiagT>> {
    static_assert(is_side_v<SideT> && is_uplo_v<UploT> &&
                  is_trans_v<TransA> && is_diag_v<DiagT>);

    template <typename Par, typename Alpha, MatrixViewType VA, MatrixViewType VB>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VA& A, const VB& B)
    {
        return detail::trmm<SideT, UploT, TransA, DiagT>(par, alpha, A, B);
    }
};

/// Triangular solve with one right-hand side, in place: x := alpha inv(op(A)) x. In the team
/// modes the rows are spread over the workers (Trsm spreads the columns). Returns 0.
template <typename ModeT, typename UploT, typename TransA, typename DiagT>
struct Trsv : Invoke<ModeT, Trsv<ModeT, UploT, TransA, DiagT>> {
    static_assert(is_uplo_v<UploT> && is_trans_v<TransA> &&
                  is_diag_v<DiagT>);

    template <typename Par, typename Alpha, MatrixViewType VA, VectorViewType VX>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VA& A, const VX& x)
    {
        return detail::trsv<UploT, TransA, DiagT>(par, alpha, A, x);
    }
};

/// Inverse of a triangular matrix, in place (the other triangle is not touched). Returns the
/// info: 0, or k + 1 when A(k, k) is the first zero diagonal entry — A is then unchanged (for
/// packs, per lane: the other lanes are inverted).
template <typename ModeT, typename UploT, typename DiagT = Diag::NonUnit>
struct Trtri : Invoke<ModeT, Trtri<ModeT, UploT, DiagT>> {
    static_assert(is_uplo_v<UploT> && is_diag_v<DiagT>);

    template <typename Par, MatrixViewType VA>
    LOOM_HOST_DEVICE static auto run(const Par& par, const VA& A)
    {
        return detail::trtri<UploT, DiagT>(par, A);
    }
};

}  // namespace loom::batched
