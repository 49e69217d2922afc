// Front-level batched calls (loom/batched/front.hpp) and BatchDense: every call in every launch
// on every backend against the reference backend, on padded (strided) batches, with singular
// matrices reported per matrix; plus the containers' copies and views, and bad inputs.
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

/// Triangles that are well conditioned with their diagonal or a unit one.
template <typename V>
BatchDense<V> triangular_batch(size_type count, size_type n, std::uint64_t seed)
{
    using R = loom::remove_complex_t<V>;
    auto batch = random_batch<V>(count, {n, n}, seed);
    for (size_type b = 0; b < count; ++b) {
        for (size_type i = 0; i < n; ++i) {
            for (size_type j = 0; j < n; ++j) batch.at(b, i, j) *= V(R(1) / static_cast<R>(n));
            batch.at(b, i, i) = batch.at(b, i, i) * static_cast<R>(n) + V(R(2));
        }
    }
    return batch;
}


std::vector<int32> host(const loom::Array<int32>& a) { return a.to_host(); }

template <typename V>
class BatchedFront : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedFront, loom::test::ValueTypes);

TYPED_TEST(BatchedFront, GemmEveryOpAndLaunchMatchesReference)
{
    using V = TypeParam;
    const size_type count = 150;
    for (const size_type n : {1, 3, 8, 17}) {
        for (const auto op_a : all_ops) {
            for (const auto op_b : all_ops) {
                // m x k times k x n with three different extents.
                const size_type m = n, k = n + 2, cols = std::max<size_type>(1, n - 1);
                const auto A = random_batch<V>(count, op_a == Op::none ? dim2{m, k} : dim2{k, m}, 1);
                const auto B = random_batch<V>(count, op_b == Op::none ? dim2{k, cols} : dim2{cols, k}, 2);
                for (const V beta : {V{}, V(0.5)}) {
                    auto expected = random_batch<V>(count, {m, cols}, 3);
                    const auto C0 = expected;
                    batched::gemm(op_a, op_b, V(1.5), A, B, beta, expected);
                    for (const auto& t : targets<V>({.cuda_vendor = true, .host_vendor = true})) {
                        BatchDense<V> C(t.exec, C0);
                        batched::gemm(op_a, op_b, V(1.5), BatchDense<V>(t.exec, A),
                                      BatchDense<V>(t.exec, B), beta, C, t.launch);
                        EXPECT_LE(error_of(raw(C), raw(expected)), tolerance<V>(k))
                            << t.name() << " n=" << n << " " << loom::blas::to_string(op_a)
                            << " " << loom::blas::to_string(op_b);
                    }
                }
            }
        }
    }
}

/// op(M) of matrix b as a plain host matrix, written independently of the batched routines.
template <typename V>
std::vector<V> plain_op(const BatchDense<V>& M, size_type b, Op op, size_type& rows,
                        size_type& cols)
{
    rows = op == Op::none ? M.rows() : M.cols();
    cols = op == Op::none ? M.cols() : M.rows();
    std::vector<V> out(static_cast<std::size_t>(rows * cols));
    for (size_type i = 0; i < rows; ++i) {
        for (size_type j = 0; j < cols; ++j) {
            const V v = op == Op::none ? M.at(b, i, j) : M.at(b, j, i);
            out[i * cols + j] = op == Op::conj_transpose ? loom::conj(v) : v;
        }
    }
    return out;
}

/// The triangle of matrix b (the other entries zero, the diagonal one when unit).
template <typename V>
BatchDense<V> plain_triangle(const BatchDense<V>& A, Uplo uplo, Diag diag)
{
    BatchDense<V> T(loom::test::reference(), A.batch_count(), A.size());
    for (size_type b = 0; b < A.batch_count(); ++b) {
        for (size_type i = 0; i < A.rows(); ++i) {
            for (size_type j = 0; j < A.cols(); ++j) {
                const bool inside = uplo == Uplo::lower ? j <= i : j >= i;
                T.at(b, i, j) = i == j && diag == Diag::unit ? V(1) : inside ? A.at(b, i, j) : V{};
            }
        }
    }
    return T;
}

/// X Y for plain row-major matrices.
template <typename V>
std::vector<V> plain_product(const std::vector<V>& X, const std::vector<V>& Y, size_type m,
                             size_type k, size_type n)
{
    std::vector<V> out(static_cast<std::size_t>(m * n), V{});
    for (size_type i = 0; i < m; ++i) {
        for (size_type l = 0; l < k; ++l) {
            for (size_type j = 0; j < n; ++j) out[i * n + j] += X[i * k + l] * Y[l * n + j];
        }
    }
    return out;
}

// The reference backend (the oracle of every other test here) against triple loops: every op
// of gemm, every side/triangle/op/diagonal of trmm and trsm.
TYPED_TEST(BatchedFront, ReferenceMatchesPlainLoops)
{
    using V = TypeParam;
    const size_type count = 3;
    for (const size_type n : {1, 4, 9}) {
        for (const auto op_a : all_ops) {
            for (const auto op_b : all_ops) {
                const size_type m = n, k = n + 1, cols = n + 2;
                const auto A = random_batch<V>(count, op_a == Op::none ? dim2{m, k} : dim2{k, m}, 21);
                const auto B = random_batch<V>(count, op_b == Op::none ? dim2{k, cols} : dim2{cols, k}, 22);
                const auto C0 = random_batch<V>(count, {m, cols}, 23);
                auto C = C0;
                batched::gemm(op_a, op_b, V(2), A, B, V(0.5), C);
                for (size_type b = 0; b < count; ++b) {
                    size_type r, c;
                    const auto a = plain_op(A, b, op_a, r, c);
                    const auto bb = plain_op(B, b, op_b, r, c);
                    auto expected = plain_product(a, bb, m, k, cols);
                    for (size_type i = 0; i < m; ++i) {
                        for (size_type j = 0; j < cols; ++j) {
                            expected[i * cols + j] = V(2) * expected[i * cols + j] + V(0.5) * C0.at(b, i, j);
                        }
                    }
                    EXPECT_LE(error_of(C.item(b).to_host(), expected), tolerance<V>(k))
                        << "gemm n=" << n << " " << loom::blas::to_string(op_a) << " "
                        << loom::blas::to_string(op_b);
                }
            }
        }
        const auto A = triangular_batch<V>(count, n, 24);
        for (auto side : {Side::left, Side::right}) {
            const dim2 b_size = side == Side::left ? dim2{n, 3} : dim2{2, n};
            const auto B = random_batch<V>(count, b_size, 25);
            for (auto uplo : {Uplo::lower, Uplo::upper}) {
                const auto T0 = plain_triangle(A, uplo, Diag::non_unit);
                const auto T1 = plain_triangle(A, uplo, Diag::unit);
                for (auto op : all_ops) {
                    for (auto diag : {Diag::non_unit, Diag::unit}) {
                        auto product = B;
                        auto solution = B;
                        batched::trmm(side, uplo, op, diag, V(0.5), A, product);
                        batched::trsm(side, uplo, op, diag, V(0.5), A, solution);
                        const auto& T = diag == Diag::unit ? T1 : T0;
                        for (size_type b = 0; b < count; ++b) {
                            size_type r, c;
                            const auto t = plain_op(T, b, op, r, c);
                            const auto x = B.item(b).to_host();
                            const auto s = solution.item(b).to_host();
                            // trmm: 0.5 op(T) B (left) or 0.5 B op(T) (right).
                            auto expected = side == Side::left
                                                ? plain_product(t, x, n, n, b_size.cols)
                                                : plain_product(x, t, b_size.rows, n, n);
                            for (auto& v : expected) v *= V(0.5);
                            // trsm: op(T) X = 0.5 B (left) or X op(T) = 0.5 B (right).
                            auto back = side == Side::left ? plain_product(t, s, n, n, b_size.cols)
                                                           : plain_product(s, t, b_size.rows, n, n);
                            std::vector<V> half_b = x;
                            for (auto& v : half_b) v *= V(0.5);
                            const auto what = std::string(side == Side::left ? " left" : " right") +
                                              (uplo == Uplo::lower ? " lower " : " upper ") +
                                              loom::blas::to_string(op) +
                                              (diag == Diag::unit ? " unit" : "");
                            EXPECT_LE(error_of(product.item(b).to_host(), expected), tolerance<V>(n))
                                << "trmm n=" << n << what;
                            EXPECT_LE(error_of(back, half_b), tolerance<V>(n)) << "trsm n=" << n << what;
                        }
                    }
                }
            }
        }
    }
}

