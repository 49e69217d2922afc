// Batched Cholesky (Potrf/Potrs), Householder QR and ApplyQ, and UTV/SolveUTV in every mode:
// reconstructions, orthogonality and residuals in long double; failures reported per matrix.
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "batched/batched_support.hpp"

namespace {

using namespace loom::test::batched;
using loom::size_type;

constexpr int batch = 3;

template <typename V>
class BatchedFactor : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedFactor, loom::test::ValueTypes);

/// Hermitian positive definite: X Xᴴ + n I, with NaN in the triangle that must not be read.
template <typename V, typename UploT>
Batch<V> hpd_batch(int n, std::uint64_t seed)
{
    Batch<V> X(batch, n, n), A(batch, n, n);
    X.randomize(seed);
    for (int b = 0; b < batch; ++b) {
        auto x = X.get(b);
        auto a = x * adjoint(x);
        for (int i = 0; i < n; ++i) a(i, i) += n;
        A.set(b, a);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (std::is_same_v<UploT, Uplo::Lower> ? j > i : j < i) A.view(b)(i, j) = nan_value<V>();
            }
        }
    }
    return A;
}

/// The Hermitian matrix stored in one triangle.
template <typename UploT, typename L>
Mat<L> hermitian_from(const Mat<L>& A)
{
    Mat<L> H(A.rows, A.cols);
    for (int i = 0; i < A.rows; ++i) {
        for (int j = 0; j < A.cols; ++j) {
            const bool stored = std::is_same_v<UploT, Uplo::Lower> ? j <= i : j >= i;
            H(i, j) = stored ? A(i, j) : loom::conj(A(j, i));
        }
    }
    return H;
}

template <typename M, typename UploT, typename V>
void check_cholesky(int n)
{
    using L = Long<V>;
    constexpr bool lower = std::is_same_v<UploT, Uplo::Lower>;
    SCOPED_TRACE(describe(mode_name<M>(), n, n, lower ? "lower" : "upper"));
    auto A = hpd_batch<V, UploT>(n, 51);
    // Matrix 1 is indefinite at its last diagonal entry: info n.
    A.view(1)(n - 1, n - 1) = V(-1000);
    const Batch<V> A0 = A;
    Batch<V> B(batch, n, 3);
    B.randomize(52);
    const Batch<V> B0 = B;
    std::vector<int> info(batch, -1);
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        info[b] = call<Potrf<M, UploT>, M>(member, A.view(b));
        if (info[b] == 0) call<Potrs<M, UploT>, M>(member, A.view(b), B.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        if (b == 1) {
            EXPECT_EQ(info[b], n);
            continue;
        }
        EXPECT_EQ(info[b], 0);
        Mat<L> F(n, n);
        const auto got = A.get(b);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (lower ? j <= i : j >= i) F(i, j) = got(i, j);
                else EXPECT_TRUE(std::isnan(std::abs(got(i, j))));  // other triangle untouched
            }
        }
        const auto H = hermitian_from<UploT>(A0.get(b));
        const auto product = lower ? F * adjoint(F) : adjoint(F) * F;
        EXPECT_LE(relative_difference(product, H), tol<V>(n, 2));
        EXPECT_LE(relative_difference(H * B.get(b), B0.get(b)), tol<V>(n, 4));
    }
}

TYPED_TEST(BatchedFactor, CholeskyFactorsSolvesAndReportsIndefinite)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 2, 7, 16, 33}) {
            check_cholesky<M, Uplo::Lower, V>(n);
            check_cholesky<M, Uplo::Upper, V>(n);
        }
    });
}

/// Q (m × m) from the reflectors below the diagonal of F and tau, in long double.
template <typename L>
Mat<L> explicit_q(const Mat<L>& F, const std::vector<L>& tau)
{
    const int m = F.rows;
    auto Q = Mat<L>::identity(m);
    for (int k = static_cast<int>(tau.size()) - 1; k >= 0; --k) {
        std::vector<L> v(m, L(0));
        v[k] = 1;
        for (int i = k + 1; i < m; ++i) v[i] = F(i, k);
        // Q := H(k) Q = Q - tau v (vᴴ Q)
        for (int j = 0; j < m; ++j) {
            L w = 0;
            for (int i = k; i < m; ++i) w += loom::conj(v[i]) * Q(i, j);
            for (int i = k; i < m; ++i) Q(i, j) -= tau[k] * v[i] * w;
        }
    }
    return Q;
}

