// Batched LU (with and without pivoting), Getrs, Gesv, InverseLU and banded LU in every mode:
// reconstructions and residuals in long double, zero pivots reported per matrix.
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "batched/batched_support.hpp"

namespace {

using namespace loom::test::batched;
using loom::size_type;

constexpr int batch = 3;

template <typename V>
class BatchedLu : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedLu, loom::test::ValueTypes);

/// P L U from the factored matrix and its pivots (rows interchanged back).
template <typename L>
Mat<L> reconstruct_lu(const Mat<L>& F, const std::vector<int>& ipiv)
{
    const int m = F.rows;
    const int n = F.cols;
    const int k = std::min(m, n);
    Mat<L> Lf(m, k), U(k, n);
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            if (j < i && j < k) Lf(i, j) = F(i, j);
            if (i == j && i < k) Lf(i, i) = 1;
            if (j >= i && i < k) U(i, j) = F(i, j);
        }
    }
    auto A = Lf * U;
    for (int s = static_cast<int>(ipiv.size()) - 1; s >= 0; --s) {
        for (int j = 0; j < n; ++j) std::swap(A(s, j), A(ipiv[s], j));
    }
    return A;
}

std::vector<int> pivots_of(PivotBatch& p, size_type b, int size)
{
    std::vector<int> result(size);
    for (int k = 0; k < size; ++k) result[k] = p.view(b)(k);
    return result;
}

/// The Hilbert matrix, ill-conditioned (about 1e16 at n = 12).
template <typename V>
void make_hilbert(Batch<V>& A, size_type b)
{
    for (int i = 0; i < A.rows(); ++i) {
        for (int j = 0; j < A.cols(); ++j) A.view(b)(i, j) = V(1.0f / static_cast<float>(i + j + 1));
    }
}

TYPED_TEST(BatchedLu, PartialPivotingFactorsAndReportsZeroColumns)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (const auto [m, n] :
             {std::pair{1, 1}, {2, 2}, {5, 5}, {8, 8}, {12, 12}, {16, 16}, {33, 33}, {7, 4}, {4, 7}}) {
            SCOPED_TRACE(describe(mode_name<M>(), m, n));
            const int k = std::min(m, n);
            Batch<V> A(batch, m, n);
            A.randomize(31);
            // Matrix 1 has a zero column 2 (info 3); matrix 2 is a Hilbert matrix.
            if (n > 2) {
                for (int i = 0; i < m; ++i) A.view(1)(i, 2) = V(0);
            }
            make_hilbert(A, 2);
            const Batch<V> A0 = A;
            PivotBatch p(batch, k);
            std::vector<int> info(batch, -1);
            run_batch<M>(batch, [&](const auto& member) {
                const auto b = member.league_rank();
                info[b] = call<Getrf<M>, M>(member, A.view(b), p.view(b));
            });
            for (int b = 0; b < batch; ++b) {
                EXPECT_EQ(info[b], b == 1 && n > 2 && m > 2 ? 3 : 0) << "matrix " << b;
                const auto ipiv = pivots_of(p, b, k);
                for (int s = 0; s < k; ++s) {
                    EXPECT_GE(ipiv[s], s);
                    EXPECT_LT(ipiv[s], m);
                }
                const auto F = A.get(b);
                for (int i = 0; i < m; ++i) {
                    for (int j = 0; j < std::min(i, k); ++j) {
                        EXPECT_LE(std::abs(F(i, j)), 1.5L);  // |Re| + |Im| pivoting: |l| <= sqrt(2)
                    }
                }
                // Backward stable even for the Hilbert matrix.
                EXPECT_LE(relative_difference(reconstruct_lu(F, ipiv), A0.get(b)), tol<V>(k, 2));
            }
            EXPECT_TRUE(A.padding_intact());
        }
    });
}