TYPED_TEST(BatchedFront, GemvMatchesReference)
{
    using V = TypeParam;
    const size_type count = 70;
    for (const size_type n : {1, 5, 33}) {
        for (const auto op : all_ops) {
            const auto A = random_batch<V>(count, {n, n + 1}, 4);
            const dim2 a = op == Op::none ? dim2{n, n + 1} : dim2{n + 1, n};
            const auto x = random_batch<V>(count, {a.cols, 1}, 5);
            auto expected = random_batch<V>(count, {a.rows, 1}, 6);
            const auto y0 = expected;
            batched::gemv(op, V(2), A, x, V(-1), expected);
            for (const auto& t : targets<V>({})) {
                BatchDense<V> y(t.exec, y0);
                batched::gemv(op, V(2), BatchDense<V>(t.exec, A), BatchDense<V>(t.exec, x), V(-1),
                              y, t.launch);
                EXPECT_LE(error_of(raw(y), raw(expected)), tolerance<V>(n)) << t.name() << " n=" << n;
            }
        }
    }
}

TYPED_TEST(BatchedFront, TrsmAndTrmmEveryCaseMatchReference)
{
    using V = TypeParam;
    const size_type count = 40;
    for (const size_type n : {1, 6, 19}) {
        const auto A = triangular_batch<V>(count, n, 7);
        for (auto side : {Side::left, Side::right}) {
            const dim2 b_size = side == Side::left ? dim2{n, 3} : dim2{4, n};
            const auto B = random_batch<V>(count, b_size, 8);
            for (auto uplo : {Uplo::lower, Uplo::upper}) {
                for (auto op : all_ops) {
                    for (auto diag : {Diag::non_unit, Diag::unit}) {
                        for (const bool solve : {true, false}) {
                            auto expected = B;
                            const auto call = [&](const BatchDense<V>& a, BatchDense<V>& b, Launch l) {
                                if (solve) {
                                    batched::trsm(side, uplo, op, diag, V(0.5), a, b, l);
                                } else {
                                    batched::trmm(side, uplo, op, diag, V(0.5), a, b, l);
                                }
                            };
                            call(A, expected, Launch::automatic);
                            for (const auto& t : targets<V>({.cuda_vendor = solve, .host_vendor = true})) {
                                BatchDense<V> b(t.exec, B);
                                call(BatchDense<V>(t.exec, A), b, t.launch);
                                EXPECT_LE(error_of(raw(b), raw(expected)), tolerance<V>(n))
                                    << t.name() << (solve ? " trsm" : " trmm") << " n=" << n
                                    << (side == Side::left ? " left" : " right")
                                    << (uplo == Uplo::lower ? " lower " : " upper ")
                                    << loom::blas::to_string(op)
                                    << (diag == Diag::unit ? " unit" : "");
                            }
                        }
                    }
                }
            }
        }
    }
}

TYPED_TEST(BatchedFront, TrtriReportsZeroDiagonalPerMatrix)
{
    using V = TypeParam;
    const size_type count = 45;
    for (const size_type n : {1, 4, 9, 32}) {
        for (auto uplo : {Uplo::lower, Uplo::upper}) {
            for (auto diag : {Diag::non_unit, Diag::unit}) {
                auto A = triangular_batch<V>(count, n, 9);
                A.at(7, n - 1, n - 1) = V{};  // singular unless the diagonal is implicit
                auto expected = A;
                loom::Array<int32> expected_info;
                batched::trtri(uplo, diag, expected, expected_info);
                const auto info_ref = host(expected_info);
                EXPECT_EQ(info_ref[7], diag == Diag::unit ? 0 : static_cast<int32>(n));
                EXPECT_EQ(info_ref[6], 0);
                for (const auto& t : targets<V>({.host_vendor = true})) {
                    BatchDense<V> a(t.exec, A);
                    loom::Array<int32> info;
                    batched::trtri(uplo, diag, a, info, t.launch);
                    EXPECT_EQ(host(info), info_ref) << t.name() << " n=" << n;
                    EXPECT_LE(error_of(raw(a), raw(expected)), tolerance<V>(n))
                        << t.name() << " n=" << n;
                    if (diag == Diag::non_unit) {
                        // The singular matrix is left as it was.
                        EXPECT_EQ(BatchDense<V>(loom::test::reference(), a).item(7).to_host(),
                                  A.item(7).to_host())
                            << t.name();
                    }
                }
            }
        }
    }
}

/// P A reconstructed from LU factors and 0-based pivots (host).
template <typename V>
std::vector<V> reconstruct(const loom::matrix::Dense<V>& LU, const int32* pivots)
{
    const size_type n = LU.rows();
    std::vector<V> product(static_cast<std::size_t>(n * n));
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            V sum{};
            for (size_type k = 0; k <= std::min(i, j); ++k) sum += (k == i ? V{1} : LU.at(i, k)) * LU.at(k, j);
            product[i * n + j] = sum;
        }
    }
    for (size_type k = n - 1; k >= 0; --k) {
        for (size_type j = 0; j < n; ++j) std::swap(product[k * n + j], product[pivots[k] * n + j]);
    }
    return product;
}

