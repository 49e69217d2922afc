// Level-2/3 BLAS (gemv, gemm, trsm, trmm, gemm_dot): the reference against products written
// out on the host, every backend (native and vendor) against the reference, on strided
// operands with every transpose, side, triangle and diagonal combination.
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/config.hpp"
#include "loom/matrix/dense.hpp"
#include "support/dense_backends.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::blas::Backend;
using loom::blas::Diag;
using loom::blas::Op;
using loom::blas::Side;
using loom::blas::Uplo;
using loom::matrix::Dense;

constexpr Op all_ops[] = {Op::none, Op::transpose, Op::conj_transpose};


/// A host matrix in a buffer wider than its columns, so the padding must survive untouched.
template <typename V>
Dense<V> random_padded(dim2 size, std::uint64_t seed)
{
    return loom::test::random_dense<V>(loom::test::reference(), size, seed, size.cols + 3);
}

/// op(A)(i, j) on the host.
template <typename V>
V op_at(Op op, const Dense<V>& A, size_type i, size_type j)
{
    switch (op) {
    case Op::transpose: return A.at(j, i);
    case Op::conj_transpose: return loom::conj(A.at(j, i));
    default: return A.at(i, j);
    }
}

dim2 op_size(Op op, dim2 size) { return op == Op::none ? size : size.transposed(); }

/// The whole buffer (values and padding) on the host.
template <typename V>
std::vector<V> raw(const Dense<V>& A)
{
    return A.values().to_host();
}

/// Rounding allowance for sums of `depth` products.
template <typename V>
double tolerance_for(size_type depth)
{
    return loom::test::tolerance<V>() * std::max<double>(1.0, static_cast<double>(depth) / 8);
}

/// A triangular matrix that is well conditioned with its diagonal or a unit one: diagonal
/// entries of magnitude at least 1, off-diagonal ones below 1/n.
template <typename V>
Dense<V> random_triangular(size_type n, std::uint64_t seed)
{
    using R = loom::remove_complex_t<V>;
    auto A = random_padded<V>({n, n}, seed);
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) A.at(i, j) *= V(R(1) / static_cast<R>(n));
        A.at(i, i) = A.at(i, i) * static_cast<R>(n) + V(R(2));
    }
    return A;
}

template <typename V>
class Level3 : public ::testing::Test {};
TYPED_TEST_SUITE(Level3, loom::test::ValueTypes);

TYPED_TEST(Level3, ReferenceGemmMatchesHostProduct)
{
    using V = TypeParam;
    const V alpha(0.5), beta(-1.25);
    for (const auto op_a : all_ops) {
        for (const auto op_b : all_ops) {
            const size_type m = 7, n = 5, k = 9;
            const auto A = random_padded<V>(op_size(op_a, {m, k}), 1);
            const auto B = random_padded<V>(op_size(op_b, {k, n}), 2);
            auto C = random_padded<V>({m, n}, 3);
            const auto C0 = C;
            loom::blas::gemm(op_a, op_b, alpha, A, B, beta, C);
            for (size_type i = 0; i < m; ++i) {
                for (size_type j = 0; j < n; ++j) {
                    V sum{};
                    for (size_type l = 0; l < k; ++l) sum += op_at(op_a, A, i, l) * op_at(op_b, B, l, j);
                    EXPECT_NEAR(std::abs(C.at(i, j) - (alpha * sum + beta * C0.at(i, j))), 0,
                                loom::test::tolerance<V>())
                        << loom::blas::to_string(op_a) << " " << loom::blas::to_string(op_b);
                }
            }
        }
    }
}

TYPED_TEST(Level3, GemmEveryTransposeAndBackendMatchesReference)
{
    using V = TypeParam;
    const V alpha(1.5), beta(0.75);
    // m x n of C (k = m + 3): empty, single, one column (the gemv path), 31/32/33, tall.
    const dim2 shapes[] = {{0, 4}, {5, 0}, {1, 1}, {32, 1}, {31, 33}, {32, 32}, {33, 65}, {70, 17}};
    for (const auto op_a : all_ops) {
        for (const auto op_b : all_ops) {
            for (const auto& mn : shapes) {
                const size_type m = mn.rows, n = mn.cols, k = mn.rows + 3;
                const auto A = random_padded<V>(op_size(op_a, {m, k}), 4);
                const auto B = random_padded<V>(op_size(op_b, {k, n}), 5);
                const auto C0 = random_padded<V>({m, n}, 6);
                auto expected = C0;
                loom::blas::gemm(op_a, op_b, alpha, A, B, beta, expected);
                for (const auto& t : dense_targets()) {
                    const Dense<V> a(t.exec, A), b(t.exec, B);
                    Dense<V> c(t.exec, C0);
                    loom::blas::gemm(op_a, op_b, alpha, a, b, beta, c, t.backend);
                    EXPECT_LE(error_of(raw(c), raw(expected)), tolerance_for<V>(k))
                        << t.name() << " " << loom::blas::to_string(op_a) << " "
                        << loom::blas::to_string(op_b) << " " << m << "x" << n << "x" << k;
                }
            }
        }
    }
}

