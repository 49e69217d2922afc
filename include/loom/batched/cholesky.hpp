// Batched Cholesky: Potrf (A = L Lᴴ or Uᴴ U) and Potrs.
#pragma once

#include "loom/batched/common.hpp"
#include "loom/batched/triangular.hpp"

namespace loom::batched {
namespace detail {

template <typename UploT, typename Par, typename VA>
LOOM_HOST_DEVICE info_type_t<value_of<VA>> potrf(const Par& par, const VA& A)
{
    using T = value_of<VA>;
    using R = real_type_t<T>;
    // Both triangles are factored as the lower one: Uᴴ is stored transposed and conjugated,
    // so the upper case reads Aᵀ and conjugates what it reads and writes.
    constexpr bool upper = std::is_same_v<UploT, Uplo::Upper>;
    const VA L = upper ? A.transposed() : A;
    const int n = A.rows();
    LOOM_BATCHED_ASSERT(A.cols() == n);
    info_type_t<T> info(0);
    for (int k = 0; k < n; ++k) {
        const R d = math::real(L(k, k));
        record_info(info, !(d > R(0)), k);  // NaN fails too
        // A scalar stops there, as LAPACK; a pack goes on (the failed lane computes NaNs only).
        if constexpr (!is_simd_v<T>) {
            if (info != 0) return info;
        }
        const R s = math::sqrt(d);
        const T inv(R(1) / s);
        par.flat(n - k, [&](int t) {
            if (t == 0) {
                L(k, k) = T(s);
            } else {
                L(k + t, k) = L(k + t, k) * inv;  // a real factor commutes with conj
            }
        });
        par.barrier();
        par.split(n - k - 1, [&](int t, const auto& sub) {
            const int i = k + 1 + t;
            const T lik = maybe_conj<upper>(L(i, k));
            sub.flat(i - k, [&](int s) {
                const int j = k + 1 + s;
                L(i, j) -= maybe_conj<upper>(lik * math::conj(maybe_conj<upper>(L(j, k))));
            });
        });
        par.barrier();
    }
    return info;
}

template <typename UploT, typename Par, typename VA, typename VB>
LOOM_HOST_DEVICE void potrs(const Par& par, const VA& A, const VB& B)
{
    LOOM_BATCHED_ASSERT(A.rows() == A.cols() && B.rows() == A.rows());
    par.split(B.cols(), [&](int j, const auto& sub) {
        const auto x = B.col(j);
        if constexpr (std::is_same_v<UploT, Uplo::Lower>) {
            tri_solve<true, false, false>(sub, A, x);
            tri_solve<false, true, false>(sub, A.transposed(), x);
        } else {
            tri_solve<true, true, false>(sub, A.transposed(), x);
            tri_solve<false, false, false>(sub, A, x);
        }
    });
    par.barrier();
}

}  // namespace detail

/// Cholesky factorization of the Hermitian positive definite A, in place: A = L Lᴴ
/// (Uplo::Lower, L in the lower triangle) or A = Uᴴ U (Uplo::Upper); only that triangle is read
/// or written. Returns the info: 0, or k + 1 when the leading minor of order k + 1 is not
/// positive definite (the factorization stops there; packs: per lane, the other lanes finish).
template <typename ModeT, typename UploT = Uplo::Lower>
struct Potrf : Invoke<ModeT, Potrf<ModeT, UploT>> {
    static_assert(is_uplo_v<UploT>);

    template <typename Par, MatrixViewType VA>
    LOOM_HOST_DEVICE static auto run(const Par& par, const VA& A)
    {
        return detail::potrf<UploT>(par, A);
    }
};

/// Solves A X = B in place of B (matrix or vector) with the factor of Potrf. Returns 0.
template <typename ModeT, typename UploT = Uplo::Lower>
struct Potrs : Invoke<ModeT, Potrs<ModeT, UploT>> {
    static_assert(is_uplo_v<UploT>);

    template <typename Par, MatrixViewType VA, typename VB>
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VB& B)
    {
        detail::potrs<UploT>(par, A, detail::as_column_matrix(B));
        return 0;
    }
};

}  // namespace loom::batched