TYPED_TEST(BatchedFront, GetrfFactorsAndReportsZeroPivots)
{
    using V = TypeParam;
    const size_type count = 130;
    for (const size_type n : {1, 2, 5, 8, 13, 32, 33}) {
        auto A = random_batch<V>(count, {n, n}, 10);
        const size_type zero_column = n / 2;
        for (size_type i = 0; i < n; ++i) A.at(3, i, zero_column) = V{};
        auto expected = A;
        loom::Array<int32> expected_pivots, expected_info;
        batched::getrf(expected, expected_pivots, expected_info);
        const auto info_ref = host(expected_info);
        EXPECT_EQ(info_ref[3], static_cast<int32>(zero_column + 1)) << "n=" << n;
        EXPECT_EQ(info_ref[4], 0);
        for (const auto& t : targets<V>({.simd = false, .cuda_vendor = true, .host_vendor = true})) {
            BatchDense<V> a(t.exec, A);
            loom::Array<int32> pivots, info;
            batched::getrf(a, pivots, info, t.launch);
            EXPECT_EQ(host(info), info_ref) << t.name() << " n=" << n;
            const BatchDense<V> lu(loom::test::reference(), a);
            const auto p = host(pivots);
            ASSERT_EQ(p.size(), static_cast<std::size_t>(count * n));
            if (t.launch != Launch::vendor) {
                // The same pivot choice as the reference (LAPACK's): the same factors.
                EXPECT_EQ(p, host(expected_pivots)) << t.name() << " n=" << n;
                EXPECT_LE(error_of(raw(lu), raw(expected)), tolerance<V>(n)) << t.name();
            }
            for (size_type b = 0; b < count; b += 13) {
                if (b == 3) continue;
                EXPECT_LE(error_of(reconstruct(lu.item(b), p.data() + b * n), A.item(b).to_host()),
                          tolerance<V>(n))
                    << t.name() << " n=" << n << " matrix " << b;
            }
        }
    }
}

TYPED_TEST(BatchedFront, GetrfNoPivotAndAddRadial)
{
    using V = TypeParam;
    using R = loom::remove_complex_t<V>;
    const size_type count = 30;
    for (const size_type n : {1, 5, 17}) {
        auto A = random_batch<V>(count, {n, n}, 41);
        for (size_type b = 0; b < count; ++b) {
            for (size_type i = 0; i < n; ++i) A.at(b, i, i) *= V(R(4 * n));
        }
        A.at(2, 0, 0) = V{};  // a zero pivot at the first step of matrix 2

        // add_radial: by hand, padding untouched.
        auto radial = A;
        batched::add_radial(R(0.25), radial);
        auto expected_radial = raw(A);
        for (size_type b = 0; b < count; ++b) {
            for (size_type i = 0; i < n; ++i) {
                auto& d = expected_radial[b * A.batch_stride() + i * A.stride() + i];
                d += V(std::real(d) >= R(0) ? R(0.25) : R(-0.25));
            }
        }
        EXPECT_EQ(raw(radial), expected_radial) << "n=" << n;

        // getrf_nopivot on the reference: L U = A with plain loops, the zero pivot reported.
        auto lu = A;
        loom::Array<int32> info;
        batched::getrf_nopivot(lu, info);
        const auto ir = host(info);
        for (size_type b = 0; b < count; ++b) {
            EXPECT_EQ(ir[b], b == 2 ? 1 : 0) << "n=" << n << " matrix " << b;
            if (b == 2) continue;
            std::vector<V> product(static_cast<std::size_t>(n * n), V{}), original(product.size());
            for (size_type i = 0; i < n; ++i) {
                for (size_type j = 0; j < n; ++j) {
                    original[i * n + j] = A.at(b, i, j);
                    for (size_type k = 0; k <= std::min(i, j); ++k) {
                        const V l = k == i ? V(1) : lu.at(b, i, k);
                        product[i * n + j] += l * lu.at(b, k, j);
                    }
                }
            }
            EXPECT_LE(error_of(product, original), tolerance<V>(n)) << "n=" << n << " matrix " << b;
        }
        for (const auto& t : targets<V>({})) {
            BatchDense<V> a(t.exec, A), r(t.exec, A);
            loom::Array<int32> got_info;
            batched::getrf_nopivot(a, got_info, t.launch);
            batched::add_radial(R(0.25), r, t.launch);
            EXPECT_EQ(host(got_info), ir) << t.name() << " n=" << n;
            EXPECT_EQ(raw(r), expected_radial) << t.name() << " n=" << n;
            const BatchDense<V> got(loom::test::reference(), a);
            for (size_type b = 0; b < count; ++b) {
                if (b == 2) continue;
                EXPECT_LE(error_of(got.item(b).to_host(), lu.item(b).to_host()), tolerance<V>(n))
                    << t.name() << " n=" << n << " matrix " << b;
            }
        }
    }
}

TYPED_TEST(BatchedFront, GetrsAndGesvSolve)
{
    using V = TypeParam;
    const size_type count = 50;
    for (const size_type n : {1, 4, 11, 24}) {
        auto A = random_batch<V>(count, {n, n}, 11, 3.0);
        const auto B = random_batch<V>(count, {n, 2}, 12);
        auto LU = A;
        loom::Array<int32> pivots, info;
        batched::getrf(LU, pivots, info);
        for (const auto op : all_ops) {
            auto expected = B;
            batched::getrs(op, LU, pivots, expected);
            for (const auto& t : targets<V>({.simd = false})) {
                BatchDense<V> x(t.exec, B);
                batched::getrs(op, BatchDense<V>(t.exec, LU), loom::Array<int32>(t.exec, pivots), x,
                               t.launch);
                EXPECT_LE(error_of(raw(x), raw(expected)), tolerance<V>(n))
                    << t.name() << " " << loom::blas::to_string(op) << " n=" << n;
            }
        }
        // gesv with a singular matrix: its info is set and its right-hand side kept.
        for (size_type i = 0; i < n; ++i) A.at(5, i, 0) = V{};
        auto expected_A = A;
        auto expected_B = B;
        loom::Array<int32> p_ref, info_ref;
        batched::gesv(expected_A, p_ref, expected_B, info_ref);
        EXPECT_EQ(host(info_ref)[5], 1);
        EXPECT_EQ(expected_B.item(5).to_host(), B.item(5).to_host());
        for (const auto& t : targets<V>({.simd = false})) {
            BatchDense<V> a(t.exec, A), b(t.exec, B);
            loom::Array<int32> p, inf;
            batched::gesv(a, p, b, inf, t.launch);
            EXPECT_EQ(host(inf), host(info_ref)) << t.name();
            EXPECT_LE(error_of(raw(b), raw(expected_B)), tolerance<V>(n)) << t.name() << " n=" << n;
        }
    }
}

