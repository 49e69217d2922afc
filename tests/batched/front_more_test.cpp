// The front-level batched calls added after the first set (loom/batched/front.hpp): trsv, syr,
// axpy, scale, dot, conj_dot, nrm2, inverse_lu(_nopivot), utv, gbtrf and gbtrs. Each runs in
// every launch on every backend against the reference backend, and the reference against plain
// loops in long double; orders 1..33 around the warp size; per-matrix failures in info; bad
// sizes throw and leave the data untouched.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "batched/front_support.hpp"
#include "loom/base/error.hpp"
#include "loom/batched/front.hpp"
#include "loom/config.hpp"
#include "loom/matrix/batch_dense.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace {

using namespace loom::test::batched_front;
namespace batched = loom::batched;

constexpr size_type orders[] = {1, 2, 5, 8, 16, 31, 32, 33};

/// Long double (complex) arithmetic for the plain references.
template <typename V>
using Wide = std::conditional_t<loom::is_complex_v<V>, std::complex<long double>, long double>;

template <typename V>
Wide<V> wide(V v)
{
    if constexpr (loom::is_complex_v<V>) {
        return {static_cast<long double>(v.real()), static_cast<long double>(v.imag())};
    } else {
        return static_cast<long double>(v);
    }
}

template <typename W>
W conj_if(W v, bool conjugate)
{
    if constexpr (std::is_same_v<W, long double>) {
        return v;
    } else {
        return conjugate ? std::conj(v) : v;
    }
}

template <typename T>
std::vector<T> host(const loom::Array<T>& a)
{
    return a.to_host();
}

/// The entry op(M_b)(i, j) in long double.
template <typename V>
Wide<V> op_at(const BatchDense<V>& M, size_type b, Op op, size_type i, size_type j)
{
    return op == Op::none ? wide(M.at(b, i, j))
                          : conj_if(wide(M.at(b, j, i)), op == Op::conj_transpose);
}

template <typename V>
class BatchedFrontMore : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedFrontMore, loom::test::ValueTypes);

TYPED_TEST(BatchedFrontMore, TrsvEveryCaseMatchesReferenceAndPlainLoops)
{
    using V = TypeParam;
    const size_type count = 20;
    for (const size_type n : orders) {
        // Well conditioned with its diagonal or a unit one.
        auto A = random_batch<V>(count, {n, n}, 1);
        for (size_type b = 0; b < count; ++b) {
            for (size_type i = 0; i < n; ++i) {
                for (size_type j = 0; j < n; ++j) A.at(b, i, j) *= V(0.5 / static_cast<double>(n));
                A.at(b, i, i) += V(2);
            }
        }
        const auto x0 = random_batch<V>(count, {n, 1}, 2);
        for (auto uplo : {Uplo::lower, Uplo::upper}) {
            for (auto op : all_ops) {
                for (auto diag : {Diag::non_unit, Diag::unit}) {
                    auto expected = x0;
                    batched::trsv(uplo, op, diag, V(0.5), A, expected);
                    const auto what = std::string(uplo == Uplo::lower ? " lower " : " upper ") +
                                      loom::blas::to_string(op) +
                                      (diag == Diag::unit ? " unit" : "") +
                                      " n=" + std::to_string(n);
                    // op(T) x = 0.5 x0, T the triangle (with a unit diagonal when unit).
                    for (size_type b = 0; b < count; ++b) {
                        double worst = 0;
                        for (size_type i = 0; i < n; ++i) {
                            Wide<V> sum{};
                            for (size_type k = 0; k < n; ++k) {
                                const size_type r = op == Op::none ? i : k;
                                const size_type c = op == Op::none ? k : i;
                                const bool inside = uplo == Uplo::lower ? c <= r : c >= r;
                                if (!inside) continue;
                                const Wide<V> t = r == c && diag == Diag::unit
                                                      ? Wide<V>(1)
                                                      : op_at(A, b, op, i, k);
                                sum += t * wide(expected.at(b, k, 0));
                            }
                            worst = std::max(
                                worst, static_cast<double>(
                                           std::abs(sum - Wide<V>(0.5L) * wide(x0.at(b, i, 0)))));
                        }
                        EXPECT_LE(worst, tolerance<V>(n)) << "reference" << what;
                    }
                    for (const auto& t : targets<V>({})) {
                        BatchDense<V> x(t.exec, x0);
                        batched::trsv(uplo, op, diag, V(0.5), BatchDense<V>(t.exec, A), x,
                                      t.launch);
                        EXPECT_LE(error_of(raw(x), raw(expected)), tolerance<V>(n))
                            << t.name() << what;
                    }
                }
            }
        }
    }
}

