// Batched Gemm, Gemv, Syr and the level-1 routines, every mode against a long double reference.
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "batched/batched_support.hpp"

namespace {

using namespace loom::test::batched;
using loom::size_type;

constexpr int batch = 4;

template <typename V>
class BatchedBlas : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedBlas, loom::test::ValueTypes);

struct Shape {
    int m, n, k;
};

TYPED_TEST(BatchedBlas, GemmMatchesReference)
{
    using V = TypeParam;
    using L = Long<V>;
    const V alpha = scalar<V>(1.5, 0.5);
    const V beta = scalar<V>(-0.5, 0.25);
    const Shape shapes[] = {{1, 1, 1}, {2, 3, 4}, {5, 5, 5}, {8, 3, 9}, {16, 16, 16}, {17, 33, 7},
                            {0, 3, 2}, {3, 2, 0}};
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for_each_trans([&](auto ta) {
            for_each_trans([&](auto tb) {
                using TA = decltype(ta);
                using TB = decltype(tb);
                for (const auto& s : shapes) {
                    for (const bool zero_beta : {false, true}) {
                        SCOPED_TRACE(describe(mode_name<M>(), s.m, s.n,
                                              std::string(trans_name<TA>()) + trans_name<TB>() +
                                                  " k=" + std::to_string(s.k) +
                                                  (zero_beta ? " beta=0" : "")));
                        const bool at = loom::batched::transposes_v<TA>;
                        const bool bt = loom::batched::transposes_v<TB>;
                        Batch<V> A(batch, at ? s.k : s.m, at ? s.m : s.k);
                        Batch<V> B(batch, bt ? s.n : s.k, bt ? s.k : s.n);
                        Batch<V> C(batch, s.m, s.n);
                        A.randomize(1);
                        B.randomize(2);
                        C.randomize(3);
                        if (zero_beta) {
                            for (int b = 0; b < batch; ++b) {
                                for (int i = 0; i < s.m; ++i) {
                                    for (int j = 0; j < s.n; ++j) C.view(b)(i, j) = nan_value<V>();
                                }
                            }
                        }
                        const Batch<V> C0 = C;
                        const V beta_used = zero_beta ? V(0) : beta;
                        run_batch<M>(batch, [&](const auto& member) {
                            const auto b = member.league_rank();
                            call<Gemm<M, TA, TB>, M>(member, alpha, std::as_const(A).view(b),
                                                     std::as_const(B).view(b), beta_used,
                                                     C.view(b));
                        });
                        for (int b = 0; b < batch; ++b) {
                            auto expected = op<TA>(A.get(b)) * op<TB>(B.get(b));
                            const auto c0 = C0.get(b);
                            for (std::size_t e = 0; e < expected.values.size(); ++e) {
                                expected.values[e] = L(alpha) * expected.values[e] +
                                                     (zero_beta ? L(0) : L(beta) * c0.values[e]);
                            }
                            EXPECT_LE(relative_difference(C.get(b), expected), tol<V>(s.k + 1));
                        }
                        EXPECT_TRUE(C.padding_intact());
                    }
                }
            });
        });
    });
}