/// Hermitian positive definite: M M^H + n I (padding random).
template <typename V>
BatchDense<V> spd_batch(size_type count, size_type n, std::uint64_t seed)
{
    const auto M = random_batch<V>(count, {n, n}, seed);
    auto A = random_batch<V>(count, {n, n}, seed + 1);
    for (size_type b = 0; b < count; ++b) {
        for (size_type i = 0; i < n; ++i) {
            for (size_type j = 0; j < n; ++j) {
                V sum = i == j ? V(static_cast<loom::remove_complex_t<V>>(n)) : V{};
                for (size_type k = 0; k < n; ++k) sum += M.at(b, i, k) * loom::conj(M.at(b, j, k));
                A.at(b, i, j) = sum;
            }
        }
    }
    return A;
}

TYPED_TEST(BatchedFront, PotrfAndPotrsMatchReference)
{
    using V = TypeParam;
    const size_type count = 60;
    for (const size_type n : {1, 3, 8, 21, 32, 33}) {
        for (auto uplo : {Uplo::lower, Uplo::upper}) {
            auto A = spd_batch<V>(count, n, 13);
            A.at(9, n - 1, n - 1) = V(-1);  // not positive definite at the last step
            const auto B = random_batch<V>(count, {n, 3}, 14);
            auto expected = A;
            loom::Array<int32> info_ref;
            batched::potrf(uplo, expected, info_ref);
            const auto ir = host(info_ref);
            EXPECT_EQ(ir[9], static_cast<int32>(n));
            for (const auto& t : targets<V>({.cuda_vendor = true, .host_vendor = true})) {
                BatchDense<V> a(t.exec, A);
                loom::Array<int32> info;
                batched::potrf(uplo, a, info, t.launch);
                EXPECT_EQ(host(info), ir) << t.name();
                // Compare every matrix but the failed one (a failure leaves it partly done); the
                // vendor libraries on the factor's triangle only (the other is theirs).
                const bool factor_only = t.launch == Launch::vendor;
                const auto got = plain_triangle(BatchDense<V>(loom::test::reference(), a), uplo,
                                                Diag::non_unit);
                const auto want = plain_triangle(expected, uplo, Diag::non_unit);
                const BatchDense<V> whole(loom::test::reference(), a);
                for (size_type b = 0; b < count; ++b) {
                    if (b == 9) continue;
                    EXPECT_LE(factor_only
                                  ? error_of(got.item(b).to_host(), want.item(b).to_host())
                                  : error_of(whole.item(b).to_host(), expected.item(b).to_host()),
                              tolerance<V>(n))
                        << t.name() << " n=" << n << " matrix " << b;
                }
            }
            // Solve with the factors of the successful matrices (matrix 9 made SPD again).
            auto good = spd_batch<V>(count, n, 15);
            batched::potrf(uplo, good, info_ref);
            auto x_ref = B;
            batched::potrs(uplo, good, x_ref);
            for (const auto& t : targets<V>({})) {
                BatchDense<V> x(t.exec, B);
                batched::potrs(uplo, BatchDense<V>(t.exec, good), x, t.launch);
                EXPECT_LE(error_of(raw(x), raw(x_ref)), tolerance<V>(n)) << t.name() << " n=" << n;
            }
        }
    }
}

/// The host vendor path of trtri and potrf on its own: a loop of LAPACK calls whose CHARACTER
/// arguments (uplo, diag) travel with their hidden Fortran lengths (src/base/host/fortran.hpp).
/// Both triangles, unit and non-unit diagonals, and a failing matrix whose info must match.
TYPED_TEST(BatchedFront, HostVendorTrtriAndPotrfMatchReference)
{
    using V = TypeParam;
    if (!LOOM_HAS_BLAS) GTEST_SKIP() << "built without a host BLAS/LAPACK";
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "built without OpenMP";
    const auto omp = loom::OmpExecutor::create();
    const size_type count = 12;
    for (const size_type n : {1, 2, 7, 16, 33}) {
        for (auto uplo : {Uplo::lower, Uplo::upper}) {
            for (auto diag : {Diag::non_unit, Diag::unit}) {
                auto A = triangular_batch<V>(count, n, 31);
                A.at(3, 0, 0) = V{};  // singular at the first step unless the diagonal is implicit
                auto expected = A;
                loom::Array<int32> info_ref;
                batched::trtri(uplo, diag, expected, info_ref, Launch::serial);
                BatchDense<V> a(omp, A);
                loom::Array<int32> info;
                batched::trtri(uplo, diag, a, info, Launch::vendor);
                EXPECT_EQ(host(info), host(info_ref)) << "trtri n=" << n;
                EXPECT_EQ(host(info)[3], diag == Diag::unit ? 0 : 1) << "trtri n=" << n;
                EXPECT_LE(error_of(raw(a), raw(expected)), tolerance<V>(n)) << "trtri n=" << n;
            }
            auto A = spd_batch<V>(count, n, 32);
            A.at(5, 0, 0) = V(-1);  // not positive definite at the first step
            auto expected = A;
            loom::Array<int32> info_ref;
            batched::potrf(uplo, expected, info_ref, Launch::serial);
            BatchDense<V> a(omp, A);
            loom::Array<int32> info;
            batched::potrf(uplo, a, info, Launch::vendor);
            EXPECT_EQ(host(info), host(info_ref)) << "potrf n=" << n;
            EXPECT_EQ(host(info)[5], 1) << "potrf n=" << n;
            // LAPACK leaves the other triangle as it was; compare the factor's triangle.
            const auto got = plain_triangle(BatchDense<V>(loom::test::reference(), a), uplo,
                                            Diag::non_unit);
            const auto want = plain_triangle(expected, uplo, Diag::non_unit);
            for (size_type b = 0; b < count; ++b) {
                if (b == 5) continue;
                EXPECT_LE(error_of(got.item(b).to_host(), want.item(b).to_host()), tolerance<V>(n))
                    << "potrf n=" << n << " matrix " << b;
            }
        }
    }
}