TYPED_TEST(BatchedFactor, QrReconstructsWithOrthonormalQ)
{
    using V = TypeParam;
    using L = Long<V>;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (const auto [m, n] : {std::pair{1, 1}, {2, 1}, {5, 5}, {9, 4}, {4, 9}, {16, 16}, {33, 33}, {33, 20}}) {
            SCOPED_TRACE(describe(mode_name<M>(), m, n));
            const int k = std::min(m, n);
            Batch<V> A(batch, m, n);
            A.randomize(53);
            // Matrix 1 has a zero column (tau 0 there) and a real first entry.
            for (int i = 0; i < m; ++i) A.view(1)(i, 0) = V(0);
            const Batch<V> A0 = A;
            VectorBatch<V> tau(batch, k);
            run_batch<M>(batch, [&](const auto& member) {
                const auto b = member.league_rank();
                call<QR<M>, M>(member, A.view(b), tau.view(b));
            });
            for (int b = 0; b < batch; ++b) {
                const auto F = A.get(b);
                const auto Q = explicit_q(F, tau.get(b));
                Mat<L> R(m, n);
                for (int i = 0; i < m; ++i) {
                    for (int j = i; j < n; ++j) R(i, j) = F(i, j);
                }
                EXPECT_LE(relative_difference(adjoint(Q) * Q, Mat<L>::identity(m)), tol<V>(m, 2));
                EXPECT_LE(relative_difference(Q * R, A0.get(b)), tol<V>(m, 2));
                for (int i = 0; i < k; ++i) EXPECT_LE(std::abs(std::imag(F(i, i))), tol<V>(m));
            }
            EXPECT_TRUE(A.padding_intact());
        }
    });
}

template <typename M, typename SideT, typename TransT, typename V>
void check_apply_q(int m, int n, int other)
{
    using L = Long<V>;
    constexpr bool left = std::is_same_v<SideT, Side::Left>;
    SCOPED_TRACE(describe(mode_name<M>(), m, n,
                          std::string(left ? "left " : "right ") + trans_name<TransT>()));
    const int k = std::min(m, n);
    Batch<V> A(batch, m, n);
    A.randomize(54);
    VectorBatch<V> tau(batch, k);
    Batch<V> B(batch, left ? m : other, left ? other : m);
    B.randomize(55);
    const Batch<V> B0 = B;
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        call<QR<M>, M>(member, A.view(b), tau.view(b));
        call<ApplyQ<M, SideT, TransT>, M>(member, A.view(b), tau.view(b), B.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        const auto Q = op<TransT>(explicit_q(A.get(b), tau.get(b)));
        const auto expected = left ? Q * B0.get(b) : B0.get(b) * Q;
        EXPECT_LE(relative_difference(B.get(b), expected), tol<V>(m, 2));
    }
}

TYPED_TEST(BatchedFactor, ApplyQMatchesExplicitQ)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (const auto [m, n] : {std::pair{1, 1}, {6, 3}, {3, 6}, {17, 17}, {33, 8}}) {
            check_apply_q<M, Side::Left, Trans::NoTranspose, V>(m, n, 3);
            check_apply_q<M, Side::Left, Trans::ConjTranspose, V>(m, n, 2);
            check_apply_q<M, Side::Right, Trans::NoTranspose, V>(m, n, 4);
            check_apply_q<M, Side::Right, Trans::ConjTranspose, V>(m, n, 1);
        }
    });
}

/// Orthonormal basis (columns) of span(Y), by Gram-Schmidt twice, in long double.
template <typename L>
Mat<L> orthonormal_basis(const Mat<L>& Y)
{
    Mat<L> Q = Y;
    for (int j = 0; j < Q.cols; ++j) {
        for (int pass = 0; pass < 2; ++pass) {
            for (int p = 0; p < j; ++p) {
                L d = 0;
                for (int i = 0; i < Q.rows; ++i) d += loom::conj(Q(i, p)) * Q(i, j);
                for (int i = 0; i < Q.rows; ++i) Q(i, j) -= d * Q(i, p);
            }
        }
        long double norm = 0;
        for (int i = 0; i < Q.rows; ++i) norm += std::norm(Q(i, j));
        norm = std::sqrt(norm);
        for (int i = 0; i < Q.rows; ++i) Q(i, j) /= norm;
    }
    return Q;
}