TYPED_TEST(BatchedFrontMore, SyrUpdatesOneTriangle)
{
    using V = TypeParam;
    const size_type count = 20;
    for (const size_type n : orders) {
        const auto A0 = random_batch<V>(count, {n, n}, 3);
        const auto x = random_batch<V>(count, {n, 1}, 4);
        for (auto uplo : {Uplo::lower, Uplo::upper}) {
            for (auto op : {Op::transpose, Op::conj_transpose}) {
                const bool hermitian = loom::is_complex_v<V> && op == Op::conj_transpose;
                auto expected = A0;
                batched::syr(uplo, op, V(-0.75), x, expected);
                for (size_type b = 0; b < count; ++b) {
                    for (size_type i = 0; i < n; ++i) {
                        for (size_type j = 0; j < n; ++j) {
                            const bool inside = uplo == Uplo::lower ? j <= i : j >= i;
                            Wide<V> want = wide(A0.at(b, i, j));
                            if (inside) {
                                want += Wide<V>(-0.75L) * wide(x.at(b, i, 0)) *
                                        conj_if(wide(x.at(b, j, 0)), hermitian);
                                if (hermitian && i == j) want = Wide<V>(std::real(want));
                            }
                            EXPECT_LE(std::abs(wide(expected.at(b, i, j)) - want), tolerance<V>(n))
                                << "reference n=" << n << " (" << i << ", " << j << ")";
                        }
                    }
                }
                for (const auto& t : targets<V>({})) {
                    BatchDense<V> a(t.exec, A0);
                    batched::syr(uplo, op, V(-0.75), BatchDense<V>(t.exec, x), a, t.launch);
                    EXPECT_LE(error_of(raw(a), raw(expected)), tolerance<V>(n))
                        << t.name() << " n=" << n << " " << loom::blas::to_string(op);
                }
            }
        }
    }
}

