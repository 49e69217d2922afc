// Batched Trsm, Trmm, Trsv and Trtri in every mode, side, triangle, transposition and diagonal,
// against a long double reference. The triangle a routine must not read holds NaN (and so does
// the diagonal of a unit triangular matrix): reading it would show in the result.
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "batched/batched_support.hpp"

namespace {

using namespace loom::test::batched;
using loom::size_type;

constexpr int batch = 3;

template <typename V>
class BatchedTriangular : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedTriangular, loom::test::ValueTypes);

template <typename UploT, typename DiagT>
bool stored(int i, int j)
{
    if (i == j) return std::is_same_v<DiagT, Diag::NonUnit>;
    return std::is_same_v<UploT, Uplo::Lower> ? i > j : i < j;
}

/// A well-conditioned triangular batch (off-diagonal entries O(1/n), diagonal in [1, 2]), NaN
/// wherever the routine must not read.
template <typename V, typename UploT, typename DiagT>
Batch<V> triangular_batch(int n, std::uint64_t seed)
{
    Batch<V> A(batch, n, n);
    A.randomize(seed);
    for (int b = 0; b < batch; ++b) {
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                auto& a = A.view(b)(i, j);
                if (!stored<UploT, DiagT>(i, j)) {
                    a = nan_value<V>();
                } else if (i == j) {
                    a = V(1.5) + a * V(0.5);
                } else {
                    a = a / V(static_cast<float>(n));
                }
            }
        }
    }
    return A;
}

/// The triangular matrix a routine sees (unit diagonal made explicit, the rest zero).
template <typename UploT, typename DiagT, typename L>
Mat<L> as_triangular(Mat<L> A)
{
    for (int i = 0; i < A.rows; ++i) {
        for (int j = 0; j < A.cols; ++j) {
            if (i == j && std::is_same_v<DiagT, Diag::Unit>) A(i, j) = 1;
            else if (!stored<UploT, DiagT>(i, j) && i != j) A(i, j) = 0;
        }
    }
    return A;
}

template <typename M, typename SideT, typename UploT, typename TransT, typename DiagT, typename V>
void check_trsm_trmm(int n, int nrhs)
{
    using L = Long<V>;
    constexpr bool left = std::is_same_v<SideT, Side::Left>;
    SCOPED_TRACE(describe(mode_name<M>(), n, nrhs,
                          std::string(left ? "left " : "right ") +
                              (std::is_same_v<UploT, Uplo::Lower> ? "lower " : "upper ") +
                              trans_name<TransT>() +
                              (std::is_same_v<DiagT, Diag::Unit> ? " unit" : " non-unit")));
    const V alpha = scalar<V>(1.25, -0.5);
    const auto A = triangular_batch<V, UploT, DiagT>(n, 21);
    Batch<V> X(batch, left ? n : nrhs, left ? nrhs : n);
    X.randomize(22);
    const Batch<V> B0 = X;
    Batch<V> Y = X;
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        call<Trsm<M, SideT, UploT, TransT, DiagT>, M>(member, alpha, A.view(b), X.view(b));
        call<Trmm<M, SideT, UploT, TransT, DiagT>, M>(member, alpha, A.view(b), Y.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        const auto T = op<TransT>(as_triangular<UploT, DiagT>(A.get(b)));
        auto rhs = B0.get(b);
        for (auto& v : rhs.values) v *= L(alpha);
        // Trsm: op(A) X = alpha B (left) or X op(A) = alpha B (right).
        const auto x = X.get(b);
        EXPECT_LE(relative_difference(left ? T * x : x * T, rhs), tol<V>(n, 4));
        // Trmm: alpha op(A) B or alpha B op(A).
        EXPECT_LE(relative_difference(Y.get(b), left ? T * rhs : rhs * T), tol<V>(n, 4));
    }
    EXPECT_TRUE(X.padding_intact());
    EXPECT_TRUE(Y.padding_intact());
}

template <typename M, typename SideT, typename V>
void check_all_trsm_trmm(int n, int nrhs)
{
    for_each_trans([&](auto t) {
        using T = decltype(t);
        check_trsm_trmm<M, SideT, Uplo::Lower, T, Diag::NonUnit, V>(n, nrhs);
        check_trsm_trmm<M, SideT, Uplo::Lower, T, Diag::Unit, V>(n, nrhs);
        check_trsm_trmm<M, SideT, Uplo::Upper, T, Diag::NonUnit, V>(n, nrhs);
        check_trsm_trmm<M, SideT, Uplo::Upper, T, Diag::Unit, V>(n, nrhs);
    });
}

TYPED_TEST(BatchedTriangular, TrsmAndTrmmMatchReference)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (const auto [n, nrhs] : {std::pair{1, 1}, {3, 2}, {8, 5}, {17, 3}, {33, 4}}) {
            check_all_trsm_trmm<M, Side::Left, V>(n, nrhs);
            check_all_trsm_trmm<M, Side::Right, V>(n, nrhs);
        }
    });
}