TYPED_TEST(BatchedLu, NoPivotingFactorsAndStopsAtZeroPivot)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (const auto [m, n] : {std::pair{1, 1}, {3, 3}, {8, 8}, {17, 17}, {33, 33}, {9, 5}, {5, 9}}) {
            SCOPED_TRACE(describe(mode_name<M>(), m, n));
            const int k = std::min(m, n);
            Batch<V> A(batch, m, n);
            A.randomize(32, std::max(m, n));
            // Matrix 1: zero first pivot. Matrix 2: singular leading 2 × 2 block.
            A.view(1)(0, 0) = V(0);
            if (k >= 2) {
                A.view(2)(0, 0) = A.view(2)(1, 0) = V(2);
                A.view(2)(1, 1) = A.view(2)(0, 1);
            }
            const Batch<V> A0 = A;
            std::vector<int> info(batch, -1);
            run_batch<M>(batch, [&](const auto& member) {
                const auto b = member.league_rank();
                info[b] = call<LU<M>, M>(member, A.view(b));
            });
            EXPECT_EQ(info[0], 0);
            EXPECT_EQ(info[1], 1);
            EXPECT_EQ(relative_difference(A.get(1), A0.get(1)), 0);  // stopped before any change
            if (k >= 2) EXPECT_EQ(info[2], 2);
            std::vector<int> identity(k);
            for (int s = 0; s < k; ++s) identity[s] = s;
            EXPECT_LE(relative_difference(reconstruct_lu(A.get(0), identity), A0.get(0)), tol<V>(k));
        }
    });
}

template <typename M, typename TransT, typename PivotT, typename V>
void check_getrs(int n, int nrhs, bool vector)
{
    using L = Long<V>;
    constexpr bool pivoted = std::is_same_v<PivotT, Pivot::Partial>;
    SCOPED_TRACE(describe(mode_name<M>(), n, nrhs,
                          std::string(trans_name<TransT>()) + (pivoted ? " pivoted" : " unpivoted") +
                              (vector ? " vector" : "")));
    Batch<V> A(batch, n, n);
    A.randomize(33, pivoted ? 0 : n);
    const Batch<V> A0 = A;
    Batch<V> B(batch, n, nrhs);
    VectorBatch<V> x(batch, n);
    B.randomize(34);
    x.randomize(35);
    const Batch<V> B0 = B;
    auto x0 = x;
    PivotBatch p(batch, n);
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        if constexpr (pivoted) {
            call<Getrf<M>, M>(member, A.view(b), p.view(b));
            if (vector) {
                call<Getrs<M, TransT>, M>(member, A.view(b), p.view(b), x.view(b));
            } else {
                call<Getrs<M, TransT>, M>(member, A.view(b), p.view(b), B.view(b));
            }
        } else {
            call<LU<M>, M>(member, A.view(b));
            if (vector) {
                call<Getrs<M, TransT, Pivot::None>, M>(member, A.view(b), x.view(b));
            } else {
                call<Getrs<M, TransT, Pivot::None>, M>(member, A.view(b), B.view(b));
            }
        }
    });
    for (int b = 0; b < batch; ++b) {
        const auto opA = op<TransT>(A0.get(b));
        Mat<L> X = B.get(b), rhs = B0.get(b);
        if (vector) {
            X = Mat<L>(n, 1);
            rhs = Mat<L>(n, 1);
            const auto got = x.get(b);
            const auto orig = x0.get(b);
            for (int i = 0; i < n; ++i) {
                X(i, 0) = got[i];
                rhs(i, 0) = orig[i];
            }
        }
        // Residual relative to |A| |X|: random matrices may be moderately ill-conditioned.
        const auto scale = max_abs(opA) * max_abs(X) * n + max_abs(rhs);
        const auto residual = opA * X;
        long double r = 0;
        for (std::size_t e = 0; e < rhs.values.size(); ++e) {
            r = std::max(r, static_cast<long double>(std::abs(residual.values[e] - rhs.values[e])));
        }
        EXPECT_LE(static_cast<double>(r / scale), tol<V>(n)) << "matrix " << b;
    }
}