TYPED_TEST(BatchedFront, QrAndApplyQMatchReference)
{
    using V = TypeParam;
    const size_type count = 40;
    for (const dim2 size : {dim2{1, 1}, dim2{5, 3}, dim2{3, 5}, dim2{8, 8}, dim2{20, 17}, dim2{32, 32},
                            dim2{33, 31}}) {
        const auto A = random_batch<V>(count, size, 16);
        auto qr_ref = A;
        BatchDense<V> tau_ref;
        batched::qr(qr_ref, tau_ref);
        // cuBLAS geqrfBatched follows LAPACK's reflectors, as the routines do: the same factors.
        for (const auto& t : targets<V>({.cuda_vendor = true})) {
            BatchDense<V> a(t.exec, A), tau;
            batched::qr(a, tau, t.launch);
            EXPECT_LE(error_of(raw(a), raw(qr_ref)), tolerance<V>(size.rows)) << t.name();
            EXPECT_LE(error_of(tau.to_host(), tau_ref.to_host()), tolerance<V>(size.rows)) << t.name();
        }
        for (auto side : {Side::left, Side::right}) {
            for (auto op : {Op::none, Op::conj_transpose}) {
                const dim2 b_size = side == Side::left ? dim2{size.rows, 3} : dim2{2, size.rows};
                const auto B = random_batch<V>(count, b_size, 17);
                auto expected = B;
                batched::apply_q(side, op, qr_ref, tau_ref, expected);
                for (const auto& t : targets<V>({})) {
                    BatchDense<V> b(t.exec, B);
                    batched::apply_q(side, op, BatchDense<V>(t.exec, qr_ref),
                                     BatchDense<V>(t.exec, tau_ref), b, t.launch);
                    EXPECT_LE(error_of(raw(b), raw(expected)), tolerance<V>(size.rows)) << t.name();
                }
            }
        }
        // Q^H A = R: the reference itself is consistent.
        auto r = A;
        batched::apply_q(Side::left, Op::conj_transpose, qr_ref, tau_ref, r);
        for (size_type b = 0; b < count; b += 7) {
            for (size_type i = 0; i < size.rows; ++i) {
                for (size_type j = 0; j < size.cols; ++j) {
                    const V R = i <= j ? qr_ref.at(b, i, j) : V{};
                    EXPECT_LE(std::abs(r.at(b, i, j) - R), tolerance<V>(size.rows));
                }
            }
        }
    }
}

TYPED_TEST(BatchedFront, ExecutorFirstFormRunsOnThatExecutor)
{
    using V = TypeParam;
    const size_type count = 20;
    const auto A = random_batch<V>(count, {5, 5}, 31);
    const auto B = random_batch<V>(count, {5, 5}, 32);
    auto expected = random_batch<V>(count, {5, 5}, 33);
    const auto C0 = expected;
    batched::gemm(V(1), A, B, V(0.5), expected);
    auto lu_expected = A;
    loom::Array<int32> pivots_expected, info_expected;
    batched::getrf(lu_expected, pivots_expected, info_expected);
    for (const auto& exec : loom::test::backends()) {
        if (!exec->same_memory_as(*A.executor())) {
            // Host batches cannot be views on a GPU: the call says so before running.
            auto c = C0;
            EXPECT_THROW(batched::gemm(exec, V(1), A, B, V(0.5), c), loom::BadInput);
            EXPECT_EQ(raw(c), raw(C0));
            continue;
        }
        auto c = C0;
        batched::gemm(exec, V(1), A, B, V(0.5), c, Launch::serial);
        EXPECT_LE(error_of(raw(c), raw(expected)), tolerance<V>(5)) << exec->name();
        auto lu = A;
        loom::Array<int32> pivots, info;
        batched::getrf(exec, lu, pivots, info);
        EXPECT_EQ(info.executor().get(), exec.get());
        EXPECT_EQ(host(pivots), host(pivots_expected)) << exec->name();
        EXPECT_LE(error_of(raw(lu), raw(lu_expected)), tolerance<V>(5)) << exec->name();
    }
}

TYPED_TEST(BatchedFront, BadInputsAreRejected)
{
    using V = TypeParam;
    const auto ref = loom::test::reference();
    const auto A = random_batch<V>(4, {3, 3}, 18);
    const auto B = random_batch<V>(5, {3, 3}, 19);
    auto C = random_batch<V>(4, {3, 3}, 20);
    EXPECT_THROW(batched::gemm(V(1), A, B, V(0), C), loom::DimensionMismatch);
    const auto B2 = random_batch<V>(4, {2, 3}, 21);
    EXPECT_THROW(batched::gemm(V(1), A, B2, V(0), C), loom::DimensionMismatch);
    EXPECT_THROW(batched::gemm(V(1), C, A, V(0), C), loom::BadInput);
    auto rectangular = random_batch<V>(4, {3, 2}, 22);
    loom::Array<int32> pivots, info;
    EXPECT_THROW(batched::getrf(rectangular, pivots, info), loom::DimensionMismatch);
    loom::Array<int32> short_pivots(ref, std::vector<int32>{0, 1});
    EXPECT_THROW(batched::getrs(Op::none, A, short_pivots, C), loom::BadInput);
    EXPECT_THROW(batched::parse_launch("fast"), loom::BadInput);
    EXPECT_EQ(batched::parse_launch("teamvector"), Launch::team_vector);
    if (loom::OmpExecutor::available()) {
        const auto omp = loom::OmpExecutor::create();
        BatchDense<V> a(omp, A);
        if (loom::is_complex_v<V>) {
            BatchDense<V> c(omp, C);
            EXPECT_THROW(batched::gemm(V(1), a, a, V(0), c, Launch::simd), loom::NotSupported);
        }
        EXPECT_THROW(batched::getrf(a, pivots, info, Launch::simd), loom::NotSupported);
        if (!LOOM_HAS_BLAS) {
            EXPECT_THROW(batched::getrf(a, pivots, info, Launch::vendor), loom::NotCompiled);
        }
        BatchDense<V> tau;
        using NoVendorQr = std::conditional_t<LOOM_HAS_BLAS, loom::NotSupported, loom::NotCompiled>;
        EXPECT_THROW(batched::qr(a, tau, Launch::vendor), NoVendorQr);
    }
    if (loom::CudaExecutor::available()) {
        const auto cuda = loom::CudaExecutor::create(0);
        BatchDense<V> a(cuda, A), c(cuda, C);
        EXPECT_THROW(batched::gemm(V(1), a, a, V(0), c, Launch::simd), loom::NotSupported);
        EXPECT_THROW(batched::gemm(V(1), A, a, V(0), c), loom::BadInput);
    }
}

TYPED_TEST(BatchedFront, EmptyBatchesAndMatrices)
{
    using V = TypeParam;
    for (const auto& t : targets<V>({.simd = false})) {
        BatchDense<V> none(t.exec, 0, {3, 3});
        loom::Array<int32> pivots, info;
        EXPECT_NO_THROW(batched::getrf(none, pivots, info, t.launch));
        EXPECT_EQ(info.size(), 0);
        BatchDense<V> empty(t.exec, 4, {0, 0});
        EXPECT_NO_THROW(batched::getrf(empty, pivots, info, t.launch));
        EXPECT_EQ(host(info), (std::vector<int32>{0, 0, 0, 0}));
    }
}

// ------------------------------------------------------------------------- BatchDense

