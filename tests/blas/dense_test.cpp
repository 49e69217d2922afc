// BLAS on Dense: every backend against the reference, on plain and strided multi-vectors.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace {

using loom::dim2;
using loom::size_type;
using loom::matrix::Dense;

/// A multi-vector shape: stride > cols leaves padding that no kernel may touch.
struct Shape {
    size_type rows;
    size_type cols;
    size_type stride;
};

std::string describe(const Shape& s)
{
    return std::to_string(s.rows) + "x" + std::to_string(s.cols) + " stride " +
           std::to_string(s.stride);
}

std::vector<Shape> vector_shapes()
{
    std::vector<Shape> shapes;
    for (size_type rows : {0, 1, 31, 32, 33, 1000, 100000}) {
        for (size_type cols : {1, 3}) {
            shapes.push_back({rows, cols, cols});
            shapes.push_back({rows, cols, cols + 2});
        }
    }
    return shapes;
}

/// For reductions: the backends plus an OpenMP executor whose thread count divides none of
/// the sizes, so that the per-thread chunks differ in length.
std::vector<std::shared_ptr<const loom::Executor>> reduction_executors()
{
    auto result = loom::test::backends();
    if (loom::OmpExecutor::available()) result.push_back(loom::OmpExecutor::create(3));
    return result;
}

template <typename T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0;
}

template <typename T>
bool has_nan(const std::vector<T>& values)
{
    for (const auto& v : values) {
        if (std::isnan(std::abs(v))) return true;
    }
    return false;
}

template <typename V>
class BlasDense : public ::testing::Test {
protected:
    using R = loom::remove_complex_t<V>;

    std::shared_ptr<const loom::Executor> ref = loom::test::reference();
    double tol = loom::test::tolerance<V>();

    Dense<V> random(const Shape& s, std::uint64_t seed) const
    {
        return loom::test::random_dense<V>(ref, {s.rows, s.cols}, seed, s.stride);
    }

    template <typename T>
    static Dense<T> filled(std::shared_ptr<const loom::Executor> exec, dim2 size, T value)
    {
        Dense<T> d(std::move(exec), size);
        d.fill(value);
        return d;
    }

    /// Column norms of a host multi-vector, for scaling reduction errors.
    static std::vector<double> column_norms(const Dense<V>& x)
    {
        const auto values = x.to_host();
        std::vector<double> norms(static_cast<std::size_t>(x.cols()), 0.0);
        for (size_type i = 0; i < x.rows(); ++i) {
            for (size_type j = 0; j < x.cols(); ++j) {
                norms[j] += std::norm(std::complex<double>(values[i * x.cols() + j]));
            }
        }
        for (auto& n : norms) n = std::sqrt(n);
        return norms;
    }

    /// |actual - expected| <= tol * max(1, scale) per column: summation orders differ, and the
    /// rounding error of a sum is bounded relative to the sum of the terms' magnitudes.
    template <typename T>
    void expect_reduction_near(const Dense<T>& actual, const Dense<T>& expected,
                               const std::vector<double>& scale) const
    {
        const auto a = actual.to_host();
        const auto e = expected.to_host();
        ASSERT_EQ(a.size(), e.size());
        for (std::size_t j = 0; j < a.size(); ++j) {
            EXPECT_LE(std::abs(a[j] - e[j]), tol * std::max(1.0, scale[j]))
                << "column " << j << ": " << a[j] << " vs " << e[j];
        }
    }

    /// The whole stored span, padding included, so that writes into the padding show.
    static void expect_same_span(const Dense<V>& actual, const Dense<V>& expected, double tol)
    {
        ASSERT_EQ(actual.stride(), expected.stride());
        LOOM_EXPECT_NEAR_VECTORS(actual.values().to_host(), expected.values().to_host(), tol);
    }

    /// 1 x 1 and 1 x k coefficients; the 1 x k one has a zero in its middle column.
    std::vector<Dense<V>> coefficients(size_type k, std::uint64_t seed) const
    {
        auto shared = loom::test::random_dense<V>(ref, {1, 1}, seed);
        auto per_column = loom::test::random_dense<V>(ref, {1, k}, seed + 1);
        if (k > 1) per_column.at(0, 1) = V{0};
        return {shared, per_column};
    }

