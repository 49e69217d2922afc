// Dense LAPACK (getrf, getrs, gesv, trtri): the reference checked by reconstruction and
// residuals, every backend (native and vendor) against the reference, and singular inputs
// reported with their row while every argument stays as it was.
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/config.hpp"
#include "loom/lapack/dense_lapack.hpp"
#include "loom/matrix/dense.hpp"
#include "support/dense_backends.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::lapack::Backend;
using loom::lapack::Diag;
using loom::lapack::Op;
using loom::lapack::Uplo;
using loom::matrix::Dense;


template <typename V>
Dense<V> random_padded(dim2 size, std::uint64_t seed)
{
    return loom::test::random_dense<V>(loom::test::reference(), size, seed, size.cols + 2);
}

template <typename V>
double tolerance(size_type n)
{
    return loom::test::tolerance<V>() * std::max<double>(1.0, static_cast<double>(n));
}

/// P A reconstructed from the factors: L U with L unit lower, U upper, permuted back.
template <typename V>
std::vector<V> reconstruct(const Dense<V>& LU, const std::vector<int32>& pivots)
{
    const size_type n = LU.rows();
    std::vector<V> product(static_cast<std::size_t>(n * n));
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            V sum{};
            for (size_type k = 0; k <= std::min(i, j); ++k) {
                sum += (k == i ? V{1} : LU.at(i, k)) * LU.at(k, j);
            }
            product[i * n + j] = sum;
        }
    }
    // L U = P A: undo the interchanges in reverse order to get A.
    for (size_type k = n - 1; k >= 0; --k) {
        for (size_type j = 0; j < n; ++j) std::swap(product[k * n + j], product[pivots[k] * n + j]);
    }
    return product;
}

template <typename V>
std::vector<V> multiply(Op op, const Dense<V>& A, const Dense<V>& X)
{
    const size_type n = A.rows();
    std::vector<V> out(static_cast<std::size_t>(n * X.cols()));
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < X.cols(); ++j) {
            V sum{};
            for (size_type k = 0; k < n; ++k) {
                const V a = op == Op::none        ? A.at(i, k)
                            : op == Op::transpose ? A.at(k, i)
                                                  : loom::conj(A.at(k, i));
                sum += a * X.at(k, j);
            }
            out[i * X.cols() + j] = sum;
        }
    }
    return out;
}

template <typename V>
class DenseLapack : public ::testing::Test {};
TYPED_TEST_SUITE(DenseLapack, loom::test::ValueTypes);

TYPED_TEST(DenseLapack, GetrfFactorsOnEveryBackend)
{
    using V = TypeParam;
    for (const size_type n : {0, 1, 2, 31, 32, 33, 65, 100}) {
        const auto A = random_padded<V>({n, n}, 1);
        for (const auto& t : dense_targets()) {
            Dense<V> LU(t.exec, A);
            loom::Array<int32> pivots;
            loom::lapack::getrf(LU, pivots, t.backend);
            ASSERT_EQ(pivots.size(), n);
            const Dense<V> lu(loom::test::reference(), LU);
            const auto p = pivots.to_host();
            for (size_type k = 0; k < n; ++k) {
                ASSERT_GE(p[k], k) << t.name();
                ASSERT_LT(p[k], n) << t.name();
            }
            EXPECT_LE(error_of(reconstruct(lu, p), A.to_host()), tolerance<V>(n))
                << t.name() << " n=" << n;
        }
    }
}

TYPED_TEST(DenseLapack, GetrsSolvesEveryOp)
{
    using V = TypeParam;
    for (const auto op : {Op::none, Op::transpose, Op::conj_transpose}) {
        for (const size_type n : {1, 33, 70}) {
            const auto A = random_padded<V>({n, n}, 2);
            const auto B = random_padded<V>({n, 5}, 3);
            for (const auto& t : dense_targets()) {
                Dense<V> LU(t.exec, A);
                loom::Array<int32> pivots;
                loom::lapack::getrf(LU, pivots, t.backend);
                Dense<V> X(t.exec, B);
                loom::lapack::getrs(op, LU, pivots, X, t.backend);
                const Dense<V> x(loom::test::reference(), X);
                // Random matrices are mildly conditioned; the residual is checked loosely.
                EXPECT_LE(error_of(multiply(op, A, x), B.to_host()), 100 * tolerance<V>(n))
                    << t.name() << " " << loom::blas::to_string(op) << " n=" << n;
            }
        }
    }
}

TYPED_TEST(DenseLapack, GesvSolvesAndLeavesAUnchanged)
{
    using V = TypeParam;
    for (const size_type n : {0, 1, 32, 45}) {
        const auto A = random_padded<V>({n, n}, 4);
        const auto B = random_padded<V>({n, 3}, 5);
        for (const auto& t : dense_targets()) {
            const Dense<V> a(t.exec, A);
            Dense<V> X(t.exec, B);
            loom::lapack::gesv(a, X, t.backend);
            EXPECT_EQ(a.values().to_host(), A.values().to_host()) << t.name();
            EXPECT_LE(error_of(multiply(Op::none, A, Dense<V>(loom::test::reference(), X)),
                               B.to_host()),
                      100 * tolerance<V>(n))
                << t.name() << " n=" << n;
        }
    }
}