TYPED_TEST(BatchedBlas, GemvMatchesReference)
{
    using V = TypeParam;
    using L = Long<V>;
    const V alpha = scalar<V>(-1.25, 0.5);
    const V beta = scalar<V>(0.5, -1);
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for_each_trans([&](auto ta) {
            using TA = decltype(ta);
            for (const auto [m, n] : {std::pair{1, 1}, {3, 5}, {8, 8}, {33, 17}, {16, 32}, {0, 4}}) {
                for (const bool zero_beta : {false, true}) {
                    SCOPED_TRACE(describe(mode_name<M>(), m, n, trans_name<TA>()));
                    const bool at = loom::batched::transposes_v<TA>;
                    Batch<V> A(batch, m, n);
                    A.randomize(4);
                    VectorBatch<V> x(batch, at ? m : n);
                    VectorBatch<V> y(batch, at ? n : m);
                    x.randomize(5);
                    y.randomize(6);
                    auto y0 = y;
                    if (zero_beta) y = VectorBatch<V>(batch, at ? n : m, nan_value<V>());
                    run_batch<M>(batch, [&](const auto& member) {
                        const auto b = member.league_rank();
                        call<Gemv<M, TA>, M>(member, alpha, std::as_const(A).view(b), x.view(b),
                                             zero_beta ? V(0) : beta, y.view(b));
                    });
                    for (int b = 0; b < batch; ++b) {
                        const auto opA = op<TA>(A.get(b));
                        const auto xs = x.get(b);
                        const auto ys = y0.get(b);
                        const auto got = y.get(b);
                        for (int i = 0; i < opA.rows; ++i) {
                            L s = 0;
                            for (int k = 0; k < opA.cols; ++k) s += opA(i, k) * xs[k];
                            const L expected = L(alpha) * s + (zero_beta ? L(0) : L(beta) * ys[i]);
                            EXPECT_LE(std::abs(got[i] - expected), tol<V>(n + 1) * (1 + std::abs(expected)))
                                << "b " << b << " i " << i;
                        }
                    }
                }
            }
        });
    });
}

template <typename M, typename UploT, typename TransT, typename V>
void check_syr(int n)
{
    using L = Long<V>;
    SCOPED_TRACE(describe(mode_name<M>(), n, n,
                          std::string(std::is_same_v<UploT, Uplo::Lower> ? "lower " : "upper ") +
                              trans_name<TransT>()));
    constexpr bool conj = std::is_same_v<TransT, Trans::ConjTranspose>;
    const V alpha = conj ? scalar<V>(0.75) : scalar<V>(0.75, -0.5);
    Batch<V> A(batch, n, n);
    A.randomize(7);
    VectorBatch<V> x(batch, n);
    x.randomize(8);
    const Batch<V> A0 = A;
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        call<Syr<M, UploT, TransT>, M>(member, alpha, x.view(b), A.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        auto expected = A0.get(b);
        const auto xs = x.get(b);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                const bool in_triangle = std::is_same_v<UploT, Uplo::Lower> ? j <= i : j >= i;
                if (!in_triangle) continue;
                expected(i, j) += L(alpha) * xs[i] * (conj ? loom::conj(xs[j]) : xs[j]);
                if (conj && i == j) expected(i, i) = L(std::real(expected(i, i)));
            }
        }
        EXPECT_LE(relative_difference(A.get(b), expected), tol<V>(2));
    }
}

TYPED_TEST(BatchedBlas, SyrUpdatesOneTriangle)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 4, 17, 33}) {
            check_syr<M, Uplo::Lower, Trans::Transpose, V>(n);
            check_syr<M, Uplo::Lower, Trans::ConjTranspose, V>(n);
            check_syr<M, Uplo::Upper, Trans::Transpose, V>(n);
            check_syr<M, Uplo::Upper, Trans::ConjTranspose, V>(n);
        }
    });
}

