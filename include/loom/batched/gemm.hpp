// Batched Gemm and Gemv on strided views, in the three modes.
#pragma once

#include "loom/batched/common.hpp"

namespace loom::batched {
namespace detail {

template <typename TransA, typename TransB, typename Par, typename Alpha, typename VA, typename VB,
          typename Beta, typename VC>
LOOM_HOST_DEVICE int gemm(const Par& par, const Alpha& alpha_in, const VA& A_in, const VB& B_in,
                          const Beta& beta_in, const VC& C)
{
    using T = value_of<VC>;
    constexpr bool conj_a = conjugates_v<TransA>;
    constexpr bool conj_b = conjugates_v<TransB>;
    const auto A = op_view<TransA>(A_in);
    const auto B = op_view<TransB>(B_in);
    const T alpha(alpha_in);
    const T beta(beta_in);
    const int depth = A.cols();
    LOOM_BATCHED_ASSERT(A.rows() == C.rows() && B.cols() == C.cols() && B.rows() == depth);
    // beta == 0 must not read C (it may hold NaN), as in BLAS.
    const bool beta_zero = all_zero(beta);
    auto store = [&](int i, int j, const T& s) {
        C(i, j) = beta_zero ? alpha * s : beta * C(i, j) + alpha * s;
    };
    auto product = [&](int i, int j) {
        T s(0);
        for (int k = 0; k < depth; ++k) {
            s += maybe_conj<conj_a>(A(i, k)) * maybe_conj<conj_b>(B(k, j));
        }
        return s;
    };
    if constexpr (std::is_same_v<Par, SerialPar>) {
        // Four columns at a time: four independent sums hide the add latency, and A(i, k) is
        // loaded once for them. Each sum still runs over k in order (the same rounding).
        const int m = C.rows();
        const int n = C.cols();
        int j = 0;
        for (; j + 4 <= n; j += 4) {
            for (int i = 0; i < m; ++i) {
                T s0(0), s1(0), s2(0), s3(0);
                for (int k = 0; k < depth; ++k) {
                    const T a = maybe_conj<conj_a>(A(i, k));
                    s0 += a * maybe_conj<conj_b>(B(k, j));
                    s1 += a * maybe_conj<conj_b>(B(k, j + 1));
                    s2 += a * maybe_conj<conj_b>(B(k, j + 2));
                    s3 += a * maybe_conj<conj_b>(B(k, j + 3));
                }
                store(i, j, s0);
                store(i, j + 1, s1);
                store(i, j + 2, s2);
                store(i, j + 3, s3);
            }
        }
        for (; j < n; ++j) {
            for (int i = 0; i < m; ++i) store(i, j, product(i, j));
        }
    } else {
        par.for2(C.rows(), C.cols(), [&](int i, int j) { store(i, j, product(i, j)); });
    }
    par.barrier();
    return 0;
}

template <typename TransA, typename Par, typename Alpha, typename VA, typename VX, typename Beta,
          typename VY>
LOOM_HOST_DEVICE int gemv(const Par& par, const Alpha& alpha_in, const VA& A_in, const VX& x,
                          const Beta& beta_in, const VY& y)
{
    using T = value_of<VY>;
    constexpr bool conj_a = conjugates_v<TransA>;
    const auto A = op_view<TransA>(A_in);
    const T alpha(alpha_in);
    const T beta(beta_in);
    const bool beta_zero = all_zero(beta);
    const int n = A.cols();
    LOOM_BATCHED_ASSERT(A.rows() == y.size() && n == x.size());
    par.split(y.size(), [&](int i, const auto& sub) {
        const T s = sub.sum(n, [&](int k) { return T(maybe_conj<conj_a>(A(i, k)) * x(k)); });
        sub.single([&] { y(i) = beta_zero ? alpha * s : beta * y(i) + alpha * s; });
    });
    par.barrier();
    return 0;
}

}  // namespace detail

/// C := alpha op(A) op(B) + beta C, with op(A) m × k, op(B) k × n and C m × n. When beta is 0,
/// C is not read. Returns 0.
///   Serial:          Gemm<Mode::Serial, TA, TB>::invoke(alpha, A, B, beta, C)
///   Team/TeamVector: Gemm<Mode::Team, TA, TB>::invoke(member, alpha, A, B, beta, C)
template <typename ModeT, typename TransA = Trans::NoTranspose,
          typename TransB = Trans::NoTranspose>
struct Gemm : Invoke<ModeT, Gemm<ModeT, TransA, TransB>> {
    static_assert(is_trans_v<TransA> && is_trans_v<TransB>);