TYPED_TEST(BatchedLu, GetrsSolves)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 4, 11, 33}) {
            for_each_trans([&](auto t) {
                using T = decltype(t);
                check_getrs<M, T, Pivot::Partial, V>(n, 3, false);
                check_getrs<M, T, Pivot::Partial, V>(n, 1, true);
                check_getrs<M, T, Pivot::None, V>(n, 2, false);
                check_getrs<M, T, Pivot::None, V>(n, 1, true);
            });
        }
    });
}

TYPED_TEST(BatchedLu, GesvSolvesOrReportsSingular)
{
    using V = TypeParam;
    using L = Long<V>;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 6, 20, 33}) {
            SCOPED_TRACE(describe(mode_name<M>(), n, n));
            Batch<V> A(batch, n, n), A2(batch, n, n);
            A.randomize(36, n);
            for (int i = 0; i < n; ++i) A.view(1)(i, n - 1) = V(0);  // singular: info n
            A2 = A;
            const Batch<V> A0 = A;
            Batch<V> B(batch, n, 2), B2(batch, n, 2);
            B.randomize(37);
            B2 = B;
            const Batch<V> B0 = B;
            PivotBatch p(batch, n);
            std::vector<int> info(batch), info2(batch);
            run_batch<M>(batch, [&](const auto& member) {
                const auto b = member.league_rank();
                info[b] = call<Gesv<M>, M>(member, A.view(b), p.view(b), B.view(b));
                info2[b] = call<Gesv<M, Pivot::None>, M>(member, A2.view(b), B2.view(b));
            });
            for (int b = 0; b < batch; ++b) {
                if (b == 1) {
                    EXPECT_EQ(info[b], n);
                    EXPECT_EQ(info2[b], n);
                    EXPECT_EQ(relative_difference(B.get(b), B0.get(b)), 0);
                    EXPECT_EQ(relative_difference(B2.get(b), B0.get(b)), 0);
                    continue;
                }
                EXPECT_EQ(info[b], 0);
                EXPECT_EQ(info2[b], 0);
                const auto a = A0.get(b);
                EXPECT_LE(relative_difference(a * B.get(b), B0.get(b)), tol<V>(n, 4));
                EXPECT_LE(relative_difference(a * B2.get(b), B0.get(b)), tol<V>(n, 4));
            }
            (void)sizeof(L);
        }
    });
}

TYPED_TEST(BatchedLu, InverseLuInvertsOrReportsSingular)
{
    using V = TypeParam;
    using L = Long<V>;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 2, 7, 16, 33}) {
            SCOPED_TRACE(describe(mode_name<M>(), n, n));
            Batch<V> A(batch, n, n);
            A.randomize(38, n);
            for (int i = 0; i < n; ++i) A.view(2)(i, 0) = V(0);  // singular: info 1
            Batch<V> A2 = A;
            const Batch<V> A0 = A;
            PivotBatch p(batch, n);
            VectorBatch<V> work(batch, n);
            std::vector<int> info(batch), info2(batch);
            run_batch<M>(batch, [&](const auto& member) {
                const auto b = member.league_rank();
                info[b] = call<Getrf<M>, M>(member, A.view(b), p.view(b));
                if (info[b] == 0) {
                    info[b] = call<InverseLU<M>, M>(member, A.view(b), p.view(b), work.view(b));
                }
                info2[b] = call<LU<M>, M>(member, A2.view(b));
                if (info2[b] == 0) {
                    info2[b] = call<InverseLU<M, Pivot::None>, M>(member, A2.view(b), work.view(b));
                }
            });
            for (int b = 0; b < batch; ++b) {
                if (b == 2) {
                    EXPECT_EQ(info[b], 1);
                    EXPECT_EQ(info2[b], 1);
                    continue;
                }
                EXPECT_EQ(info[b], 0);
                EXPECT_EQ(info2[b], 0);
                EXPECT_LE(relative_difference(A0.get(b) * A.get(b), Mat<L>::identity(n)), tol<V>(n, 4));
                EXPECT_LE(relative_difference(A0.get(b) * A2.get(b), Mat<L>::identity(n)), tol<V>(n, 4));
            }
        }
    });
}

