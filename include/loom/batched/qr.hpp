// Batched Householder QR: QR (geqr2) and ApplyQ (unm2r), plus the reflector helpers UTV uses.
//
// Storage follows LAPACK: after QR, R is in the upper triangle of A, and reflector k,
// H(k) = I - tau(k) v vᴴ with v(k) = 1 (implicit), has v(k+1:m) below the diagonal of column k;
// Q = H(0) H(1) ... H(min(m, n) - 1).
#pragma once

#include "loom/batched/common.hpp"

namespace loom::batched {
namespace detail {

/// Turns x (length >= 1) into beta e1 by a reflector H = I - tau v vᴴ (Hᴴ x = beta e1, beta
/// real): x(0) := beta, x(1:) := v(1:); returns tau to every worker. tau = 0 (H = I) when x(1:)
/// is zero and x(0) real. Without LAPACK's rescaling: entries near the overflow threshold are
/// out of scope.
template <typename Par, typename VX>
LOOM_HOST_DEVICE value_of<VX> householder(const Par& par, const VX& x)
{
    using T = value_of<VX>;
    using R = real_type_t<T>;
    const T alpha = x(0);
    const int rest = x.size() - 1;
    const R tail = par.sum(rest, [&](int i) { return R(math::abs2(x(1 + i))); });
    const R alpha_re = math::real(alpha);
    const R alpha_im = math::imag(alpha);
    const auto identity = tail == R(0) && alpha_im == R(0);
    const R beta = -math::copysign(math::sqrt(alpha_re * alpha_re + alpha_im * alpha_im + tail),
                                   alpha_re);
    const T tau = math::select(identity, T(0), (T(beta) - alpha) / T(beta));
    const T scale = math::select(identity, T(1), T(1) / (alpha - T(beta)));
    par.flat(rest, [&](int i) { x(1 + i) = x(1 + i) * scale; });
    par.single([&] { x(0) = math::select(identity, alpha, T(beta)); });
    par.barrier();
    return tau;
}

/// C := (I - t v vᴴ) C, v(0) = 1 implicit (v(0) is not read); v has C.rows() entries.
template <typename Par, typename VV, typename T, typename VC>
LOOM_HOST_DEVICE void reflect_left(const Par& par, const VV& v, const T& t, const VC& C)
{
    const int m = C.rows();
    par.split(C.cols(), [&](int j, const auto& sub) {
        const T w = C(0, j) + sub.sum(m - 1, [&](int i) { return T(math::conj(v(1 + i)) * C(1 + i, j)); });
        const T tw = t * w;
        sub.flat(m, [&](int i) { C(i, j) -= (i == 0 ? tw : T(v(i) * tw)); });
    });
    par.barrier();
}

/// C := C (I - t v vᴴ), v(0) = 1 implicit; v has C.cols() entries.
template <typename Par, typename VV, typename T, typename VC>
LOOM_HOST_DEVICE void reflect_right(const Par& par, const VV& v, const T& t, const VC& C)
{
    const int n = C.cols();
    par.split(C.rows(), [&](int r, const auto& sub) {
        const T w = C(r, 0) + sub.sum(n - 1, [&](int l) { return T(C(r, 1 + l) * v(1 + l)); });
        const T tw = t * w;
        sub.flat(n, [&](int l) { C(r, l) -= (l == 0 ? tw : T(tw * math::conj(v(l)))); });
    });
    par.barrier();
}

template <typename Par, typename VA, typename VT>
LOOM_HOST_DEVICE int qr(const Par& par, const VA& A, const VT& tau)
{
    const int m = A.rows();
    const int n = A.cols();
    LOOM_BATCHED_ASSERT(tau.size() >= min_int(m, n));
    for (int k = 0; k < min_int(m, n); ++k) {
        const auto v = A.col(k).sub(k, m - k);
        const auto t = householder(par, v);
        par.single([&] { tau(k) = t; });
        reflect_left(par, v, math::conj(t), A.sub(k, k + 1, m - k, n - k - 1));
    }
    par.barrier();
    return 0;
}

/// B := op(Q) B (left) or B op(Q) (right), Q from the first tau.size() reflectors in A.
template <typename SideT, typename TransT, typename Par, typename VA, typename VT, typename VB>
LOOM_HOST_DEVICE int apply_q(const Par& par, const VA& A, const VT& tau, const VB& B)
{
    constexpr bool left = std::is_same_v<SideT, Side::Left>;
    constexpr bool adjoint = transposes_v<TransT>;
    const int m = A.rows();
    const int k = tau.size();
    LOOM_BATCHED_ASSERT(k <= min_int(m, A.cols()) && (left ? B.rows() : B.cols()) == m);
    // Q B and B Qᴴ apply the last reflector first; Qᴴ B and B Q the first.
    const bool backwards = left != adjoint;
    for (int s = 0; s < k; ++s) {
        const int i = backwards ? k - 1 - s : s;
        const auto v = A.col(i).sub(i, m - i);
        const auto t = maybe_conj<adjoint>(value_of<VB>(tau(i)));
        if constexpr (left) {
            reflect_left(par, v, t, B.sub(i, 0, m - i, B.cols()));
        } else {
            reflect_right(par, v, t, B.sub(0, i, B.rows(), m - i));
        }
    }
    par.barrier();
    return 0;
}

}  // namespace detail

/// Householder QR of the m × n A, in place (R above the diagonal, reflectors below); tau is a
/// vector of min(m, n) entries. Returns 0.
template <typename ModeT>
struct QR : Invoke<ModeT, QR<ModeT>> {
    template <typename Par, MatrixViewType VA, VectorViewType VT>
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VT& tau)
    {
        return detail::qr(par, A, tau);
    }
};

/// Applies Q of a QR factorization (A and tau as QR left them; the first tau.size() reflectors
/// are used) to B in place: B := op(Q) B (Side::Left, B has A.rows() rows) or B := B op(Q)
/// (Side::Right, B has A.rows() columns). TransT is NoTranspose or ConjTranspose (Transpose
/// means the same for real types). Returns 0.
template <typename ModeT, typename SideT = Side::Left, typename TransT = Trans::NoTranspose>
struct ApplyQ : Invoke<ModeT, ApplyQ<ModeT, SideT, TransT>> {
    static_assert(is_side_v<SideT> && is_trans_v<TransT>);

    template <typename Par, MatrixViewType VA, VectorViewType VT, MatrixViewType VB>
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VT& tau, const VB& B)
    {
        check_trans<detail::value_of<VB>>();
        return detail::apply_q<SideT, TransT>(par, A, tau, B);
    }

private:
    template <typename T>
    LOOM_HOST_DEVICE static constexpr void check_trans()
    {
        static_assert(!(ComplexLike<T> && std::is_same_v<TransT, Trans::Transpose>),
                      "ApplyQ: Qᵀ of a complex Q is not provided; use Trans::ConjTranspose");
    }
};

}  // namespace loom::batched