TYPED_TEST(BatchedTriangular, TrsmWithZeroAlphaSetsZero)
{
    using V = TypeParam;
    const auto A = triangular_batch<V, Uplo::Lower, Diag::NonUnit>(4, 23);
    Batch<V> B(batch, 4, 3);
    B.randomize(24);
    B.view(0)(1, 1) = nan_value<V>();
    run_batch<Mode::Serial>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        call<Trsm<Mode::Serial, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit>,
             Mode::Serial>(member, 0, A.view(b), B.view(b));
    });
    for (int b = 0; b < batch; ++b) EXPECT_EQ(max_abs(B.get(b)), 0);
}

template <typename M, typename UploT, typename TransT, typename DiagT, typename V>
void check_trsv(int n)
{
    using L = Long<V>;
    SCOPED_TRACE(describe(mode_name<M>(), n, 1,
                          std::string(std::is_same_v<UploT, Uplo::Lower> ? "lower " : "upper ") +
                              trans_name<TransT>()));
    const V alpha = scalar<V>(-0.75, 0.25);
    const auto A = triangular_batch<V, UploT, DiagT>(n, 25);
    VectorBatch<V> x(batch, n);
    x.randomize(26);
    auto x0 = x;
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        call<Trsv<M, UploT, TransT, DiagT>, M>(member, alpha, A.view(b), x.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        const auto T = op<TransT>(as_triangular<UploT, DiagT>(A.get(b)));
        Mat<L> xs(n, 1), rhs(n, 1);
        const auto got = x.get(b);
        const auto orig = x0.get(b);
        for (int i = 0; i < n; ++i) {
            xs(i, 0) = got[i];
            rhs(i, 0) = L(alpha) * orig[i];
        }
        EXPECT_LE(relative_difference(T * xs, rhs), tol<V>(n, 4));
    }
}

TYPED_TEST(BatchedTriangular, TrsvMatchesReference)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 2, 9, 32, 33}) {
            for_each_trans([&](auto t) {
                using T = decltype(t);
                check_trsv<M, Uplo::Lower, T, Diag::NonUnit, V>(n);
                check_trsv<M, Uplo::Upper, T, Diag::NonUnit, V>(n);
                check_trsv<M, Uplo::Lower, T, Diag::Unit, V>(n);
                check_trsv<M, Uplo::Upper, T, Diag::Unit, V>(n);
            });
        }
    });
}

template <typename M, typename UploT, typename DiagT, typename V>
void check_trtri(int n)
{
    using L = Long<V>;
    SCOPED_TRACE(describe(mode_name<M>(), n, n,
                          std::string(std::is_same_v<UploT, Uplo::Lower> ? "lower" : "upper") +
                              (std::is_same_v<DiagT, Diag::Unit> ? " unit" : "")));
    auto A = triangular_batch<V, UploT, DiagT>(n, 27);
    // Matrix 1 is singular at its last diagonal entry: reported, and left unchanged.
    const bool unit = std::is_same_v<DiagT, Diag::Unit>;
    if (!unit) A.view(1)(n - 1, n - 1) = V(0);
    const Batch<V> A0 = A;
    std::vector<int> info(batch, -1);
    run_batch<M>(batch, [&](const auto& member) {
        const auto b = member.league_rank();
        info[b] = call<Trtri<M, UploT, DiagT>, M>(member, A.view(b));
    });
    for (int b = 0; b < batch; ++b) {
        if (!unit && b == 1) {
            EXPECT_EQ(info[b], n);
            const auto got = A.get(b);
            const auto orig = A0.get(b);
            for (std::size_t e = 0; e < got.values.size(); ++e) {
                if (!std::isnan(std::abs(orig.values[e]))) EXPECT_EQ(got.values[e], orig.values[e]);
            }
            continue;
        }
        EXPECT_EQ(info[b], 0);
        const auto T = as_triangular<UploT, DiagT>(A0.get(b));
        const auto inverse = as_triangular<UploT, DiagT>(A.get(b));
        EXPECT_LE(relative_difference(T * inverse, Mat<L>::identity(n)), tol<V>(n, 4));
        // The other triangle (NaN) and, for a unit diagonal, the diagonal are not written.
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (!stored<UploT, DiagT>(i, j)) EXPECT_TRUE(std::isnan(std::abs(A.view(b)(i, j))));
            }
        }
    }
}

TYPED_TEST(BatchedTriangular, TrtriInvertsAndReportsZeroDiagonal)
{
    using V = TypeParam;
    for_each_mode([&](auto mode) {
        using M = decltype(mode);
        for (int n : {1, 2, 5, 16, 33}) {
            check_trtri<M, Uplo::Lower, Diag::NonUnit, V>(n);
            check_trtri<M, Uplo::Upper, Diag::NonUnit, V>(n);
            check_trtri<M, Uplo::Lower, Diag::Unit, V>(n);
            check_trtri<M, Uplo::Upper, Diag::Unit, V>(n);
        }
    });
}

}  // namespace