    using Body = std::function<void(const std::shared_ptr<const loom::Executor>&, const Shape&)>;

    static void for_each_case(const std::vector<std::shared_ptr<const loom::Executor>>& executors,
                              const Body& body)
    {
        for (const auto& exec : executors) {
            for (const auto& shape : vector_shapes()) {
                SCOPED_TRACE(exec->name() + " " + describe(shape));
                body(exec, shape);
            }
        }
    }
};

TYPED_TEST_SUITE(BlasDense, loom::test::ValueTypes);

TYPED_TEST(BlasDense, DotAndConjDotMatchReference)
{
    using V = TypeParam;
    this->for_each_case(reduction_executors(), [&](const auto& exec, const Shape& s) {
        const auto x = this->random(s, 1);
        const auto y = this->random({s.rows, s.cols, s.cols + 1}, 2);
        const auto xn = this->column_norms(x);
        const auto yn = this->column_norms(y);
        std::vector<double> scale(xn.size());
        for (std::size_t j = 0; j < scale.size(); ++j) scale[j] = xn[j] * yn[j];

        for (bool conjugate : {false, true}) {
            SCOPED_TRACE(conjugate ? "conj_dot" : "dot");
            auto expected = this->template filled<V>(this->ref, {1, s.cols}, V{});
            auto actual = this->template filled<V>(exec, {1, s.cols}, V{7});
            const Dense<V> dx(exec, x), dy(exec, y);
            if (conjugate) {
                loom::blas::conj_dot(x, y, expected);
                loom::blas::conj_dot(dx, dy, actual);
            } else {
                loom::blas::dot(x, y, expected);
                loom::blas::dot(dx, dy, actual);
            }
            this->expect_reduction_near(actual, expected, scale);
        }
    });
}

TYPED_TEST(BlasDense, ConjDotConjugatesTheFirstArgument)
{
    using V = TypeParam;
    if constexpr (loom::is_complex_v<V>) {
        for (const auto& exec : loom::test::backends()) {
            const auto x = Dense<V>::from_host(exec, {2, 1}, {V(1, 1), V(0, 2)});
            const auto y = Dense<V>::from_host(exec, {2, 1}, {V(1, 1), V(3, 0)});
            auto result = this->template filled<V>(exec, {1, 1}, V{});
            loom::blas::dot(x, y, result);
            EXPECT_EQ(result.to_host()[0], V(0, 8)) << exec->name();
            loom::blas::conj_dot(x, y, result);
            EXPECT_EQ(result.to_host()[0], V(2, -6)) << exec->name();
        }
    } else {
        GTEST_SKIP() << "real type";
    }
}

TYPED_TEST(BlasDense, Nrm2MatchesReference)
{
    using V = TypeParam;
    using R = typename TestFixture::R;
    this->for_each_case(reduction_executors(), [&](const auto& exec, const Shape& s) {
        const auto x = this->random(s, 3);
        auto expected = this->template filled<R>(this->ref, {1, s.cols}, R{});
        auto actual = this->template filled<R>(exec, {1, s.cols}, R{7});
        loom::blas::nrm2(x, expected);
        loom::blas::nrm2(Dense<V>(exec, x), actual);
        this->expect_reduction_near(actual, expected, this->column_norms(x));
    });
}