TYPED_TEST(BatchedFrontMore, AxpyScaleDotNrm2MatchPlainLoops)
{
    using V = TypeParam;
    using R = loom::remove_complex_t<V>;
    const size_type count = 37;
    V alpha = V(R(-1.5));
    if constexpr (loom::is_complex_v<V>) alpha = V(R(0.5), R(-1.25));
    for (const size_type n : orders) {
        for (const dim2 size : {dim2{n, 1}, dim2{n, 3}}) {
            const auto x = random_batch<V>(count, size, 5);
            const auto y0 = random_batch<V>(count, size, 6);
            auto y_ref = y0;
            batched::axpy(alpha, x, y_ref);
            auto s_ref = y0;
            batched::scale(alpha, s_ref);
            for (size_type b = 0; b < count; ++b) {
                for (size_type i = 0; i < size.rows; ++i) {
                    for (size_type j = 0; j < size.cols; ++j) {
                        const auto ax = wide(alpha) * wide(x.at(b, i, j));
                        EXPECT_LE(std::abs(wide(y_ref.at(b, i, j)) - (ax + wide(y0.at(b, i, j)))),
                                  tolerance<V>(1));
                        EXPECT_LE(
                            std::abs(wide(s_ref.at(b, i, j)) - wide(alpha) * wide(y0.at(b, i, j))),
                            tolerance<V>(1));
                    }
                }
            }
            for (const auto& t : targets<V>({})) {
                BatchDense<V> y(t.exec, y0), s(t.exec, y0);
                batched::axpy(alpha, BatchDense<V>(t.exec, x), y, t.launch);
                batched::scale(alpha, s, t.launch);
                EXPECT_LE(error_of(raw(y), raw(y_ref)), tolerance<V>(1))
                    << t.name() << " axpy n=" << n;
                EXPECT_LE(error_of(raw(s), raw(s_ref)), tolerance<V>(1))
                    << t.name() << " scale n=" << n;
            }
        }
        const auto x = random_batch<V>(count, {n, 1}, 7);
        const auto y = random_batch<V>(count, {n, 1}, 8);
        loom::Array<V> dot_ref, conj_ref;
        loom::Array<R> norm_ref;
        batched::dot(x, y, dot_ref);
        batched::conj_dot(x, y, conj_ref);
        batched::nrm2(x, norm_ref);
        ASSERT_EQ(dot_ref.size(), count);
        ASSERT_EQ(norm_ref.size(), count);
        for (size_type b = 0; b < count; ++b) {
            Wide<V> d{}, c{};
            long double s = 0;
            for (size_type i = 0; i < n; ++i) {
                d += wide(x.at(b, i, 0)) * wide(y.at(b, i, 0));
                c += conj_if(wide(x.at(b, i, 0)), true) * wide(y.at(b, i, 0));
                s += std::norm(std::complex<long double>(wide(x.at(b, i, 0))));
            }
            EXPECT_LE(std::abs(wide(dot_ref[b]) - d), tolerance<V>(n)) << "dot n=" << n;
            EXPECT_LE(std::abs(wide(conj_ref[b]) - c), tolerance<V>(n)) << "conj_dot n=" << n;
            EXPECT_LE(std::abs(static_cast<long double>(norm_ref[b]) - std::sqrt(s)),
                      tolerance<V>(n))
                << "nrm2 n=" << n;
        }
        for (const auto& t : targets<V>({})) {
            const BatchDense<V> xt(t.exec, x), yt(t.exec, y);
            loom::Array<V> d, c;
            loom::Array<R> norm;
            batched::dot(xt, yt, d, t.launch);
            batched::conj_dot(xt, yt, c, t.launch);
            batched::nrm2(xt, norm, t.launch);
            EXPECT_LE(error_of(host(d), host(dot_ref)), tolerance<V>(n)) << t.name() << " n=" << n;
            EXPECT_LE(error_of(host(c), host(conj_ref)), tolerance<V>(n)) << t.name() << " n=" << n;
            EXPECT_LE(error_of(host(norm), host(norm_ref)), tolerance<V>(n))
                << t.name() << " n=" << n;
        }
    }
}

/// max |A_b X_b - I| in long double, A_b from the batch A and X_b from X.
template <typename V>
double inverse_residual(const BatchDense<V>& A, const BatchDense<V>& X, size_type b)
{
    const size_type n = A.rows();
    double worst = 0;
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            Wide<V> sum{};
            for (size_type k = 0; k < n; ++k) sum += wide(A.at(b, i, k)) * wide(X.at(b, k, j));
            worst = std::max(worst, static_cast<double>(std::abs(sum - Wide<V>(i == j ? 1 : 0))));
        }
    }
    return worst;
}

