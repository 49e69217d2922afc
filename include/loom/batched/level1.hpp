// Batched vector and elementwise routines: Axpy, Scale, Copy, Set, SetIdentity, Dot, Nrm2,
// AddRadial, and the rank-1 update Syr. Axpy, Scale, Copy and Set take vectors or matrices.
#pragma once

#include "loom/batched/common.hpp"

namespace loom::batched {
namespace detail {

/// f(i, j) for every entry of the view (j = 0 for a vector), spread over par's workers.
template <typename Par, typename V, typename F>
LOOM_HOST_DEVICE LOOM_INLINE void for_each_entry(const Par& par, const V& v, F&& f)
{
    if constexpr (VectorViewType<V>) {
        par.flat(v.size(), [&](int i) { f(i, 0); });
    } else {
        par.for2(v.rows(), v.cols(), f);
    }
}

template <typename V>
LOOM_HOST_DEVICE LOOM_INLINE auto& entry(const V& v, int i, int j)
{
    if constexpr (VectorViewType<V>) {
        return v(i);
    } else {
        return v(i, j);
    }
}

template <typename Par, typename Alpha, typename VX, typename VY>
LOOM_HOST_DEVICE int axpy(const Par& par, const Alpha& alpha_in, const VX& x, const VY& y)
{
    using T = value_of<VY>;
    const T alpha(alpha_in);
    if constexpr (VectorViewType<VY>) {
        LOOM_BATCHED_ASSERT(x.size() == y.size());
    } else {
        LOOM_BATCHED_ASSERT(x.rows() == y.rows() && x.cols() == y.cols());
    }
    for_each_entry(par, y, [&](int i, int j) { entry(y, i, j) += alpha * entry(x, i, j); });
    par.barrier();
    return 0;
}

template <typename Par, typename Alpha, typename VX>
LOOM_HOST_DEVICE int scale(const Par& par, const Alpha& alpha_in, const VX& x)
{
    using T = value_of<VX>;
    const T alpha(alpha_in);
    for_each_entry(par, x, [&](int i, int j) { entry(x, i, j) = alpha * entry(x, i, j); });
    par.barrier();
    return 0;
}

template <typename TransT, typename Par, typename VA, typename VB>
LOOM_HOST_DEVICE int copy(const Par& par, const VA& A, const VB& B)
{
    if constexpr (VectorViewType<VB>) {
        par.flat(B.size(),
                 [&](int i) { B(i) = maybe_conj<conjugates_v<TransT>>(value_of<VB>(A(i))); });
    } else {
        const auto Aop = op_view<TransT>(A);
        par.for2(B.rows(), B.cols(), [&](int i, int j) {
            B(i, j) = maybe_conj<conjugates_v<TransT>>(value_of<VB>(Aop(i, j)));
        });
    }
    par.barrier();
    return 0;
}

template <typename Par, typename Alpha, typename Diagonal, typename VA>
LOOM_HOST_DEVICE int set(const Par& par, const Alpha& alpha_in, const Diagonal& diag_in,
                         const VA& A)
{
    using T = value_of<VA>;
    const T alpha(alpha_in);
    const T diagonal(diag_in);
    for_each_entry(par, A, [&](int i, int j) { entry(A, i, j) = i == j ? diagonal : alpha; });
    par.barrier();
    return 0;
}

template <typename TransT, typename Par, typename VX, typename VY>
LOOM_HOST_DEVICE auto dot(const Par& par, const VX& x, const VY& y)
{
    using T = value_of<VY>;
    LOOM_BATCHED_ASSERT(x.size() == y.size());
    return par.sum(x.size(), [&](int i) { return T(maybe_conj<conjugates_v<TransT>>(x(i)) * y(i)); });
}

template <typename Par, typename VX>
LOOM_HOST_DEVICE auto nrm2(const Par& par, const VX& x)
{
    using R = real_type_t<value_of<VX>>;
    return math::sqrt(par.sum(x.size(), [&](int i) { return R(math::abs2(x(i))); }));
}

template <typename Par, typename Tiny, typename VA>
LOOM_HOST_DEVICE int add_radial(const Par& par, const Tiny& tiny_in, const VA& A)
{
    using T = value_of<VA>;
    using R = real_type_t<T>;
    const R tiny = math::abs(R(tiny_in));
    par.flat(min_int(A.rows(), A.cols()), [&](int i) {
        const T d = A(i, i);
        A(i, i) = d + T(math::select(math::real(d) < R(0), R(-tiny), tiny));
    });
    par.barrier();
    return 0;
}

template <typename UploT, typename TransT, typename Par, typename Alpha, typename VX,
          typename VA>
LOOM_HOST_DEVICE int syr(const Par& par, const Alpha& alpha_in, const VX& x, const VA& A)
{
    using T = value_of<VA>;
    constexpr bool conj = conjugates_v<TransT>;
    constexpr bool lower = std::is_same_v<UploT, Uplo::Lower>;
    const T alpha(alpha_in);
    const int n = x.size();
    LOOM_BATCHED_ASSERT(A.rows() == n && A.cols() == n);
    par.split(n, [&](int i, const auto& sub) {
        const T axi = alpha * x(i);
        const int first = lower ? 0 : i;
        sub.flat(lower ? i + 1 : n - i, [&](int t) {
            const int j = first + t;
            const T updated = A(i, j) + axi * maybe_conj<conj>(x(j));
            // A Hermitian update keeps the diagonal real (as BLAS her).
            A(i, j) = conj && j == i ? T(math::real(updated)) : updated;
        });
    });
    par.barrier();
    return 0;
}

}  // namespace detail

/// y := alpha x + y (vectors, or matrices of one shape). Returns 0.
template <typename ModeT>
struct Axpy : Invoke<ModeT, Axpy<ModeT>> {
    template <typename Par, typename Alpha, typename VX, typename VY>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VX& x, const VY& y)
    {
        return detail::axpy(par, alpha, x, y);
    }
};