TYPED_TEST(Level3, GemmWithZeroBetaIgnoresNanInC)
{
    using V = TypeParam;
    const auto A = random_padded<V>({33, 20}, 7);
    const auto B = random_padded<V>({20, 9}, 8);
    Dense<V> expected(loom::test::reference(), {33, 9});
    expected.fill(V{});
    loom::blas::gemm(Op::none, Op::none, V{1}, A, B, V{}, expected);
    for (const auto& t : dense_targets()) {
        Dense<V> c(t.exec, expected);
        c.fill(V(std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()));
        loom::blas::gemm(Op::none, Op::none, V{1}, Dense<V>(t.exec, A), Dense<V>(t.exec, B), V{},
                         c, t.backend);
        EXPECT_LE(error_of(c.to_host(), expected.to_host()), tolerance_for<V>(20))
            << t.name();
    }
}

TYPED_TEST(Level3, EmptyInnerDimensionScalesC)
{
    using V = TypeParam;
    const Dense<V> A(loom::test::reference(), {4, 0});
    const Dense<V> B(loom::test::reference(), {0, 3});
    const auto C0 = random_padded<V>({4, 3}, 9);
    for (const auto& t : dense_targets()) {
        Dense<V> c(t.exec, C0);
        loom::blas::gemm(Op::none, Op::none, V{1}, Dense<V>(t.exec, A), Dense<V>(t.exec, B),
                         V{2}, c, t.backend);
        const auto values = c.to_host();
        const auto original = C0.to_host();
        for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], V{2} * original[i]);
    }
}

TYPED_TEST(Level3, GemvEveryOpMatchesReference)
{
    using V = TypeParam;
    const V alpha(-0.5), beta(2);
    for (const auto op : all_ops) {
        for (const dim2 size : {dim2{0, 5}, dim2{5, 0}, dim2{1, 1}, dim2{33, 31}, dim2{32, 32},
                                dim2{64, 300}, dim2{500, 7}}) {
            const auto A = random_padded<V>(size, 10);
            const dim2 a = op_size(op, size);
            // x and y are columns of wider matrices: row strides above 1.
            auto X = random_padded<V>({a.cols, 2}, 11);
            auto Y = random_padded<V>({a.rows, 3}, 12);
            auto expected = Y;
            auto y_expected = expected.column(1);
            loom::blas::gemv(op, alpha, A, X.column(0), beta, y_expected);
            for (size_type i = 0; i < a.rows; ++i) {
                V sum{};
                for (size_type k = 0; k < a.cols; ++k) sum += op_at(op, A, i, k) * X.at(k, 0);
                EXPECT_NEAR(std::abs(expected.at(i, 1) - (alpha * sum + beta * Y.at(i, 1))), 0,
                            tolerance_for<V>(a.cols));
            }
            for (const auto& t : dense_targets()) {
                Dense<V> a_exec(t.exec, A), x(t.exec, X), y(t.exec, Y);
                auto y_column = y.column(1);
                loom::blas::gemv(op, alpha, a_exec, x.column(0), beta, y_column, t.backend);
                EXPECT_LE(error_of(raw(y), raw(expected)), tolerance_for<V>(a.cols))
                    << t.name() << " " << loom::blas::to_string(op) << " " << size.rows << "x"
                    << size.cols;
            }
        }
    }
}

/// op(A) as a dense host matrix with the triangle/diagonal conventions applied.
template <typename V>
std::vector<V> dense_triangle(Uplo uplo, Op op, Diag diag, const Dense<V>& A)
{
    const size_type n = A.rows();
    std::vector<V> T(static_cast<std::size_t>(n * n));
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            // Entry (i, j) of op(A) is entry (j, i) of A for a transposing op.
            const size_type r = op == Op::none ? i : j;
            const size_type c = op == Op::none ? j : i;
            const bool inside = uplo == Uplo::lower ? c <= r : c >= r;
            V v = !inside ? V{} : (r == c && diag == Diag::unit) ? V{1} : op_at(op, A, i, j);
            T[i * n + j] = v;
        }
    }
    return T;
}

struct TriangularCase {
    Side side;
    Uplo uplo;
    Op op;
    Diag diag;
    std::string name() const
    {
        return std::string(side == Side::left ? "left" : "right") +
               (uplo == Uplo::lower ? " lower " : " upper ") + loom::blas::to_string(op) +
               (diag == Diag::unit ? " unit" : " non-unit");
    }
};