TYPED_TEST(BatchedFrontMore, InverseLuInvertsAndReportsZeroPivots)
{
    using V = TypeParam;
    const size_type count = 24;
    for (const size_type n : orders) {
        const auto A = random_batch<V>(count, {n, n}, 9, 0.5 * static_cast<double>(n) + 1);
        auto with_zero = A;
        const size_type zero_column = n / 2;
        for (size_type i = 0; i < n; ++i) with_zero.at(3, i, zero_column) = V{};
        // Partial pivoting: the factors of getrf.
        auto factors = with_zero;
        loom::Array<int32> pivots, getrf_info;
        batched::getrf(factors, pivots, getrf_info);
        auto expected = factors;
        loom::Array<int32> info_ref;
        batched::inverse_lu(expected, pivots, info_ref);
        const auto ir = host(info_ref);
        EXPECT_EQ(ir[3], static_cast<int32>(zero_column + 1)) << "n=" << n;
        EXPECT_EQ(ir, host(getrf_info));
        EXPECT_EQ(error_of(expected.item(3).to_host(), factors.item(3).to_host()), 0.0)
            << "a failed matrix keeps its factors";
        for (size_type b = 0; b < count; ++b) {
            if (b == 3) continue;
            EXPECT_LE(inverse_residual(A, expected, b), 4 * tolerance<V>(n))
                << "n=" << n << " b=" << b;
        }
        for (const auto& t : targets<V>({.simd = false})) {
            BatchDense<V> lu(t.exec, factors);
            loom::Array<int32> info;
            batched::inverse_lu(lu, loom::Array<int32>(t.exec, pivots), info, t.launch);
            EXPECT_EQ(host(info), ir) << t.name();
            EXPECT_LE(error_of(raw(lu), raw(expected)), tolerance<V>(n)) << t.name() << " n=" << n;
        }
        // Without pivoting (packs too): diagonally dominant A; matrix 3 gets U(k, k) = 0.
        auto nopivot = A;
        for (size_type b = 0; b < count; ++b) {
            for (size_type i = 0; i < n; ++i) nopivot.at(b, i, i) += V(static_cast<double>(n));
        }
        auto lu0 = nopivot;
        loom::Array<int32> info0;
        batched::getrf_nopivot(lu0, info0);
        lu0.at(3, zero_column, zero_column) = V{};
        auto expected0 = lu0;
        batched::inverse_lu_nopivot(expected0, info0);
        const auto ir0 = host(info0);
        EXPECT_EQ(ir0[3], static_cast<int32>(zero_column + 1));
        for (size_type b = 0; b < count; ++b) {
            if (b == 3) continue;
            EXPECT_EQ(ir0[b], 0);
            EXPECT_LE(inverse_residual(nopivot, expected0, b), 4 * tolerance<V>(n)) << "n=" << n;
        }
        for (const auto& t : targets<V>({})) {
            BatchDense<V> lu(t.exec, lu0);
            loom::Array<int32> info;
            batched::inverse_lu_nopivot(lu, info, t.launch);
            EXPECT_EQ(host(info), ir0) << t.name();
            EXPECT_LE(error_of(raw(lu), raw(expected0)), tolerance<V>(n)) << t.name() << " n=" << n;
        }
    }
}

/// A_b P_b = U_b T_b W_b, U^H U = I and W W^H = I, checked in long double.
template <typename V>
void expect_utv(const BatchDense<V>& A0, const BatchDense<V>& T, const std::vector<int32>& jpiv,
                const BatchDense<V>& U, const BatchDense<V>& W, const std::vector<int32>& rank,
                double tol)
{
    const size_type m = A0.rows(), n = A0.cols(), q = std::min(m, n);
    for (size_type b = 0; b < A0.batch_count(); ++b) {
        const size_type r = rank[b];
        // A P: the interchanges applied to the columns in order.
        std::vector<size_type> column(n);
        for (size_type j = 0; j < n; ++j) column[j] = j;
        for (size_type k = 0; k < n; ++k) std::swap(column[k], column[jpiv[b * n + k]]);
        double worst = 0;
        for (size_type i = 0; i < m; ++i) {
            for (size_type j = 0; j < n; ++j) {
                Wide<V> sum{};
                for (size_type k = 0; k < r; ++k) {
                    for (size_type l = 0; l <= k; ++l) {
                        sum += wide(U.at(b, i, k)) * wide(T.at(b, k, l)) * wide(W.at(b, l, j));
                    }
                }
                worst = std::max(worst,
                                 static_cast<double>(std::abs(sum - wide(A0.at(b, i, column[j])))));
            }
        }
        EXPECT_LE(worst, tol) << "A P = U T W, matrix " << b << " rank " << r;
        double orthogonality = 0;
        for (size_type i = 0; i < q; ++i) {
            for (size_type j = 0; j < q; ++j) {
                Wide<V> uu{}, ww{};
                for (size_type k = 0; k < m; ++k)
                    uu += conj_if(wide(U.at(b, k, i)), true) * wide(U.at(b, k, j));
                for (size_type k = 0; k < n; ++k)
                    ww += wide(W.at(b, i, k)) * conj_if(wide(W.at(b, j, k)), true);
                const Wide<V> id(i == j ? 1 : 0);
                orthogonality = std::max({orthogonality, static_cast<double>(std::abs(uu - id)),
                                          static_cast<double>(std::abs(ww - id))});
            }
        }
        EXPECT_LE(orthogonality, tol) << "U^H U = I and W W^H = I, matrix " << b;
    }
}