TYPED_TEST(BlasDense, ReductionsOnOffsetViewsMatchReference)
{
    using V = TypeParam;
    using R = typename TestFixture::R;
    // Views starting one element into their storage, as a solver's sub-vectors do.
    for (const auto& exec : loom::test::backends()) {
        for (size_type rows : {1, 31, 1000, 100001}) {
            SCOPED_TRACE(exec->name() + " " + std::to_string(rows) + " rows");
            auto x_storage = this->random({rows + 1, 1, 1}, 40);
            auto y_storage = this->random({rows + 1, 1, 1}, 41);
            const auto x = x_storage.rows_view(1, rows);
            const auto y = y_storage.rows_view(1, rows);
            Dense<V> dx_storage(exec, x_storage), dy_storage(exec, y_storage);
            const auto dx = dx_storage.rows_view(1, rows);
            const auto dy = dy_storage.rows_view(1, rows);
            const std::vector<double> scale{this->column_norms(x)[0] * this->column_norms(y)[0]};

            auto expected = this->template filled<V>(this->ref, {1, 1}, V{});
            auto actual = this->template filled<V>(exec, {1, 1}, V{});
            loom::blas::conj_dot(x, y, expected);
            loom::blas::conj_dot(dx, dy, actual);
            this->expect_reduction_near(actual, expected, scale);

            auto expected_norm = this->template filled<R>(this->ref, {1, 1}, R{});
            auto actual_norm = this->template filled<R>(exec, {1, 1}, R{});
            loom::blas::nrm2(x, expected_norm);
            loom::blas::nrm2(dx, actual_norm);
            this->expect_reduction_near(actual_norm, expected_norm, this->column_norms(x));
        }
    }
}

TYPED_TEST(BlasDense, ReductionsAreDeterministic)
{
    using V = TypeParam;
    using R = typename TestFixture::R;
    for (const auto& exec : reduction_executors()) {
        for (const Shape& s : {Shape{100000, 1, 1}, Shape{100000, 3, 4}, Shape{33, 3, 3}}) {
            SCOPED_TRACE(exec->name() + " " + describe(s));
            const Dense<V> x(exec, this->random(s, 4));
            const Dense<V> y(exec, this->random(s, 5));
            auto first = this->template filled<V>(exec, {1, s.cols}, V{});
            auto second = this->template filled<V>(exec, {1, s.cols}, V{});
            loom::blas::conj_dot(x, y, first);
            loom::blas::conj_dot(x, y, second);
            EXPECT_TRUE(bitwise_equal(first.to_host(), second.to_host()));
            auto norm1 = this->template filled<R>(exec, {1, s.cols}, R{});
            auto norm2 = this->template filled<R>(exec, {1, s.cols}, R{});
            loom::blas::nrm2(x, norm1);
            loom::blas::nrm2(x, norm2);
            EXPECT_TRUE(bitwise_equal(norm1.to_host(), norm2.to_host()));
        }
    }
}

TYPED_TEST(BlasDense, AxpyAndAxpbyMatchReference)
{
    using V = TypeParam;
    this->for_each_case(loom::test::backends(), [&](const auto& exec, const Shape& s) {
        const auto x = this->random({s.rows, s.cols, s.cols + 1}, 6);
        const auto y = this->random(s, 7);
        const Dense<V> dx(exec, x);
        const auto alphas = this->coefficients(s.cols, 8);
        const auto betas = this->coefficients(s.cols, 10);
        for (std::size_t c = 0; c < alphas.size(); ++c) {
            SCOPED_TRACE(c == 0 ? "1x1 coefficients" : "1xk coefficients");
            const Dense<V> alpha(exec, alphas[c]), beta(exec, betas[c]);
            auto expected = y;
            Dense<V> actual(exec, y);
            loom::blas::axpy(alphas[c], x, expected);
            loom::blas::axpy(alpha, dx, actual);
            this->expect_same_span(actual, expected, this->tol);

            expected = Dense<V>(this->ref, y);
            actual = Dense<V>(exec, y);
            loom::blas::axpby(alphas[c], x, betas[c], expected);
            loom::blas::axpby(alpha, dx, beta, actual);
            this->expect_same_span(actual, expected, this->tol);
        }
        const V a = alphas[0].at(0, 0), b = betas[0].at(0, 0);
        auto expected = y;
        Dense<V> actual(exec, y);
        loom::blas::axpy(a, x, expected);
        loom::blas::axpy(a, dx, actual);
        this->expect_same_span(actual, expected, this->tol);
        for (V beta : {b, V{0}}) {
            expected = Dense<V>(this->ref, y);
            actual = Dense<V>(exec, y);
            loom::blas::axpby(a, x, beta, expected);
            loom::blas::axpby(a, dx, beta, actual);
            this->expect_same_span(actual, expected, this->tol);
        }
    });
}