std::vector<TriangularCase> triangular_cases()
{
    std::vector<TriangularCase> cases;
    for (auto side : {Side::left, Side::right}) {
        for (auto uplo : {Uplo::lower, Uplo::upper}) {
            for (auto op : all_ops) {
                for (auto diag : {Diag::non_unit, Diag::unit}) cases.push_back({side, uplo, op, diag});
            }
        }
    }
    return cases;
}

/// product = op(A) X (left) or X op(A) (right) on the host, X given row-major rows x cols.
template <typename V>
std::vector<V> triangular_product(const TriangularCase& c, const Dense<V>& A, const Dense<V>& X)
{
    const auto T = dense_triangle(c.uplo, c.op, c.diag, A);
    const size_type n = A.rows(), rows = X.rows(), cols = X.cols();
    std::vector<V> out(static_cast<std::size_t>(rows * cols));
    for (size_type i = 0; i < rows; ++i) {
        for (size_type j = 0; j < cols; ++j) {
            V sum{};
            for (size_type k = 0; k < n; ++k) {
                sum += c.side == Side::left ? T[i * n + k] * X.at(k, j) : X.at(i, k) * T[k * n + j];
            }
            out[i * cols + j] = sum;
        }
    }
    return out;
}

/// call(A, B, backend) (trsm or trmm of case c, B overwritten) on every backend gives the
/// reference's result X.
template <typename V, typename Call>
void expect_backends_match(const TriangularCase& c, const Dense<V>& A, const Dense<V>& B,
                           const Dense<V>& X, Call call)
{
    const size_type n = A.rows();
    for (const auto& t : dense_targets()) {
        Dense<V> x(t.exec, B);
        call(Dense<V>(t.exec, A), x, t.backend);
        EXPECT_LE(error_of(raw(x), raw(X)), tolerance_for<V>(n))
            << t.name() << " " << c.name() << " n=" << n;
    }
}

/// f(c, A, B) for every triangular case and the sizes n = 0, 1, 32, 33, 70: A n x n
/// triangular (random with `seed`), B on A's side of the product (random with seed + 1).
template <typename V, typename F>
void for_each_triangular_problem(std::uint64_t seed, F f)
{
    for (const auto& c : triangular_cases()) {
        for (const size_type n : {0, 1, 32, 33, 70}) {
            const size_type other = n == 1 ? 3 : 40;
            const dim2 b_size = c.side == Side::left ? dim2{n, other} : dim2{other, n};
            f(c, random_triangular<V>(n, seed), random_padded<V>(b_size, seed + 1));
        }
    }
}

TYPED_TEST(Level3, TrsmEveryCaseSolvesAndMatchesReference)
{
    using V = TypeParam;
    const V alpha(1.5);
    for_each_triangular_problem<V>(13, [&](const TriangularCase& c, const Dense<V>& A,
                                           const Dense<V>& B) {
        const size_type n = A.rows();
        auto X = B;
        loom::blas::trsm(c.side, c.uplo, c.op, c.diag, alpha, A, X);
        // The reference solves: op(A) X = alpha B.
        auto residual = triangular_product(c, A, X);
        auto scaled = B.to_host();
        for (auto& v : scaled) v *= alpha;
        EXPECT_LE(error_of(residual, scaled), tolerance_for<V>(n)) << c.name() << " n=" << n;
        expect_backends_match(c, A, B, X, [&](const Dense<V>& A_t, Dense<V>& x, Backend b) {
            loom::blas::trsm(c.side, c.uplo, c.op, c.diag, alpha, A_t, x, b);
        });
    });
}

TYPED_TEST(Level3, TrmmEveryCaseMultipliesAndMatchesReference)
{
    using V = TypeParam;
    const V alpha(-0.75);
    for_each_triangular_problem<V>(15, [&](const TriangularCase& c, const Dense<V>& A,
                                           const Dense<V>& B) {
        const size_type n = A.rows();
        auto X = B;
        loom::blas::trmm(c.side, c.uplo, c.op, c.diag, alpha, A, X);
        auto expected = triangular_product(c, A, B);
        for (auto& v : expected) v *= alpha;
        EXPECT_LE(error_of(X.to_host(), expected), tolerance_for<V>(n)) << c.name() << " n=" << n;
        expect_backends_match(c, A, B, X, [&](const Dense<V>& A_t, Dense<V>& x, Backend b) {
            loom::blas::trmm(c.side, c.uplo, c.op, c.diag, alpha, A_t, x, b);
        });
    });
}