TYPED_TEST(BatchedFrontMore, UtvRevealsTheRankOfEveryMatrix)
{
    using V = TypeParam;
    using R = loom::remove_complex_t<V>;
    const size_type count = 12;
    const R tol = std::is_same_v<R, float> ? R(1e-4) : R(1e-9);
    for (const dim2 size : {dim2{1, 1}, dim2{5, 3}, dim2{3, 5}, dim2{8, 8}, dim2{16, 16},
                            dim2{17, 20}, dim2{31, 31}, dim2{32, 32}, dim2{33, 31}}) {
        const size_type m = size.rows, n = size.cols, q = std::min(m, n);
        // Matrix b has rank b % (q + 1): a product of m x r and r x n factors, their diagonals
        // raised so that the nonzero singular values stay far above the tolerance.
        BatchDense<V> A(loom::test::reference(), count, size, n + 2, m * (n + 2) + 1);
        // The padding is compared too (a call may not touch it): it must not be uninitialized
        // memory, which may hold NaNs that differ from themselves.
        A.values().fill(V(7));
        const auto X = random_batch<V>(count, {m, q}, 10, 3);
        const auto Y = random_batch<V>(count, {q, n}, 11, 3);
        std::vector<int32> ranks(count);
        for (size_type b = 0; b < count; ++b) {
            ranks[b] = static_cast<int32>(b % (q + 1));
            for (size_type i = 0; i < m; ++i) {
                for (size_type j = 0; j < n; ++j) {
                    V sum{};
                    for (size_type k = 0; k < ranks[b]; ++k) sum += X.at(b, i, k) * Y.at(b, k, j);
                    A.at(b, i, j) = sum;
                }
            }
        }
        auto T_ref = A;
        BatchDense<V> U_ref, W_ref;
        loom::Array<int32> jpiv_ref, rank_ref;
        batched::utv(T_ref, jpiv_ref, U_ref, W_ref, rank_ref, tol);
        EXPECT_EQ(host(rank_ref), ranks) << m << " x " << n;
        expect_utv(A, T_ref, host(jpiv_ref), U_ref, W_ref, host(rank_ref),
                   20 * tolerance<V>(std::max(m, n)));
        for (const auto& t : targets<V>({.simd = false})) {
            BatchDense<V> a(t.exec, A), u, w;
            loom::Array<int32> jpiv, rank;
            batched::utv(a, jpiv, u, w, rank, tol, t.launch);
            EXPECT_EQ(host(rank), host(rank_ref)) << t.name();
            EXPECT_EQ(host(jpiv), host(jpiv_ref)) << t.name();
            const double e = 20 * tolerance<V>(std::max(m, n));
            EXPECT_LE(error_of(raw(a), raw(T_ref)), e) << t.name() << " " << m << " x " << n;
            EXPECT_LE(error_of(raw(u), raw(U_ref)), e) << t.name() << " " << m << " x " << n;
            EXPECT_LE(error_of(raw(w), raw(W_ref)), e) << t.name() << " " << m << " x " << n;
        }
    }
}