TYPED_TEST(BatchedFront, BatchDenseLayoutCopiesAndViews)
{
    using V = TypeParam;
    const auto ref = loom::test::reference();
    std::vector<V> values(2 * 3 * 4);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = V(static_cast<loom::remove_complex_t<V>>(i));
    const auto packed = BatchDense<V>::from_host(ref, 2, {3, 4}, values);
    EXPECT_TRUE(packed.is_packed());
    EXPECT_EQ(packed.at(1, 2, 3), values[23]);
    EXPECT_EQ(packed.to_host(), values);

    // Another layout: padded rows and matrices; assignment copies values only.
    BatchDense<V> strided(ref, 2, {3, 4}, 6, 20);
    EXPECT_EQ(strided.values().size(), 20 + 2 * 6 + 4);
    strided.values().fill(V(-7));
    strided = packed;
    EXPECT_EQ(strided.stride(), 6);
    EXPECT_EQ(strided.to_host(), values);
    EXPECT_EQ(strided.values().to_host()[4], V(-7));  // padding untouched
    EXPECT_EQ(strided.item(1).to_host(), packed.item(1).to_host());
    auto last = strided.items(1, 1);
    EXPECT_EQ(last.batch_count(), 1);
    EXPECT_EQ(last.at(0, 0, 0), values[12]);

    strided.fill(V(2));
    EXPECT_EQ(strided.to_host(), std::vector<V>(values.size(), V(2)));
    EXPECT_EQ(strided.values().to_host()[4], V(-7));

    for (const auto& exec : loom::test::backends()) {
        const BatchDense<V> there(exec, strided);
        EXPECT_EQ(there.batch_stride(), 20);
        EXPECT_EQ(there.to_host(), strided.to_host());
        BatchDense<V> back(ref, 2, {3, 4});
        back = there;
        EXPECT_EQ(back.to_host(), strided.to_host());
    }

    EXPECT_THROW(BatchDense<V>(ref, 2, {3, 4}, 3), loom::BadInput);
    EXPECT_THROW(BatchDense<V>(ref, 2, {3, 4}, 4, 10), loom::BadInput);
    EXPECT_THROW(BatchDense<V>::from_host(ref, 2, {3, 4}, std::vector<V>(5)), loom::BadInput);
    EXPECT_THROW(strided.item(2), loom::OutOfRange);
    auto view = BatchDense<V>::view(ref, 1, {3, 4}, 6, 20, strided.data());
    EXPECT_THROW(view = packed, loom::BadInput);
}


// ---------------------------------------------------------------------------------------------
// Lane-per-row CUDA kernels (src/batched/front/cuda_rows.cuh): real square matrices up to order
// 32 under team_vector and automatic. Every order 1..33 (each exact order up to 8, the bounds
// 16 and 32, and 33 beyond them), a batch that leaves the last block partly empty, padded
// (strided) batches whose padding must stay untouched. Other backends run the same checks.

/// team_vector and automatic on every backend (the launches that reach the kernels).
std::vector<Target> rows_targets()
{
    std::vector<Target> result;
    for (const auto& exec : loom::test::backends()) {
        for (auto launch : {Launch::automatic, Launch::team_vector}) result.push_back({exec, launch});
    }
    return result;
}

/// A first column of small integers: ties between the first pivot candidates (the first
/// largest must win). Only the first column, so that the elimination stays exact up to there
/// (multipliers 0, 1/2, 1 or 2) and host and device see the same ties.
template <typename V>
BatchDense<V> tied_batch(size_type count, size_type n, std::uint64_t seed)
{
    auto batch = random_batch<V>(count, {n, n}, seed);
    for (size_type b = 0; b < count; ++b) {
        for (size_type i = 0; i < n; ++i) {
            batch.at(b, i, 0) = V(std::round(std::real(batch.at(b, i, 0)) * 2.0));
        }
    }
    return batch;
}

constexpr size_type rows_count = 37;

TYPED_TEST(BatchedFront, RowsGemmEveryOrder)
{
    using V = TypeParam;
    for (size_type n = 1; n <= 33; ++n) {
        for (const auto op_a : {Op::none, Op::transpose}) {
            const auto A = random_batch<V>(rows_count, {n, n}, 21);
            const auto B = random_batch<V>(rows_count, {n, n}, 22);
            for (const V beta : {V{}, V(-0.5)}) {
                auto expected = random_batch<V>(rows_count, {n, n}, 23);
                const auto C0 = expected;
                batched::gemm(op_a, Op::none, V(1.5), A, B, beta, expected);
                for (const auto& t : rows_targets()) {
                    BatchDense<V> C(t.exec, C0);
                    batched::gemm(op_a, Op::none, V(1.5), BatchDense<V>(t.exec, A),
                                  BatchDense<V>(t.exec, B), beta, C, t.launch);
                    EXPECT_LE(error_of(raw(C), raw(expected)), tolerance<V>(n))
                        << t.name() << " n=" << n << " " << loom::blas::to_string(op_a);
                }
            }
        }
    }
}

/// The values of M in another layout (stride, batch_stride), on the reference executor.
template <typename V>
BatchDense<V> relaid(const BatchDense<V>& M, size_type stride, size_type batch_stride)
{
    BatchDense<V> out(loom::test::reference(), M.batch_count(), M.size(), stride, batch_stride);
    out.values().fill(V(-3));
    for (size_type b = 0; b < M.batch_count(); ++b) {
        for (size_type i = 0; i < M.rows(); ++i) {
            for (size_type j = 0; j < M.cols(); ++j) out.at(b, i, j) = M.at(b, i, j);
        }
    }
    return out;
}

// The warp-per-matrix gemms (orders 17..32; C in 3 x 3 or 4 x 4 tiles of 8 on the FP64 tensor
// cores) move rows as 16-byte pairs where a matrix allows (even order and stride, 16-byte
// aligned), a contiguous matrix as one run of values elsewhere (odd orders; matrices one value
// apart, batch stride n^2 + 1: every other matrix misaligned), and value by value where rows
// are apart (stride n + 1). Orders: k padded to a multiple of 4 by 3 zeros (17, 25) or none;
// 24 the last order of 3 x 3 tiles, 25 the first of 4 x 4 (RowsGemmEveryOrder: all orders).
TYPED_TEST(BatchedFront, RowsGemmPackedAndMisalignedBatches)
{
    using V = TypeParam;
    struct Layout {
        size_type stride, batch_stride;
    };
    for (const size_type n : {17, 24, 25, 32}) {
        for (const auto [stride, batch_stride] :
             {Layout{n, n * n}, Layout{n, n * n + 1}, Layout{n + 1, (n + 1) * n}}) {
            const auto A = relaid(random_batch<V>(rows_count, {n, n}, 31), stride, batch_stride);
            const auto B = relaid(random_batch<V>(rows_count, {n, n}, 32), stride, batch_stride);
            for (const V beta : {V{}, V(0.75)}) {
                auto expected =
                    relaid(random_batch<V>(rows_count, {n, n}, 33), stride, batch_stride);
                const auto C0 = expected;
                batched::gemm(Op::none, Op::none, V(-1.25), A, B, beta, expected);
                for (const auto& t : rows_targets()) {
                    BatchDense<V> C(t.exec, C0);
                    batched::gemm(Op::none, Op::none, V(-1.25), BatchDense<V>(t.exec, A),
                                  BatchDense<V>(t.exec, B), beta, C, t.launch);
                    EXPECT_LE(error_of(raw(C), raw(expected)), tolerance<V>(n))
                        << t.name() << " n=" << n << " stride " << stride << " batch stride "
                        << batch_stride;
                }
            }
        }
    }
}