TYPED_TEST(BlasDense, AxpyQuotientIsAxpyWithTheQuotientAndZeroWhereItBreaksDown)
{
    using V = TypeParam;
    using R = loom::remove_complex_t<V>;
    this->for_each_case(loom::test::backends(), [&](const auto& exec, const Shape& s) {
        const auto x = this->random({s.rows, s.cols, s.cols + 1}, 16);
        const auto y = this->random(s, 17);
        // Column 1 divides by zero and column 2 overflows: both leave y as it was.
        auto num = loom::test::random_dense<V>(this->ref, {1, s.cols}, 18);
        auto den = loom::test::random_dense<V>(this->ref, {1, s.cols}, 19);
        if (s.cols > 1) den.at(0, 1) = V{0};
        if (s.cols > 2) {
            num.at(0, 2) = V{std::numeric_limits<R>::max()};
            den.at(0, 2) = V{std::numeric_limits<R>::min()};
        }
        for (const bool subtract : {false, true}) {
            auto expected = y;
            for (size_type j = 0; j < s.cols; ++j) {
                const bool usable = !(s.cols > 1 && j == 1) && !(s.cols > 2 && j == 2);
                const V q = usable ? num.at(0, j) / den.at(0, j) : V{0};
                for (size_type i = 0; i < s.rows; ++i) {
                    expected.at(i, j) += (subtract ? -q : q) * x.at(i, j);
                }
            }
            Dense<V> actual(exec, y);
            loom::blas::axpy_quotient(Dense<V>(exec, num), Dense<V>(exec, den), Dense<V>(exec, x),
                                      actual, subtract);
            this->expect_same_span(actual, expected, this->tol);
        }
    });
}

TYPED_TEST(BlasDense, ScalCopyFillMatchReference)
{
    using V = TypeParam;
    this->for_each_case(loom::test::backends(), [&](const auto& exec, const Shape& s) {
        const auto x = this->random(s, 12);
        for (const auto& alpha : this->coefficients(s.cols, 13)) {
            Dense<V> expected(this->ref, x);
            Dense<V> actual(exec, x);
            loom::blas::scal(alpha, expected);
            loom::blas::scal(Dense<V>(exec, alpha), actual);
            this->expect_same_span(actual, expected, this->tol);
        }
        const V a = this->coefficients(1, 14)[0].at(0, 0);
        Dense<V> expected(this->ref, x);
        Dense<V> actual(exec, x);
        loom::blas::scal(a, expected);
        loom::blas::scal(a, actual);
        this->expect_same_span(actual, expected, this->tol);

        // Different strides on both sides; the target's padding must survive.
        const auto target = this->random({s.rows, s.cols, s.cols + 3}, 15);
        expected = Dense<V>(this->ref, target);
        actual = Dense<V>(exec, target);
        loom::blas::copy(x, expected);
        loom::blas::copy(Dense<V>(exec, x), actual);
        this->expect_same_span(actual, expected, 0.0);

        expected = Dense<V>(this->ref, target);
        actual = Dense<V>(exec, target);
        loom::blas::fill(expected, a);
        loom::blas::fill(actual, a);
        this->expect_same_span(actual, expected, 0.0);
    });
}

TYPED_TEST(BlasDense, GemmMatchesReference)
{
    using V = TypeParam;
    struct GemmShape {
        size_type m, k, n;
    };
    const std::vector<GemmShape> shapes{{0, 3, 5}, {4, 0, 5}, {3, 4, 0},   {1, 1, 1},
                                        {31, 33, 32}, {33, 17, 3}, {64, 65, 63}, {100, 7, 129}};
    const V alpha = this->coefficients(1, 16)[0].at(0, 0);
    const V beta = this->coefficients(1, 17)[0].at(0, 0);
    for (const auto& exec : loom::test::backends()) {
        for (const auto& g : shapes) {
            for (size_type pad : {0, 3}) {
                SCOPED_TRACE(exec->name() + " " + std::to_string(g.m) + "x" +
                             std::to_string(g.k) + "x" + std::to_string(g.n) + " pad " +
                             std::to_string(pad));
                const auto A = this->random({g.m, g.k, g.k + pad}, 18);
                const auto B = this->random({g.k, g.n, g.n + pad}, 19);
                const auto C = this->random({g.m, g.n, g.n + pad}, 20);
                const Dense<V> dA(exec, A), dB(exec, B);
                for (V b : {beta, V{0}, V{1}}) {
                    auto expected = C;
                    Dense<V> actual(exec, C);
                    loom::blas::gemm(alpha, A, B, b, expected);
                    loom::blas::gemm(alpha, dA, dB, b, actual);
                    this->expect_same_span(actual, expected, this->tol);
                }
            }
        }
    }
}