/// A random banded batch in band storage ((2 kl + ku + 1) x n, the fill-in rows garbage) and
/// the same matrices dense.
template <typename V>
void band_batch(size_type count, size_type n, size_type kl, size_type ku, std::uint64_t seed,
                BatchDense<V>& AB, BatchDense<V>& dense)
{
    AB = random_batch<V>(count, {2 * kl + ku + 1, n}, seed);
    dense = BatchDense<V>(loom::test::reference(), count, {n, n});
    dense.fill(V{});
    for (size_type b = 0; b < count; ++b) {
        for (size_type j = 0; j < n; ++j) {
            for (size_type i = j > ku ? j - ku : 0; i < std::min(n, j + kl + 1); ++i) {
                if (i == j) AB.at(b, kl + ku, j) += V(2);
                dense.at(b, i, j) = AB.at(b, kl + ku + i - j, j);
            }
        }
    }
}

TYPED_TEST(BatchedFrontMore, GbtrfAndGbtrsSolveBandedSystems)
{
    using V = TypeParam;
    const size_type count = 20;
    struct Band {
        size_type kl, ku;
    };
    for (const size_type n : orders) {
        for (const Band band : {Band{0, 0}, Band{1, 1}, Band{2, 1}, Band{1, 3}, Band{4, 0}}) {
            const auto [kl, ku] = band;
            BatchDense<V> AB, dense;
            band_batch<V>(count, n, kl, ku, 12, AB, dense);
            // Matrix 3: a zero column (within the band) makes U(k, k) zero at step k.
            const size_type zero_column = n / 2;
            for (size_type i = 0; i < n; ++i) {
                if (i + ku >= zero_column && i <= zero_column + kl) {
                    AB.at(3, kl + ku + i - zero_column, zero_column) = V{};
                    dense.at(3, i, zero_column) = V{};
                }
            }
            auto factors = AB;
            loom::Array<int32> pivots_ref, info_ref;
            batched::gbtrf(kl, ku, factors, pivots_ref, info_ref);
            const auto ir = host(info_ref);
            EXPECT_EQ(ir[3], static_cast<int32>(zero_column + 1)) << "n=" << n;
            const auto what = " n=" + std::to_string(n) + " kl=" + std::to_string(kl) +
                              " ku=" + std::to_string(ku);
            for (const auto& t : targets<V>({.simd = false})) {
                BatchDense<V> ab(t.exec, AB);
                loom::Array<int32> pivots, info;
                batched::gbtrf(kl, ku, ab, pivots, info, t.launch);
                EXPECT_EQ(host(info), ir) << t.name() << what;
                EXPECT_EQ(host(pivots), host(pivots_ref)) << t.name() << what;
                EXPECT_LE(error_of(raw(ab), raw(factors)), tolerance<V>(n)) << t.name() << what;
            }
            const auto B = random_batch<V>(count, {n, 3}, 13);
            for (auto op : all_ops) {
                auto X = B;
                batched::gbtrs(op, kl, ku, factors, pivots_ref, X);
                // op(A) X = B in long double, every solvable matrix.
                for (size_type b = 0; b < count; ++b) {
                    if (b == 3) continue;
                    double worst = 0;
                    for (size_type i = 0; i < n; ++i) {
                        for (size_type j = 0; j < 3; ++j) {
                            Wide<V> sum{};
                            for (size_type k = 0; k < n; ++k) {
                                sum += op_at(dense, b, op, i, k) * wide(X.at(b, k, j));
                            }
                            worst = std::max(
                                worst, static_cast<double>(std::abs(sum - wide(B.at(b, i, j)))));
                        }
                    }
                    EXPECT_LE(worst, 4 * tolerance<V>(n))
                        << "reference " << loom::blas::to_string(op) << what;
                }
                for (const auto& t : targets<V>({.simd = false})) {
                    BatchDense<V> x(t.exec, B);
                    batched::gbtrs(op, kl, ku, BatchDense<V>(t.exec, factors),
                                   loom::Array<int32>(t.exec, pivots_ref), x, t.launch);
                    // Matrix 3 divides by its zero pivot: compare the others.
                    const BatchDense<V> got(loom::test::reference(), x);
                    for (size_type b = 0; b < count; ++b) {
                        if (b == 3) continue;
                        EXPECT_LE(error_of(got.item(b).to_host(), X.item(b).to_host()),
                                  tolerance<V>(n))
                            << t.name() << " " << loom::blas::to_string(op) << what;
                    }
                }
            }
        }
    }
}