TYPED_TEST(Level3, GemmDotTallSkinnyMatchesGemm)
{
    using V = TypeParam;
    const V alpha(2), beta(-1);
    for (const auto op : {Op::transpose, Op::conj_transpose}) {
        // 5001: the CUDA kernel still splits the depth of a small C into chunks summed from
        // partials (3 where 20001 gave 10), at a quarter of the host's work.
        for (const size_type k : {0, 1, 1000, 5001}) {
            for (const dim2 mn : {dim2{1, 1}, dim2{4, 3}, dim2{7, 8}, dim2{40, 33}}) {
                const auto A = random_padded<V>({k, mn.rows}, 17);
                const auto B = random_padded<V>({k, mn.cols}, 18);
                const auto C0 = random_padded<V>(mn, 19);
                auto expected = C0;
                loom::blas::gemm(op, Op::none, alpha, A, B, beta, expected);
                for (const auto& t : dense_targets()) {
                    Dense<V> c(t.exec, C0);
                    loom::blas::gemm_dot(op, alpha, Dense<V>(t.exec, A), Dense<V>(t.exec, B), beta,
                                         c, t.backend);
                    EXPECT_LE(error_of(raw(c), raw(expected)), tolerance_for<V>(k))
                        << t.name() << " k=" << k << " " << mn.rows << "x" << mn.cols;
                }
            }
        }
    }
}

TYPED_TEST(Level3, BadInputsAreRejectedWithoutTouchingOutputs)
{
    using V = TypeParam;
    const auto ref = loom::test::reference();
    const auto A = random_padded<V>({4, 5}, 20);
    const auto B = random_padded<V>({5, 3}, 21);
    auto C = random_padded<V>({4, 3}, 22);
    const auto before = raw(C);
    EXPECT_THROW(loom::blas::gemm(Op::transpose, Op::none, V{1}, A, B, V{}, C),
                 loom::DimensionMismatch);
    auto wrong_c = random_padded<V>({3, 3}, 23);
    EXPECT_THROW(loom::blas::gemm(Op::none, Op::none, V{1}, A, B, V{}, wrong_c),
                 loom::DimensionMismatch);
    // C overlapping an input.
    auto square = random_padded<V>({4, 4}, 24);
    auto alias = Dense<V>::view(ref, {4, 4}, square.stride(), square.data());
    EXPECT_THROW(loom::blas::gemm(Op::none, Op::none, V{1}, square, square, V{}, alias),
                 loom::BadInput);
    EXPECT_THROW(loom::blas::gemm_dot(Op::none, V{1}, A, A, V{}, C), loom::BadInput);
    EXPECT_THROW(loom::blas::trsm(Side::left, Uplo::lower, Op::none, Diag::unit, V{1}, A, C),
                 loom::DimensionMismatch);
    auto x = random_padded<V>({5, 2}, 25);
    auto y = random_padded<V>({4, 1}, 26);
    EXPECT_THROW(loom::blas::gemv(Op::none, V{1}, A, x, V{}, y), loom::DimensionMismatch);
    EXPECT_EQ(raw(C), before);
    if (!LOOM_HAS_BLAS && loom::OmpExecutor::available()) {
        const auto omp = loom::OmpExecutor::create();
        Dense<V> c(omp, C);
        EXPECT_THROW(loom::blas::gemm(Op::none, Op::none, V{1}, Dense<V>(omp, A),
                                      Dense<V>(omp, B), V{}, c, Backend::vendor),
                     loom::NotCompiled);
    }
    if (loom::OmpExecutor::available()) {
        Dense<V> b_omp(loom::OmpExecutor::create(), B);
        // Reference and omp share memory; a CUDA operand would not.
        EXPECT_NO_THROW(loom::blas::gemm(Op::none, Op::none, V{1}, A, b_omp, V{}, C));
    }
    if (loom::CudaExecutor::available()) {
        Dense<V> b_cuda(loom::CudaExecutor::create(0), B);
        EXPECT_THROW(loom::blas::gemm(Op::none, Op::none, V{1}, A, b_cuda, V{}, C), loom::BadInput);
    }
}

TEST(Level3Names, ParseAndPrint)
{
    EXPECT_EQ(loom::blas::parse_op("t"), Op::transpose);
    EXPECT_EQ(loom::blas::parse_op("h"), Op::conj_transpose);
    EXPECT_EQ(loom::blas::parse_op("none"), Op::none);
    EXPECT_THROW(loom::blas::parse_op("x"), loom::BadInput);
    EXPECT_EQ(loom::blas::parse_backend("auto"), Backend::automatic);
    EXPECT_EQ(loom::blas::parse_backend("vendor"), Backend::vendor);
    EXPECT_THROW(loom::blas::parse_backend("cublas"), loom::BadInput);
    EXPECT_STREQ(loom::blas::to_string(Backend::native), "native");
}

}  // namespace
}  // namespace loom::test
