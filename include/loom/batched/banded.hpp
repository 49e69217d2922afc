// Batched banded LU with partial pivoting (LAPACK's gbtf2/gbtrs) in LAPACK band storage.
//
// The n × n matrix with kl sub- and ku super-diagonals is stored in AB, a (2 kl + ku + 1) × n
// view: A(i, j) sits at AB(kl + ku + i - j, j). The first kl rows of AB are workspace for the
// fill-in of pivoting and need not be set on entry. After Gbtrf, U (bandwidth kl + ku) is in
// rows 0 .. kl + ku and the multipliers of L in the rows below; pivots are 0-based.
#pragma once

#include "loom/batched/common.hpp"

namespace loom::batched {
namespace detail {

/// Element (i, j) of the band matrix stored in AB with kv = kl + ku.
template <typename VB>
struct Band {
    VB ab;
    int kv;
    LOOM_HOST_DEVICE LOOM_INLINE auto& operator()(int i, int j) const { return ab(kv + i - j, j); }
};

template <typename Par, typename VB, typename VP>
LOOM_HOST_DEVICE int gbtrf(const Par& par, const VB& AB, const VP& ipiv, int kl, int ku)
{
    using T = value_of<VB>;
    static_assert(!is_simd_v<T>, "Gbtrf pivots per matrix: call it on scalar views (lane_view)");
    const int n = AB.cols();
    LOOM_BATCHED_ASSERT(kl >= 0 && ku >= 0 && AB.rows() >= 2 * kl + ku + 1 && ipiv.size() >= n);
    const Band<VB> A{AB, kl + ku};
    par.for2(kl, n, [&](int r, int j) { AB(r, j) = T(0); });
    par.barrier();
    int info = 0;
    int last_col = 0;  // the last column U reaches so far
    for (int k = 0; k < n; ++k) {
        const int below = min_int(kl, n - 1 - k);
        int p = k;
        auto largest = math::abs1(A(k, k));
        for (int i = k + 1; i <= k + below; ++i) {
            const auto candidate = math::abs1(A(i, k));
            if (candidate > largest) {
                largest = candidate;
                p = i;
            }
        }
        par.single([&] { ipiv(k) = p; });
        if (math::is_zero(A(p, k))) {
            record_info(info, true, k);
            continue;
        }
        last_col = max_int(last_col, min_int(p + ku, n - 1));
        if (p != k) {
            par.flat(last_col - k + 1, [&](int t) { swap_values(A(k, k + t), A(p, k + t)); });
            par.barrier();
        }
        const T inv = T(1) / A(k, k);
        par.split(below, [&](int t, const auto& sub) {
            const int i = k + 1 + t;
            const T l = A(i, k) * inv;
            sub.flat(last_col - k, [&](int s) {
                const int j = k + 1 + s;
                A(i, j) -= l * A(k, j);
            });
            sub.barrier();
            sub.single([&] { A(i, k) = l; });
        });
        par.barrier();
    }
    par.barrier();
    return info;
}

/// One right-hand side x, solved by the workers of sub.
template <typename TransA, typename Sub, typename VB, typename VP, typename VX>
LOOM_HOST_DEVICE void gbtrs_column(const Sub& sub, const Band<VB>& A, const VP& ipiv, int kl,
                                   const VX& x)
{
    using T = value_of<VX>;
    constexpr bool conj = conjugates_v<TransA>;
    const int n = x.size();
    const int kv = A.kv;
    if constexpr (!transposes_v<TransA>) {
        // L, interleaved with the interchanges as Gbtrf applied them.
        for (int k = 0; k + 1 < n; ++k) {
            const int below = min_int(kl, n - 1 - k);
            sub.single([&] {
                const int p = ipiv(k);
                if (p != k) swap_values(x(k), x(p));
            });
            sub.barrier();
            const T xk = x(k);
            sub.flat(below, [&](int t) { x(k + 1 + t) -= A(k + 1 + t, k) * xk; });
            sub.barrier();
        }
        // U, banded upper with kv super-diagonals.
        for (int k = n - 1; k >= 0; --k) {
            sub.single([&] { x(k) = x(k) / A(k, k); });
            sub.barrier();
            const T xk = x(k);
            const int first = max_int(0, k - kv);
            sub.flat(k - first, [&](int t) { x(first + t) -= A(first + t, k) * xk; });
            sub.barrier();
        }
    } else {
        // op(U) is lower triangular: forward substitution.
        for (int k = 0; k < n; ++k) {
            sub.single([&] { x(k) = x(k) / maybe_conj<conj>(A(k, k)); });
            sub.barrier();
            const T xk = x(k);
            const int last = min_int(n - 1, k + kv);
            sub.flat(last - k, [&](int t) { x(k + 1 + t) -= maybe_conj<conj>(A(k, k + 1 + t)) * xk; });
            sub.barrier();
        }
        // op(L)⁻¹ with the interchanges, last step first.
        for (int k = n - 2; k >= 0; --k) {
            const int below = min_int(kl, n - 1 - k);
            const T s = sub.sum(below, [&](int t) {
                return T(maybe_conj<conj>(A(k + 1 + t, k)) * x(k + 1 + t));
            });
            sub.single([&] {
                x(k) -= s;
                const int p = ipiv(k);
                if (p != k) swap_values(x(k), x(p));
            });
            sub.barrier();
        }
    }
}

template <typename TransA, typename Par, typename VB, typename VP, typename VX>
LOOM_HOST_DEVICE int gbtrs(const Par& par, const VB& AB, const VP& ipiv, int kl, int ku,
                           const VX& B)
{
    const Band<VB> A{AB, kl + ku};
    LOOM_BATCHED_ASSERT(B.rows() == AB.cols() && ipiv.size() >= AB.cols());
    par.split(B.cols(),
              [&](int j, const auto& sub) { gbtrs_column<TransA>(sub, A, ipiv, kl, B.col(j)); });
    par.barrier();
    return 0;
}

}  // namespace detail

/// Banded LU with partial pivoting, in place in LAPACK band storage (see above); ipiv has n
/// entries. Returns the info (k + 1 at the first zero pivot U(k, k); the factorization goes
/// on, as LAPACK's). Scalar views only. invoke([member,] AB, ipiv, kl, ku).
template <typename ModeT>
struct Gbtrf : Invoke<ModeT, Gbtrf<ModeT>> {
    template <typename Par, MatrixViewType VB, VectorViewType VP>
    LOOM_HOST_DEVICE static int run(const Par& par, const VB& AB, const VP& ipiv, int kl, int ku)
    {
        return detail::gbtrf(par, AB, ipiv, kl, ku);
    }
};

/// Solves op(A) X = B in place of B (n × nrhs, or a vector) with the factors of Gbtrf.
/// invoke([member,] AB, ipiv, kl, ku, B). Returns 0.
template <typename ModeT, typename TransA = Trans::NoTranspose>
struct Gbtrs : Invoke<ModeT, Gbtrs<ModeT, TransA>> {
    static_assert(is_trans_v<TransA>);

    template <typename Par, MatrixViewType VB, VectorViewType VP, typename VX>
    LOOM_HOST_DEVICE static int run(const Par& par, const VB& AB, const VP& ipiv, int kl, int ku, const VX& B)
    {
        return detail::gbtrs<TransA>(par, AB, ipiv, kl, ku,
                                     detail::as_column_matrix(B));
    }
};

}  // namespace loom::batched