/// The call throws E and leaves every batch as it was.
template <typename E, typename V, typename F>
void expect_throw_untouched(F&& call, std::initializer_list<const BatchDense<V>*> batches,
                            const char* what)
{
    std::vector<std::vector<V>> before;
    for (const auto* b : batches) before.push_back(raw(*b));
    EXPECT_THROW(call(), E) << what;
    std::size_t k = 0;
    for (const auto* b : batches) EXPECT_EQ(raw(*b), before[k++]) << what << " touched its data";
}

TYPED_TEST(BatchedFrontMore, BadSizesThrowAndLeaveDataUntouched)
{
    using V = TypeParam;
    using R = loom::remove_complex_t<V>;
    auto A = random_batch<V>(4, {3, 3}, 20);
    auto x = random_batch<V>(4, {3, 1}, 21);
    auto x4 = random_batch<V>(4, {4, 1}, 22);
    auto x5 = random_batch<V>(5, {3, 1}, 23);
    auto wide_x = random_batch<V>(4, {3, 2}, 24);
    loom::Array<V> result;
    loom::Array<R> norms;
    loom::Array<int32> pivots, info;
    using loom::BadInput;
    using loom::DimensionMismatch;
    expect_throw_untouched<DimensionMismatch, V>(
        [&] { batched::trsv(Uplo::lower, Op::none, Diag::unit, V(1), A, x4); }, {&A, &x4},
        "trsv rows");
    expect_throw_untouched<DimensionMismatch, V>(
        [&] { batched::trsv(Uplo::lower, Op::none, Diag::unit, V(1), A, x5); }, {&A, &x5},
        "trsv count");
    expect_throw_untouched<DimensionMismatch, V>(
        [&] { batched::syr(Uplo::lower, Op::transpose, V(1), wide_x, A); }, {&A, &wide_x},
        "syr columns");
    expect_throw_untouched<BadInput, V>([&] { batched::syr(Uplo::lower, Op::none, V(1), x, A); },
                                        {&A, &x}, "syr op none");
    if constexpr (loom::is_complex_v<V>) {
        expect_throw_untouched<BadInput, V>(
            [&] { batched::syr(Uplo::upper, Op::conj_transpose, V(R(1), R(1)), x, A); }, {&A, &x},
            "her with a complex alpha");
    }
    expect_throw_untouched<DimensionMismatch, V>([&] { batched::axpy(V(1), x, x4); }, {&x, &x4},
                                                 "axpy");
    expect_throw_untouched<BadInput, V>([&] { batched::axpy(V(1), x, x); }, {&x}, "axpy aliasing");
    expect_throw_untouched<DimensionMismatch, V>([&] { batched::dot(x, x5, result); }, {&x, &x5},
                                                 "dot");
    expect_throw_untouched<DimensionMismatch, V>([&] { batched::conj_dot(wide_x, wide_x, result); },
                                                 {&wide_x}, "conj_dot columns");
    expect_throw_untouched<DimensionMismatch, V>([&] { batched::nrm2(wide_x, norms); }, {&wide_x},
                                                 "nrm2 columns");
    auto rectangular = random_batch<V>(4, {3, 2}, 25);
    expect_throw_untouched<DimensionMismatch, V>(
        [&] { batched::inverse_lu_nopivot(rectangular, info); }, {&rectangular},
        "inverse of 3 x 2");
    loom::Array<int32> short_pivots(loom::test::reference(), std::vector<int32>{0, 1});
    expect_throw_untouched<BadInput, V>([&] { batched::inverse_lu(A, short_pivots, info); }, {&A},
                                        "inverse_lu pivots");
    // Band storage of kl = 1, ku = 1 needs 4 rows.
    auto AB = random_batch<V>(4, {3, 5}, 26);
    expect_throw_untouched<DimensionMismatch, V>([&] { batched::gbtrf(1, 1, AB, pivots, info); },
                                                 {&AB}, "gbtrf rows");
    expect_throw_untouched<BadInput, V>([&] { batched::gbtrf(-1, 4, AB, pivots, info); }, {&AB},
                                        "gbtrf kl < 0");
    auto AB4 = random_batch<V>(4, {4, 5}, 27);
    auto B = random_batch<V>(4, {4, 2}, 28);
    loom::Array<int32> band_pivots(loom::test::reference(), std::vector<int32>(20, 0));
    expect_throw_untouched<DimensionMismatch, V>(
        [&] { batched::gbtrs(Op::none, 1, 1, AB4, band_pivots, B); }, {&AB4, &B},
        "gbtrs rows of B");
    auto B5 = random_batch<V>(4, {5, 2}, 29);
    expect_throw_untouched<BadInput, V>(
        [&] { batched::gbtrs(Op::none, 1, 1, AB4, short_pivots, B5); }, {&AB4, &B5},
        "gbtrs pivots");
    if (loom::OmpExecutor::available()) {
        const auto omp = loom::OmpExecutor::create();
        BatchDense<V> a(omp, A), u, w;
        loom::Array<int32> jpiv, rank;
        expect_throw_untouched<loom::NotSupported, V>(
            [&] { batched::utv(a, jpiv, u, w, rank, R(-1), Launch::simd); }, {&a}, "utv simd");
        BatchDense<V> ab(omp, AB4);
        expect_throw_untouched<loom::NotSupported, V>(
            [&] { batched::gbtrf(1, 1, ab, pivots, info, Launch::simd); }, {&ab}, "gbtrf simd");
        using NoVendor = std::conditional_t<LOOM_HAS_BLAS, loom::NotSupported, loom::NotCompiled>;
        BatchDense<V> xo(omp, x);
        expect_throw_untouched<NoVendor, V>([&] { batched::nrm2(xo, norms, Launch::vendor); },
                                            {&xo}, "nrm2 vendor");
    }
    if (loom::CudaExecutor::available()) {
        const auto cuda = loom::CudaExecutor::create(0);
        BatchDense<V> xc(cuda, x);
        EXPECT_THROW(batched::scale(V(2), xc, Launch::vendor), loom::NotSupported);
        EXPECT_THROW(batched::axpy(V(1), x, xc), loom::BadInput);
    }
}