TYPED_TEST(BlasDense, ZeroBetaDoesNotReadTheOutput)
{
    using V = TypeParam;
    const V nan{std::numeric_limits<typename TestFixture::R>::quiet_NaN()};
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const Dense<V> x(exec, this->random({1000, 3, 3}, 21));
        const Dense<V> alpha(exec, this->random({1, 3, 3}, 22));
        for (const auto& beta :
             {this->template filled<V>(exec, {1, 1}, V{0}), this->template filled<V>(exec, {1, 3}, V{0})}) {
            auto y = this->template filled<V>(exec, {1000, 3}, nan);
            loom::blas::axpby(alpha, x, beta, y);
            EXPECT_FALSE(has_nan(y.to_host()));
        }
        auto y = this->template filled<V>(exec, {1000, 3}, nan);
        loom::blas::axpby(V{2}, x, V{0}, y);
        EXPECT_FALSE(has_nan(y.to_host()));

        const Dense<V> A(exec, this->random({40, 30, 30}, 23));
        const Dense<V> B(exec, this->random({30, 20, 20}, 24));
        auto C = this->template filled<V>(exec, {40, 20}, nan);
        loom::blas::gemm(V{1}, A, B, V{0}, C);
        EXPECT_FALSE(has_nan(C.to_host()));
    }
}

TYPED_TEST(BlasDense, BadShapesThrowAndLeaveOutputsUntouched)
{
    using V = TypeParam;
    using R = typename TestFixture::R;
    const V sentinel{42};
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const Dense<V> x(exec, this->random({10, 2, 2}, 25));
        const Dense<V> shorter(exec, this->random({9, 2, 2}, 26));
        const auto untouched = [&](const auto& d, auto value) {
            for (const auto& v : d.to_host()) {
                if (v != value) return false;
            }
            return true;
        };

        auto result = this->template filled<V>(exec, {1, 2}, sentinel);
        EXPECT_THROW(loom::blas::dot(x, shorter, result), loom::DimensionMismatch);
        EXPECT_THROW(loom::blas::conj_dot(x, shorter, result), loom::DimensionMismatch);
        EXPECT_TRUE(untouched(result, sentinel));

        auto wrong_result = this->template filled<V>(exec, {1, 3}, sentinel);
        EXPECT_THROW(loom::blas::dot(x, x, wrong_result), loom::DimensionMismatch);
        auto column_result = this->template filled<V>(exec, {2, 1}, sentinel);
        EXPECT_THROW(loom::blas::dot(x, x, column_result), loom::DimensionMismatch);
        auto norm = this->template filled<R>(exec, {1, 1}, R{42});
        EXPECT_THROW(loom::blas::nrm2(x, norm), loom::DimensionMismatch);
        EXPECT_TRUE(untouched(wrong_result, sentinel));
        EXPECT_TRUE(untouched(column_result, sentinel));
        EXPECT_TRUE(untouched(norm, R{42}));

        auto y = this->template filled<V>(exec, {9, 2}, sentinel);
        EXPECT_THROW(loom::blas::axpy(V{1}, x, y), loom::DimensionMismatch);
        EXPECT_THROW(loom::blas::axpby(V{1}, x, V{1}, y), loom::DimensionMismatch);
        EXPECT_THROW(loom::blas::copy(x, y), loom::DimensionMismatch);
        EXPECT_TRUE(untouched(y, sentinel));

        auto y_ok = this->template filled<V>(exec, {10, 2}, sentinel);
        const auto bad_alpha = this->template filled<V>(exec, {1, 3}, V{1});
        const auto column_alpha = this->template filled<V>(exec, {2, 1}, V{1});
        const auto one = this->template filled<V>(exec, {1, 1}, V{1});
        EXPECT_THROW(loom::blas::axpy(bad_alpha, x, y_ok), loom::DimensionMismatch);
        EXPECT_THROW(loom::blas::axpby(one, x, column_alpha, y_ok), loom::DimensionMismatch);
        EXPECT_THROW(loom::blas::scal(bad_alpha, y_ok), loom::DimensionMismatch);
        EXPECT_TRUE(untouched(y_ok, sentinel));

        const Dense<V> A(exec, this->random({4, 5, 5}, 27));
        const Dense<V> B(exec, this->random({6, 3, 3}, 28));
        const Dense<V> B_ok(exec, this->random({5, 3, 3}, 29));
        auto C = this->template filled<V>(exec, {4, 3}, sentinel);
        auto C_wrong = this->template filled<V>(exec, {4, 4}, sentinel);
        EXPECT_THROW(loom::blas::gemm(V{1}, A, B, V{0}, C), loom::DimensionMismatch);
        EXPECT_THROW(loom::blas::gemm(V{1}, A, B_ok, V{0}, C_wrong), loom::DimensionMismatch);
        EXPECT_TRUE(untouched(C, sentinel));
        EXPECT_TRUE(untouched(C_wrong, sentinel));
    }
}