TYPED_TEST(BatchedLu, InverseLuOfSingularUpperFactorLeavesItUnchanged)
{
    using V = TypeParam;
    Batch<V> A(1, 3, 3);
    A.randomize(39, 3);
    A.view(0)(1, 1) = V(0);
    const Batch<V> A0 = A;
    VectorBatch<V> work(1, 3);
    PivotBatch p(1, 3);
    for (int k = 0; k < 3; ++k) p.view(0)(k) = k;
    const int info = InverseLU<Mode::Serial>::invoke(A.view(0), p.view(0), work.view(0));
    EXPECT_EQ(info, 2);
    EXPECT_EQ(relative_difference(A.get(0), A0.get(0)), 0);
}

template <typename M, typename V>
void check_banded(int n, int kl, int ku)
{
    using L = Long<V>;
    SCOPED_TRACE(describe(mode_name<M>(), n, n,
                          "kl " + std::to_string(kl) + " ku " + std::to_string(ku)));
    const int ldab = 2 * kl + ku + 1;
    Batch<V> dense(batch, n, n);
    dense.randomize(40, 0.5);
    for (int b = 0; b < batch; ++b) {
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (i - j > kl || j - i > ku) dense.view(b)(i, j) = V(0);
            }
        }
    }
    // Matrix 1 has a zero column at n / 2: info n / 2 + 1.
    for (int i = 0; i < n; ++i) dense.view(1)(i, n / 2) = V(0);
    Batch<V> AB(batch, ldab, n);
    for (int b = 0; b < batch; ++b) {
        for (int r = 0; r < ldab; ++r) {
            for (int j = 0; j < n; ++j) {
                const int i = r - kl - ku + j;
                // The fill-in rows need not be set: NaN shows whether they are read first.
                AB.view(b)(r, j) = r < kl || i < 0 || i >= n ? nan_value<V>() : dense.view(b)(i, j);
            }
        }
    }
    PivotBatch p(batch, n);
    Batch<V> Bn(batch, n, 2), Bt(batch, n, 2), Bc(batch, n, 2);
    Bn.randomize(41);
    Bt = Bn;
    Bc = Bn;
    const Batch<V> B0 = Bn;
    std::vector<int> info(batch, -1);
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        info[b] = call<Gbtrf<M>, M>(member, AB.view(b), p.view(b), kl, ku);
        if (info[b] != 0) return;
        call<Gbtrs<M>, M>(member, AB.view(b), p.view(b), kl, ku, Bn.view(b));
        call<Gbtrs<M, Trans::Transpose>, M>(member, AB.view(b), p.view(b), kl, ku, Bt.view(b));
        call<Gbtrs<M, Trans::ConjTranspose>, M>(member, AB.view(b), p.view(b), kl, ku, Bc.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        if (b == 1) {
            EXPECT_EQ(info[b], n / 2 + 1);
            continue;
        }
        ASSERT_EQ(info[b], 0);
        const auto A = dense.get(b);
        const auto rhs = B0.get(b);
        const auto check = [&](const Mat<L>& opA, const Mat<L>& X) {
            const auto scale = max_abs(opA) * max_abs(X) * n + max_abs(rhs);
            const auto residual = opA * X;
            long double r = 0;
            for (std::size_t e = 0; e < rhs.values.size(); ++e) {
                r = std::max(r, static_cast<long double>(std::abs(residual.values[e] - rhs.values[e])));
            }
            EXPECT_LE(static_cast<double>(r / scale), tol<V>(n)) << "matrix " << b;
        };
        check(A, Bn.get(b));
        check(adjoint(A, false), Bt.get(b));
        check(adjoint(A, true), Bc.get(b));
    }
}

TYPED_TEST(BatchedLu, BandedLuSolvesInAllTranspositions)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 2, 5, 17, 33}) {
            for (const auto [kl, ku] : {std::pair{0, 0}, {1, 1}, {2, 1}, {1, 3}, {3, 0}, {0, 2}}) {
                check_banded<M, V>(n, kl, ku);
            }
        }
    });
}

}  // namespace