TYPED_TEST(BatchedFrontMore, EmptyBatchesAndExecutorFirstForms)
{
    using V = TypeParam;
    using R = loom::remove_complex_t<V>;
    for (const auto& t : targets<V>({.simd = false})) {
        BatchDense<V> none(t.exec, 0, {3, 1});
        loom::Array<R> norms;
        batched::nrm2(none, norms, t.launch);
        EXPECT_EQ(norms.size(), 0);
        BatchDense<V> empty(t.exec, 3, {0, 1});
        loom::Array<V> dots;
        batched::dot(empty, empty, dots, t.launch);
        EXPECT_EQ(host(dots), std::vector<V>(3, V{}));
        BatchDense<V> flat(t.exec, 2, {0, 4}), u, w;
        loom::Array<int32> jpiv, rank;
        batched::utv(flat, jpiv, u, w, rank, R(-1), t.launch);
        EXPECT_EQ(host(rank), (std::vector<int32>{0, 0}));
        EXPECT_EQ(host(jpiv), (std::vector<int32>{0, 1, 2, 3, 0, 1, 2, 3}));
        BatchDense<V> band(t.exec, 2, {4, 0});
        loom::Array<int32> pivots, info;
        batched::gbtrf(1, 1, band, pivots, info, t.launch);
        EXPECT_EQ(host(info), (std::vector<int32>{0, 0}));
    }
    // The executor-first form on a batch made by the reference executor.
    if (loom::OmpExecutor::available()) {
        const auto omp = loom::OmpExecutor::create();
        const auto x = random_batch<V>(9, {7, 1}, 30);
        loom::Array<R> expected, got;
        batched::nrm2(x, expected);
        batched::nrm2(omp, x, got);
        EXPECT_LE(error_of(host(got), host(expected)), tolerance<V>(7));
    }
}

}  // namespace