    template <typename Par, typename Alpha, MatrixViewType VA, MatrixViewType VB, typename Beta,
              MatrixViewType VC>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VA& A, const VB& B,
                                    const Beta& beta, const VC& C)
    {
        return detail::gemm<TransA, TransB>(par, alpha, A, B, beta, C);
    }
};

/// Serial Gemm for sizes fixed at compile time: C (M × N) := alpha op(A) op(B) + beta C with
/// op(A) M × K. Row i of op(A) stays in registers while row i of C is computed, and the inner
/// loops unroll completely: the fast path for small matrices, one per GPU thread (lane_view of
/// a compact array) or one pack per CPU core. It performs the operations of
/// Gemm<Mode::Serial> in the same order, so the results are identical.
template <int M, int N, int K, typename TransA = Trans::NoTranspose,
          typename TransB = Trans::NoTranspose>
struct GemmFixed {
    static_assert(M >= 0 && N >= 0 && K >= 0 && is_trans_v<TransA> && is_trans_v<TransB>);

    template <typename Alpha, MatrixViewType VA, MatrixViewType VB, typename Beta,
              MatrixViewType VC>
    LOOM_HOST_DEVICE static int invoke(const Alpha& alpha_in, const VA& A_in, const VB& B_in,
                                       const Beta& beta_in, const VC& C)
    {
        using T = detail::value_of<VC>;
        constexpr bool conj_a = conjugates_v<TransA>;
        constexpr bool conj_b = conjugates_v<TransB>;
        const auto A = detail::op_view<TransA>(A_in);
        const auto B = detail::op_view<TransB>(B_in);
        LOOM_BATCHED_ASSERT(A.rows() == M && A.cols() == K && B.rows() == K && B.cols() == N &&
                            C.rows() == M && C.cols() == N);
        const T alpha(alpha_in);
        const T beta(beta_in);
        const bool beta_zero = detail::all_zero(beta);
        for (int i = 0; i < M; ++i) {
            T a[K > 0 ? K : 1];
            LOOM_PRAGMA_UNROLL
            for (int k = 0; k < K; ++k) a[k] = detail::maybe_conj<conj_a>(A(i, k));
            LOOM_PRAGMA_UNROLL
            for (int j = 0; j < N; ++j) {
                T s(0);
                LOOM_PRAGMA_UNROLL
                for (int k = 0; k < K; ++k) s += a[k] * detail::maybe_conj<conj_b>(B(k, j));
                C(i, j) = beta_zero ? alpha * s : beta * C(i, j) + alpha * s;
            }
        }
        return 0;
    }
};

/// y := alpha op(A) x + beta y. When beta is 0, y is not read. Returns 0.
template <typename ModeT, typename TransA = Trans::NoTranspose>
struct Gemv : Invoke<ModeT, Gemv<ModeT, TransA>> {
    static_assert(is_trans_v<TransA>);

    template <typename Par, typename Alpha, MatrixViewType VA, VectorViewType VX, typename Beta,
              VectorViewType VY>
    LOOM_HOST_DEVICE static int run(const Par& par, const Alpha& alpha, const VA& A, const VX& x,
                                    const Beta& beta, const VY& y)
    {
        return detail::gemv<TransA>(par, alpha, A, x, beta, y);
    }
};

}  // namespace loom::batched