TYPED_TEST(BlasDense, OperandsWithoutAnExecutorAreBadInput)
{
    using V = TypeParam;
    const auto x = this->random({10, 1, 1}, 30);
    V storage{42};
    auto orphan = Dense<V>::view(nullptr, {1, 1}, 1, &storage);
    EXPECT_THROW(loom::blas::dot(x, x, orphan), loom::BadInput);
    EXPECT_EQ(storage, V{42});
}

TYPED_TEST(BlasDense, OperandsOnDifferentExecutorsAreBadInput)
{
    using V = TypeParam;
    LOOM_CUDA_OR_SKIP(cuda);
    const V sentinel{42};
    const auto host_x = this->random({100, 2, 2}, 31);
    const Dense<V> device_x(cuda, host_x);

    auto device_result = this->template filled<V>(cuda, {1, 2}, sentinel);
    EXPECT_THROW(loom::blas::dot(host_x, device_x, device_result), loom::BadInput);
    EXPECT_THROW(loom::blas::dot(device_x, host_x, device_result), loom::BadInput);
    auto host_result = this->template filled<V>(this->ref, {1, 2}, sentinel);
    EXPECT_THROW(loom::blas::conj_dot(device_x, device_x, host_result), loom::BadInput);
    EXPECT_EQ(device_result.to_host(), std::vector<V>(2, sentinel));
    EXPECT_EQ(host_result.to_host(), std::vector<V>(2, sentinel));

    auto device_y = this->template filled<V>(cuda, {100, 2}, sentinel);
    const auto host_alpha = this->template filled<V>(this->ref, {1, 1}, V{1});
    EXPECT_THROW(loom::blas::axpy(host_alpha, device_x, device_y), loom::BadInput);
    EXPECT_THROW(loom::blas::axpby(V{1}, host_x, V{1}, device_y), loom::BadInput);
    EXPECT_THROW(loom::blas::copy(host_x, device_y), loom::BadInput);
    EXPECT_EQ(device_y.to_host(), std::vector<V>(200, sentinel));

    const Dense<V> device_A(cuda, this->random({3, 100, 100}, 32));
    auto device_C = this->template filled<V>(cuda, {3, 2}, sentinel);
    EXPECT_THROW(loom::blas::gemm(V{1}, device_A, host_x, V{0}, device_C), loom::BadInput);
    EXPECT_EQ(device_C.to_host(), std::vector<V>(6, sentinel));
}

}  // namespace