template <typename M, typename V>
void check_utv(int m, int n, int rank)
{
    using L = Long<V>;
    SCOPED_TRACE(describe(mode_name<M>(), m, n, "rank " + std::to_string(rank)));
    const int q = std::min(m, n);
    // A = X Yᴴ with X m × rank and Y n × rank: exactly rank deficient (up to rounding).
    Batch<V> X(batch, m, rank), Y(batch, n, rank), A(batch, m, n);
    X.randomize(56);
    Y.randomize(57);
    for (int b = 0; b < batch; ++b) A.set(b, X.get(b) * adjoint(Y.get(b)));
    const Batch<V> A0 = A;
    Batch<V> U(batch, m, q), Vt(batch, q, n), W(batch, std::max(rank, 1), 2);
    PivotBatch jpiv(batch, n);
    VectorBatch<V> work(batch, q);
    Batch<V> B(batch, m, 2), Xs(batch, n, 2);
    B.randomize(58);
    const Batch<V> B0 = B;
    std::vector<int> ranks(batch, -1);
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        ranks[b] = call<UTV<M>, M>(member, A.view(b), jpiv.view(b), U.view(b), Vt.view(b),
                                   work.view(b));
        call<SolveUTV<M>, M>(member, U.view(b), A.view(b), Vt.view(b), jpiv.view(b), ranks[b],
                             B.view(b), Xs.view(b), W.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        ASSERT_EQ(ranks[b], rank) << "matrix " << b;
        const int r = ranks[b];
        const auto F = A.get(b);
        const auto u = U.get(b);
        const auto v = Vt.get(b);
        Mat<L> T(r, r), Ur(m, r), Vr(r, n);
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) {
                if (i < r && j <= i) T(i, j) = F(i, j);
                else EXPECT_EQ(F(i, j), L(0));
            }
        }
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < r; ++j) Ur(i, j) = u(i, j);
        }
        for (int i = 0; i < r; ++i) {
            for (int j = 0; j < n; ++j) Vr(i, j) = v(i, j);
        }
        EXPECT_LE(relative_difference(adjoint(u) * u, Mat<L>::identity(q)), tol<V>(m, 2));
        EXPECT_LE(relative_difference(v * adjoint(v), Mat<L>::identity(q)), tol<V>(n, 2));
        // A P = U T V, P from the interchanges.
        auto AP = A0.get(b);
        for (int k = 0; k < n; ++k) {
            const int p = jpiv.view(b)(k);
            for (int i = 0; i < m; ++i) std::swap(AP(i, k), AP(i, p));
        }
        EXPECT_LE(relative_difference(Ur * T * Vr, AP), tol<V>(std::max(m, n), 4));
        // SolveUTV: the normal equations hold, and X is orthogonal to the null space of A, the
        // orthogonal complement of span(Y).
        const auto a = A0.get(b);
        const auto x = Xs.get(b);
        const auto residual = a * x;
        Mat<L> r_res = residual;
        const auto rhs = B0.get(b);
        for (std::size_t e = 0; e < r_res.values.size(); ++e) r_res.values[e] -= rhs.values[e];
        const auto normal = adjoint(a) * r_res;
        const auto scale = max_abs(a) * max_abs(a) * max_abs(x) * m * n + max_abs(a) * max_abs(rhs) * m;
        EXPECT_LE(static_cast<double>(max_abs(normal) / scale), tol<V>(std::max(m, n), 4));
        const auto basis = orthonormal_basis(Y.get(b));
        auto in_span = basis * (adjoint(basis) * x);
        for (std::size_t e = 0; e < in_span.values.size(); ++e) in_span.values[e] -= x.values[e];
        EXPECT_LE(static_cast<double>(max_abs(in_span) / std::max<long double>(1, max_abs(x))),
                  tol<V>(std::max(m, n), 40));
    }
}

TYPED_TEST(BatchedFactor, UtvRevealsRankAndSolvesLeastSquares)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        check_utv<M, V>(1, 1, 1);
        check_utv<M, V>(5, 5, 5);
        check_utv<M, V>(8, 8, 3);
        check_utv<M, V>(12, 7, 7);
        check_utv<M, V>(7, 12, 4);
        check_utv<M, V>(16, 16, 1);
        check_utv<M, V>(33, 33, 20);
    });
}

TYPED_TEST(BatchedFactor, UtvOfZeroMatrixHasRankZero)
{
    using V = TypeParam;
    Batch<V> A(1, 4, 3), U(1, 4, 3), Vt(1, 3, 3), W(1, 1, 1), B(1, 4, 1), X(1, 3, 1);
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) A.view(0)(i, j) = V(0);
    }
    B.randomize(59);
    PivotBatch jpiv(1, 3);
    VectorBatch<V> work(1, 3);
    const int rank = UTV<Mode::Serial>::invoke(A.view(0), jpiv.view(0), U.view(0), Vt.view(0), work.view(0));
    EXPECT_EQ(rank, 0);
    SolveUTV<Mode::Serial>::invoke(U.view(0), A.view(0), Vt.view(0), jpiv.view(0), rank, B.view(0),
                                   X.view(0), W.view(0));
    EXPECT_EQ(max_abs(X.get(0)), 0);
}

}  // namespace