TYPED_TEST(BatchedFront, RowsTrmmEveryOrder)
{
    using V = TypeParam;
    for (size_type n = 1; n <= 33; ++n) {
        const auto A = triangular_batch<V>(rows_count, n, 24);
        const auto B = random_batch<V>(rows_count, {n, n}, 25);
        for (auto side : {Side::left, Side::right}) {
            for (auto uplo : {Uplo::lower, Uplo::upper}) {
                for (auto op : {Op::none, Op::transpose}) {
                    for (auto diag : {Diag::non_unit, Diag::unit}) {
                        // alpha = 0 (B zeroed, nothing read) once per order and side.
                        const bool with_zero = uplo == Uplo::lower && op == Op::none &&
                                               diag == Diag::non_unit;
                        for (const V alpha : {V(1.5), with_zero ? V{} : V(-2)}) {
                            auto expected = B;
                            batched::trmm(side, uplo, op, diag, alpha, A, expected);
                            for (const auto& t : rows_targets()) {
                                BatchDense<V> b(t.exec, B);
                                batched::trmm(side, uplo, op, diag, alpha, BatchDense<V>(t.exec, A),
                                              b, t.launch);
                                EXPECT_LE(error_of(raw(b), raw(expected)), tolerance<V>(n))
                                    << t.name() << " n=" << n;
                            }
                        }
                    }
                }
            }
        }
    }
}

TYPED_TEST(BatchedFront, RowsTrtriEveryOrder)
{
    using V = TypeParam;
    for (size_type n = 1; n <= 33; ++n) {
        for (auto uplo : {Uplo::lower, Uplo::upper}) {
            for (auto diag : {Diag::non_unit, Diag::unit}) {
                auto A = triangular_batch<V>(rows_count, n, 26);
                A.at(5, n / 2, n / 2) = V{};   // info n/2 + 1 unless the diagonal is implicit
                A.at(36, n - 1, n - 1) = V{};  // in the last, partly filled block
                auto expected = A;
                loom::Array<int32> expected_info;
                batched::trtri(uplo, diag, expected, expected_info);
                const auto info_ref = host(expected_info);
                for (const auto& t : rows_targets()) {
                    BatchDense<V> a(t.exec, A);
                    loom::Array<int32> info;
                    batched::trtri(uplo, diag, a, info, t.launch);
                    EXPECT_EQ(host(info), info_ref) << t.name() << " n=" << n;
                    EXPECT_LE(error_of(raw(a), raw(expected)), tolerance<V>(n))
                        << t.name() << " n=" << n;
                }
            }
        }
    }
}

// getrf and trtri move a packed batch as one run of values (the thread-per-matrix kernels,
// getrf with 1, 4, 8 or 16 lanes per matrix, in pairs of values at even orders, trtri's whole
// matrices) and other layouts entry by entry: strided rows, and matrices one value apart
// (batch stride n^2 + 1). The padding must stay untouched.
TYPED_TEST(BatchedFront, RowsGetrfAndTrtriStridedBatches)
{
    using V = TypeParam;
    struct Layout {
        size_type stride, batch_stride;
    };
    for (const size_type n : {2, 3, 4, 8, 10, 12, 16, 17, 24, 25, 31, 32}) {
        for (const auto [stride, batch_stride] : {Layout{n, n * n + 1}, Layout{n + 1, (n + 1) * n}}) {
            const auto A = relaid(random_batch<V>(rows_count, {n, n}, 41), stride, batch_stride);
            auto lu = A;
            loom::Array<int32> pivots_ref, info_ref;
            batched::getrf(lu, pivots_ref, info_ref);
            auto T = relaid(triangular_batch<V>(rows_count, n, 42), stride, batch_stride);
            auto inverse = T;
            loom::Array<int32> trtri_info_ref;
            batched::trtri(Uplo::upper, Diag::non_unit, inverse, trtri_info_ref);
            for (const auto& t : rows_targets()) {
                BatchDense<V> a(t.exec, A);
                loom::Array<int32> pivots, info;
                batched::getrf(a, pivots, info, t.launch);
                EXPECT_EQ(host(pivots), host(pivots_ref)) << t.name() << " n=" << n;
                EXPECT_EQ(host(info), host(info_ref)) << t.name() << " n=" << n;
                EXPECT_LE(error_of(raw(a), raw(lu)), tolerance<V>(n)) << t.name() << " n=" << n;
                BatchDense<V> x(t.exec, T);
                loom::Array<int32> trtri_info(t.exec, rows_count);
                trtri_info.fill(-7);  // trtri stores every info itself
                batched::trtri(Uplo::upper, Diag::non_unit, x, trtri_info, t.launch);
                EXPECT_EQ(host(trtri_info), host(trtri_info_ref)) << t.name() << " n=" << n;
                EXPECT_LE(error_of(raw(x), raw(inverse)), tolerance<V>(n)) << t.name() << " n=" << n;
            }
        }
    }
}

// trtri on both triangles and diagonals at odd orders too (a thread per matrix up to 5, lane
// groups of exact orders up to 8, the bounds 16 and 32 above), strided rows and matrices one
// value apart, a singular matrix in each block of 32 matrices. The other triangle and the
// padding must stay untouched.
TYPED_TEST(BatchedFront, RowsTrtriStridedBatchesBothTriangles)
{
    using V = TypeParam;
    struct Layout {
        size_type stride, batch_stride;
    };
    for (const size_type n : {1, 2, 3, 5, 7, 9, 11, 13, 15, 16, 17}) {
        for (const auto& layout : {Layout{n, n * n + 1}, Layout{n + 1, (n + 1) * n}}) {
            for (auto uplo : {Uplo::lower, Uplo::upper}) {
                for (auto diag : {Diag::non_unit, Diag::unit}) {
                    auto T = triangular_batch<V>(rows_count, n, 43);
                    T.at(4, n - 1, n - 1) = V{};
                    T.at(33, 0, 0) = V{};
                    T = relaid(T, layout.stride, layout.batch_stride);
                    auto expected = T;
                    loom::Array<int32> info_ref;
                    batched::trtri(uplo, diag, expected, info_ref);
                    for (const auto& t : rows_targets()) {
                        BatchDense<V> x(t.exec, T);
                        loom::Array<int32> info(t.exec, rows_count);
                        info.fill(-7);  // trtri stores every info itself
                        batched::trtri(uplo, diag, x, info, t.launch);
                        EXPECT_EQ(host(info), host(info_ref)) << t.name() << " n=" << n;
                        EXPECT_LE(error_of(raw(x), raw(expected)), tolerance<V>(n))
                            << t.name() << " n=" << n << " stride " << layout.stride;
                    }
                }
            }
        }
    }
}