TYPED_TEST(DenseLapack, ZeroPivotIsReportedWithItsRowAndNothingChanges)
{
    using V = TypeParam;
    const size_type n = 40;
    auto A = random_padded<V>({n, n}, 6);
    // A zero column stays zero under elimination: the pivot of column 3 is exactly zero.
    for (size_type i = 0; i < n; ++i) A.at(i, 3) = V{};
    const auto B = random_padded<V>({n, 2}, 7);
    for (const auto& t : dense_targets()) {
        Dense<V> LU(t.exec, A);
        loom::Array<int32> pivots(t.exec, std::vector<int32>{7, 7});
        try {
            loom::lapack::getrf(LU, pivots, t.backend);
            ADD_FAILURE() << t.name() << ": no error";
        } catch (const loom::NumericalError& error) {
            EXPECT_NE(std::string(error.what()).find("row 3 "), std::string::npos)
                << t.name() << ": " << error.what();
        }
        EXPECT_EQ(LU.values().to_host(), A.values().to_host()) << t.name();
        EXPECT_EQ(pivots.to_host(), (std::vector<int32>{7, 7})) << t.name();

        Dense<V> X(t.exec, B);
        try {
            loom::lapack::gesv(Dense<V>(t.exec, A), X, t.backend);
            ADD_FAILURE() << t.name() << ": no error";
        } catch (const loom::NumericalError& error) {
            EXPECT_EQ(error.where(), "loom::lapack::gesv");
            EXPECT_NE(std::string(error.what()).find("row 3 "), std::string::npos) << error.what();
        }
        EXPECT_EQ(X.values().to_host(), B.values().to_host()) << t.name();
    }
}

TYPED_TEST(DenseLapack, TrtriInvertsOnlyItsTriangle)
{
    using V = TypeParam;
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        for (const auto diag : {Diag::non_unit, Diag::unit}) {
            for (const size_type n : {0, 1, 2, 31, 32, 33, 64, 100}) {
                // Well conditioned with its diagonal or a unit one: off-diagonal entries below
                // 1/n, diagonal ones of magnitude at least 1.
                using R = loom::remove_complex_t<V>;
                auto A = random_padded<V>({n, n}, 8);
                for (size_type i = 0; i < n; ++i) {
                    for (size_type j = 0; j < n; ++j) A.at(i, j) *= V(R(1) / static_cast<R>(n));
                    A.at(i, i) = A.at(i, i) * static_cast<R>(n) + V(R(2));
                }
                for (const auto& t : dense_targets()) {
                    Dense<V> inverse(t.exec, A);
                    loom::lapack::trtri(uplo, diag, inverse, t.backend);
                    const Dense<V> inv(loom::test::reference(), inverse);
                    const bool lower = uplo == Uplo::lower;
                    const auto inside = [&](size_type r, size_type c) { return lower ? c <= r : c >= r; };
                    const auto tri = [&](const Dense<V>& M, size_type r, size_type c) {
                        if (!inside(r, c)) return V{};
                        return r == c && diag == Diag::unit ? V{1} : M.at(r, c);
                    };
                    double error = 0;
                    for (size_type i = 0; i < n; ++i) {
                        for (size_type j = 0; j < n; ++j) {
                            V sum{};
                            for (size_type k = 0; k < n; ++k) sum += tri(A, i, k) * tri(inv, k, j);
                            error = std::max(error, static_cast<double>(std::abs(sum - V(i == j ? 1 : 0))));
                            if (!inside(i, j) || (i == j && diag == Diag::unit)) {
                                ASSERT_EQ(inv.at(i, j), A.at(i, j)) << t.name() << " touched (" << i << "," << j << ")";
                            }
                        }
                    }
                    EXPECT_LE(error, 10 * tolerance<V>(n))
                        << t.name() << (lower ? " lower" : " upper") << " n=" << n;
                }
            }
        }
    }
}

TYPED_TEST(DenseLapack, TrtriZeroDiagonalIsReported)
{
    using V = TypeParam;
    auto A = random_padded<V>({20, 20}, 9);
    A.at(11, 11) = V{};
    for (const auto& t : dense_targets()) {
        Dense<V> a(t.exec, A);
        try {
            loom::lapack::trtri(Uplo::upper, Diag::non_unit, a, t.backend);
            ADD_FAILURE() << t.name() << ": no error";
        } catch (const loom::NumericalError& error) {
            EXPECT_NE(std::string(error.what()).find("row 11 "), std::string::npos) << error.what();
        }
        EXPECT_EQ(a.values().to_host(), A.values().to_host());
        // With a unit diagonal the stored zero is never read.
        EXPECT_NO_THROW(loom::lapack::trtri(Uplo::upper, Diag::unit, a, t.backend));
    }
}

TYPED_TEST(DenseLapack, BadInputsAreRejected)
{
    using V = TypeParam;
    auto rectangular = random_padded<V>({3, 4}, 10);
    loom::Array<int32> pivots;
    EXPECT_THROW(loom::lapack::getrf(rectangular, pivots), loom::DimensionMismatch);
    EXPECT_THROW(loom::lapack::trtri(Uplo::lower, Diag::unit, rectangular), loom::DimensionMismatch);
    auto A = random_padded<V>({4, 4}, 11);
    auto B = random_padded<V>({3, 2}, 12);
    EXPECT_THROW(loom::lapack::gesv(A, B), loom::DimensionMismatch);
    auto B4 = random_padded<V>({4, 2}, 13);
    loom::Array<int32> short_pivots(loom::test::reference(), std::vector<int32>{0, 1});
    EXPECT_THROW(loom::lapack::getrs(Op::none, A, short_pivots, B4), loom::BadInput);
}

}  // namespace
}  // namespace loom::test