TYPED_TEST(BatchedBlas, Level1MatchesReference)
{
    using V = TypeParam;
    using L = Long<V>;
    using R = loom::remove_complex_t<V>;
    const V alpha = scalar<V>(2.5, -1);
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {0, 1, 7, 32, 33}) {
            SCOPED_TRACE(describe(mode_name<M>(), n, 1));
            VectorBatch<V> x(batch, n), y(batch, n), z(batch, n);
            x.randomize(9);
            y.randomize(10);
            const auto y0 = y;
            std::vector<V> dots(batch), dotus(batch);
            std::vector<R> norms(batch);
            run_batch<M>(batch, [&](const auto& member) {
                const auto b = member.league_rank();
                call<Axpy<M>, M>(member, alpha, x.view(b), y.view(b));
                call<Copy<M>, M>(member, x.view(b), z.view(b));
                call<Scale<M>, M>(member, alpha, z.view(b));
                dots[b] = call<Dot<M>, M>(member, x.view(b), y0.view(b));
                dotus[b] = call<Dot<M, Trans::Transpose>, M>(member, x.view(b), y0.view(b));
                norms[b] = call<Nrm2<M>, M>(member, x.view(b));
            });
            for (int b = 0; b < batch; ++b) {
                const auto xs = x.get(b);
                const auto ys = y0.get(b);
                const auto yn = y.get(b);
                const auto zn = z.get(b);
                L dot = 0, dotu = 0;
                long double norm = 0;
                for (int i = 0; i < n; ++i) {
                    EXPECT_LE(std::abs(yn[i] - (L(alpha) * xs[i] + ys[i])), tol<V>(2) * 4);
                    EXPECT_LE(std::abs(zn[i] - L(alpha) * xs[i]), tol<V>(2) * 4);
                    dot += loom::conj(xs[i]) * ys[i];
                    dotu += xs[i] * ys[i];
                    norm += std::norm(xs[i]);
                }
                EXPECT_LE(std::abs(L(dots[b]) - dot), tol<V>(n));
                EXPECT_LE(std::abs(L(dotus[b]) - dotu), tol<V>(n));
                EXPECT_LE(std::abs(norms[b] - std::sqrt(norm)), tol<V>(n));
            }
        }
    });
}

TYPED_TEST(BatchedBlas, MatrixElementwiseRoutines)
{
    using V = TypeParam;
    using L = Long<V>;
    using R = loom::remove_complex_t<V>;
    const V alpha = scalar<V>(-0.5, 2);
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (const auto [m, n] : {std::pair{1, 1}, {3, 5}, {33, 32}}) {
            SCOPED_TRACE(describe(mode_name<M>(), m, n));
            Batch<V> A(batch, m, n), B(batch, m, n), Ct(batch, n, m), Ch(batch, n, m),
                I(batch, m, n), S(batch, m, n), D(batch, m, n);
            A.randomize(11);
            B.randomize(12);
            D.randomize(13);
            // Diagonal entries on both sides of zero, and exactly zero.
            for (int b = 0; b < batch; ++b) D.view(b)(0, 0) = V(0);
            const auto B0 = B;
            const auto D0 = D;
            const R tiny = R(1e-3);
            run_batch<M>(batch, [&](const auto& member) {
                const auto b = member.league_rank();
                call<Axpy<M>, M>(member, alpha, std::as_const(A).view(b), B.view(b));
                call<Copy<M, Trans::Transpose>, M>(member, std::as_const(A).view(b), Ct.view(b));
                call<Copy<M, Trans::ConjTranspose>, M>(member, A.view(b), Ch.view(b));
                call<SetIdentity<M>, M>(member, I.view(b));
                call<Set<M>, M>(member, alpha, S.view(b));
                call<AddRadial<M>, M>(member, -tiny, D.view(b));
            });
            for (int b = 0; b < batch; ++b) {
                const auto a = A.get(b);
                auto expected = B0.get(b);
                for (std::size_t e = 0; e < expected.values.size(); ++e) {
                    expected.values[e] += L(alpha) * a.values[e];
                }
                EXPECT_LE(relative_difference(B.get(b), expected), tol<V>(2));
                EXPECT_EQ(relative_difference(Ct.get(b), adjoint(a, false)), 0);
                EXPECT_EQ(relative_difference(Ch.get(b), adjoint(a, true)), 0);
                auto identity = Mat<L>(m, n);
                for (int i = 0; i < std::min(m, n); ++i) identity(i, i) = 1;
                EXPECT_EQ(relative_difference(I.get(b), identity), 0);
                auto set = Mat<L>(m, n);
                for (auto& v : set.values) v = L(alpha);
                EXPECT_EQ(relative_difference(S.get(b), set), 0);
                auto radial = D0.get(b);
                for (int i = 0; i < std::min(m, n); ++i) {
                    radial(i, i) += std::real(radial(i, i)) < 0 ? -L(tiny) : L(tiny);
                }
                EXPECT_LE(relative_difference(D.get(b), radial), tol<V>(1));
            }
            EXPECT_TRUE(B.padding_intact());
            EXPECT_TRUE(D.padding_intact());
        }
    });
}

}  // namespace