TYPED_TEST(BatchedFront, RowsGetrfEveryOrderWithTiesAndZeroPivots)
{
    using V = TypeParam;
    for (size_type n = 1; n <= 33; ++n) {
        for (const bool tied : {false, true}) {
            auto A = tied ? tied_batch<V>(rows_count, n, 27)
                              : random_batch<V>(rows_count, {n, n}, 28);
            for (size_type i = 0; i < n; ++i) A.at(3, i, n / 2) = V{};  // info n/2 + 1
            for (size_type i = 0; i < n; ++i) A.at(5, i, n - 1) = V{};  // info n: the last step
            for (size_type i = 0; i < n; ++i) {
                for (size_type j = 0; j < n; ++j) A.at(36, i, j) = V{};  // info 1, no pivoting
            }
            auto expected = A;
            loom::Array<int32> expected_pivots, expected_info;
            batched::getrf(expected, expected_pivots, expected_info);
            const auto info_ref = host(expected_info);
            // (A tied first column may be zero as a whole: info 1 then.)
            if (!tied) EXPECT_EQ(info_ref[3], static_cast<int32>(n / 2 + 1)) << "n=" << n;
            if (!tied) EXPECT_EQ(info_ref[5], static_cast<int32>(n)) << "n=" << n;
            EXPECT_EQ(info_ref[36], 1) << "n=" << n;
            for (const auto& t : rows_targets()) {
                BatchDense<V> a(t.exec, A);
                // getrf stores every info and pivot itself (it does not zero them first): the
                // garbage must go.
                loom::Array<int32> pivots(t.exec, rows_count * n), info(t.exec, rows_count);
                pivots.fill(-7);
                info.fill(-7);
                batched::getrf(a, pivots, info, t.launch);
                EXPECT_EQ(host(info), info_ref) << t.name() << " n=" << n;
                EXPECT_EQ(host(pivots), host(expected_pivots))
                    << t.name() << " n=" << n << (tied ? " tied" : "");
                EXPECT_LE(error_of(raw(a), raw(expected)), tolerance<V>(n))
                    << t.name() << " n=" << n << (tied ? " tied" : "");
            }
        }
    }
}

// NaN and infinite entries pick the pivots the reference's scan picks: a NaN on the diagonal
// keeps its row, one below is never taken, an infinity below wins (every kernel's search).
TYPED_TEST(BatchedFront, RowsGetrfPivotsWithNaNAndInfinity)
{
    using V = TypeParam;
    using R = loom::remove_complex_t<V>;
    const V nan(std::numeric_limits<R>::quiet_NaN());
    const V inf(std::numeric_limits<R>::infinity());
    for (const size_type n : {4, 12, 16, 24, 25, 31, 32}) {
        auto A = random_batch<V>(rows_count, {n, n}, 29);
        A.at(1, 0, 0) = nan;
        A.at(2, n - 1, 0) = nan;
        A.at(3, n / 2, 0) = inf;
        A.at(4, 0, 0) = nan;
        A.at(4, 1, 0) = inf;
        A.at(5, n - 1, n - 2) = nan;  // a later step
        auto expected = A;
        loom::Array<int32> expected_pivots, expected_info;
        batched::getrf(expected, expected_pivots, expected_info);
        EXPECT_EQ(host(expected_pivots)[1 * n], 0);
        EXPECT_EQ(host(expected_pivots)[3 * n], n / 2);
        for (const auto& t : rows_targets()) {
            BatchDense<V> a(t.exec, A);
            loom::Array<int32> pivots, info;
            batched::getrf(a, pivots, info, t.launch);
            EXPECT_EQ(host(pivots), host(expected_pivots)) << t.name() << " n=" << n;
            EXPECT_EQ(host(info), host(expected_info)) << t.name() << " n=" << n;
        }
    }
}

}  // namespace

namespace {

/// Launch::automatic picks what the measurements of src/batched/front/tuning.hpp chose.
TYPED_TEST(BatchedFront, AutomaticPinsTheMeasuredChoices)
{
    using V = TypeParam;
    constexpr bool complex = loom::is_complex_v<V>;
    const auto ref = loom::test::reference();
    for (const char* routine : {"gemm", "getrf", "trtri", "trmm", "trsm"}) {
        EXPECT_EQ(batched::automatic_launch<V>(routine, *ref, 20), Launch::serial) << routine;
    }
    if (loom::OmpExecutor::available()) {
        const auto omp = loom::OmpExecutor::create();
        EXPECT_EQ(batched::automatic_launch<V>("getrf", *omp, 16), Launch::serial);
        // Real gemm: the vectorized kernel where the CPU has AVX2 and FMA, Serial elsewhere.
        const auto gemm = batched::automatic_launch<V>("gemm", *omp, 16);
        EXPECT_TRUE(gemm == Launch::serial || (!complex && gemm == Launch::simd));
    }
    LOOM_CUDA_OR_SKIP(cuda);
    struct Pin {
        const char* routine;
        size_type n;
        Launch real;
        Launch complex;
    };
    constexpr auto serial = Launch::serial, team = Launch::team, tv = Launch::team_vector;
    const Pin pins[] = {
        {"gemm", 3, tv, serial},       {"gemm", 4, tv, serial},       {"gemm", 5, tv, tv},
        {"gemm", 14, tv, tv},          {"gemm", 15, team, tv},        {"gemm", 16, team, tv},
        {"gemm", 17, tv, tv},          {"gemm", 24, tv, tv},          {"getrf", 2, tv, serial},      {"getrf", 6, tv, serial},      {"getrf", 7, tv, serial},
        {"getrf", 9, tv, tv},          {"trtri", 2, serial, serial},  {"trtri", 3, tv, serial},      {"trtri", 5, tv, serial},
        {"trmm", 1, tv, serial},       {"trmm", 9, tv, tv},           {"trsm", 8, serial, serial},
        {"trsm", 9, tv, tv},           {"potrf", 8, serial, serial},  {"potrf", 9, tv, tv},
    };
    for (const auto& p : pins) {
        EXPECT_EQ(batched::automatic_launch<V>(p.routine, *cuda, p.n),
                  complex ? p.complex : p.real)
            << p.routine << " n=" << p.n;
    }
}

}  // namespace