/// x := alpha x (a vector or a matrix). Returns 0.
template <typename ModeT>
struct Scale : Invoke<ModeT, Scale<ModeT>> {
    template <typename Par, typename Alpha, typename VX>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VX& x)
    {
        return detail::scale(par, alpha, x);
    }
};

/// B := op(A) (vectors: B := A, conjugated for ConjTranspose). Returns 0.
template <typename ModeT, typename TransT = Trans::NoTranspose>
struct Copy : Invoke<ModeT, Copy<ModeT, TransT>> {
    static_assert(is_trans_v<TransT>);
    template <typename Par, typename VA, typename VB>
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VB& B)
    {
        return detail::copy<TransT>(par, A, B);
    }
};

/// Every entry of A (a vector or a matrix) := alpha. Returns 0.
template <typename ModeT>
struct Set : Invoke<ModeT, Set<ModeT>> {
    template <typename Par, typename Alpha, typename VA>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VA& A)
    {
        return detail::set(par, alpha, alpha, A);
    }
};

/// A := the identity (ones on the diagonal of the possibly rectangular A). Returns 0.
template <typename ModeT>
struct SetIdentity : Invoke<ModeT, SetIdentity<ModeT>> {
    template <typename Par, MatrixViewType VA>
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A)
    {
        return detail::set(par, 0, 1, A);
    }
};

/// x·y = Σ conj(x(i)) y(i) (Trans::ConjTranspose, the default) or Σ x(i) y(i)
/// (Trans::Transpose). Every worker of the team receives the result.
template <typename ModeT, typename TransT = Trans::ConjTranspose>
struct Dot : Invoke<ModeT, Dot<ModeT, TransT>> {
    static_assert(transposes_v<TransT>);
    template <typename Par, VectorViewType VX, VectorViewType VY>
    LOOM_HOST_DEVICE static auto run(const Par& par, const VX& x, const VY& y)
    {
        return detail::dot<TransT>(par, x, y);
    }
};

/// ‖x‖₂ (real-typed; no scaling against overflow). Every worker receives the result.
template <typename ModeT>
struct Nrm2 : Invoke<ModeT, Nrm2<ModeT>> {
    template <typename Par, VectorViewType VX>
    LOOM_HOST_DEVICE static auto run(const Par& par, const VX& x)
    {
        return detail::nrm2(par, x);
    }
};

/// Pushes the diagonal away from zero: A(i, i) += |tiny| where Re A(i, i) >= 0, and -= |tiny|
/// where it is negative (a static pivoting perturbation). tiny is real. Returns 0.
template <typename ModeT>
struct AddRadial : Invoke<ModeT, AddRadial<ModeT>> {
    template <typename Par, typename Tiny, MatrixViewType VA>
    LOOM_HOST_DEVICE static int run(const Par& par, const Tiny& tiny, const VA& A)
    {
        return detail::add_radial(par, tiny, A);
    }
};

/// Symmetric or Hermitian rank-1 update of one triangle: A := alpha x xᵀ + A
/// (Trans::Transpose) or A := alpha x xᴴ + A (Trans::ConjTranspose, the default; alpha should be
/// real and the diagonal stays real, as BLAS her). Returns 0.
template <typename ModeT, typename UploT, typename TransT = Trans::ConjTranspose>
struct Syr : Invoke<ModeT, Syr<ModeT, UploT, TransT>> {
    static_assert(is_uplo_v<UploT> && transposes_v<TransT>);
    template <typename Par, typename Alpha, VectorViewType VX, MatrixViewType VA>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VX& x, const VA& A)
    {
        return detail::syr<UploT, TransT>(par, alpha, x, A);
    }
};

}  // namespace loom::batched
