// Multi-vector dot and axpy (classical Gram-Schmidt's VecMDot / VecMAXPY): every backend
// against per-vector conj_dot and axpy on the reference, for 0, 1, 8, 9 and 31/32/33 vectors
// (the groups of a pass are 8 on OpenMP, 4 and 8 on CUDA), plain and strided, empty and long;
// bad input throws and leaves the outputs untouched.
#include <cmath>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace {

using loom::dim2;
using loom::size_type;
using loom::matrix::Dense;

struct Shape {
    size_type rows;
    size_type cols;
    size_type stride;
};

std::string describe(const Shape& s, size_type count)
{
    return std::to_string(count) + " vectors of " + std::to_string(s.rows) + "x" +
           std::to_string(s.cols) + " stride " + std::to_string(s.stride);
}

std::vector<Shape> shapes()
{
    std::vector<Shape> result;
    for (size_type rows : {0, 1, 31, 32, 33, 1000, 5000}) {
        result.push_back({rows, 1, 1});
        result.push_back({rows, 1, 2});
        result.push_back({rows, 3, 3});
        result.push_back({rows, 3, 5});
    }
    return result;
}

const std::vector<size_type> counts{0, 1, 8, 9, 31, 32, 33};

/// The backends, plus OpenMP with a thread count that divides none of the sizes.
std::vector<std::shared_ptr<const loom::Executor>> executors()
{
    auto result = loom::test::backends();
    if (loom::OmpExecutor::available()) result.push_back(loom::OmpExecutor::create(3));
    return result;
}

template <typename V>
class MultiVector : public ::testing::Test {
protected:
    std::shared_ptr<const loom::Executor> ref = loom::test::reference();
    double tol = loom::test::tolerance<V>();

    /// count random vectors of shape s, on exec.
    std::vector<Dense<V>> vectors(const std::shared_ptr<const loom::Executor>& exec,
                                  const Shape& s, size_type count, std::uint64_t seed) const
    {
        std::vector<Dense<V>> result;
        for (size_type i = 0; i < count; ++i) {
            result.emplace_back(exec, loom::test::random_dense<V>(ref, {s.rows, s.cols},
                                                                  seed + i, s.stride));
        }
        return result;
    }

    /// Copies of the host vectors on exec.
    static std::vector<Dense<V>> vectors(const std::shared_ptr<const loom::Executor>& exec,
                                         const std::vector<Dense<V>>& host)
    {
        std::vector<Dense<V>> result;
        for (const auto& h : host) result.emplace_back(exec, h);
        return result;
    }

    static std::vector<const Dense<V>*> pointers(const std::vector<Dense<V>>& v)
    {
        std::vector<const Dense<V>*> result;
        for (const auto& d : v) result.push_back(&d);
        return result;
    }

    static Dense<V> filled(std::shared_ptr<const loom::Executor> exec, dim2 size, V value)
    {
        Dense<V> d(std::move(exec), size);
        d.fill(value);
        return d;
    }

    static double column_norm(const Dense<V>& x, size_type j)
    {
        double sum = 0;
        for (size_type i = 0; i < x.rows(); ++i) sum += std::norm(std::complex<double>(x.at(i, j)));
        return std::sqrt(sum);
    }
};

TYPED_TEST_SUITE(MultiVector, loom::test::ValueTypes);

TYPED_TEST(MultiVector, MultiConjDotMatchesConjDotOfEachVector)
{
    using V = TypeParam;
    for (const auto& s : shapes()) {
        for (const auto count : counts) {
            const auto host_x = this->vectors(this->ref, s, count, 100);
            const auto host_y =
                loom::test::random_dense<V>(this->ref, {s.rows, s.cols}, 7, s.stride + 1);
            std::vector<V> expected;
            std::vector<double> scale;
            for (size_type i = 0; i < count; ++i) {
                auto dots = this->filled(this->ref, {1, s.cols}, V{});
                loom::blas::conj_dot(host_x[i], host_y, dots);
                for (size_type j = 0; j < s.cols; ++j) {
                    expected.push_back(dots.at(0, j));
                    scale.push_back(this->column_norm(host_x[i], j) * this->column_norm(host_y, j));
                }
            }
            for (const auto& exec : executors()) {
                SCOPED_TRACE(exec->name() + " " + describe(s, count));
                const auto x = this->vectors(exec, host_x);
                const Dense<V> y(exec, host_y);
                auto actual = this->filled(exec, {1, count * s.cols}, V{42});
                const auto pointers = this->pointers(x);
                loom::blas::multi_conj_dot<V>(pointers, y, actual);
                const auto result = actual.to_host();
                ASSERT_EQ(result.size(), expected.size());
                for (std::size_t v = 0; v < result.size(); ++v) {
                    EXPECT_LE(std::abs(result[v] - expected[v]),
                              this->tol * std::max(1.0, scale[v]))
                        << "vector " << v / s.cols << ", column " << v % s.cols;
                }
            }
        }
    }
}

TYPED_TEST(MultiVector, MultiAxpyMatchesRepeatedAxpy)
{
    using V = TypeParam;
    for (const auto& s : shapes()) {
        for (const auto count : counts) {
            const auto host_x = this->vectors(this->ref, s, count, 200);
            auto host_alpha = loom::test::random_dense<V>(this->ref, {1, count * s.cols}, 9);
            const auto y0 =
                loom::test::random_dense<V>(this->ref, {s.rows, s.cols}, 8, s.stride + 1);
            auto expected = y0;
            for (size_type i = 0; i < count; ++i) {
                const auto a = host_alpha.columns(i * s.cols, s.cols);
                loom::blas::axpy(a, host_x[i], expected);
            }
            for (const auto& exec : loom::test::backends()) {
                SCOPED_TRACE(exec->name() + " " + describe(s, count));
                const auto x = this->vectors(exec, host_x);
                const Dense<V> alpha(exec, host_alpha);
                Dense<V> actual(exec, y0);
                const auto pointers = this->pointers(x);
                loom::blas::multi_axpy<V>(alpha, pointers, actual);
                // The whole stored span, padding included: a write into the padding shows.
                ASSERT_EQ(actual.stride(), expected.stride());
                LOOM_EXPECT_NEAR_VECTORS(actual.values().to_host(), expected.values().to_host(),
                                         this->tol);
            }
        }
    }
}

TYPED_TEST(MultiVector, MultiConjDotIsDeterministic)
{
    using V = TypeParam;
    for (const auto& exec : executors()) {
        SCOPED_TRACE(exec->name());
        const Shape s{100000, 1, 1};
        const auto x = this->vectors(exec, s, 11, 300);
        const Dense<V> y(exec, loom::test::random_dense<V>(this->ref, {s.rows, 1}, 3));
        auto first = this->filled(exec, {1, 11}, V{});
        auto second = this->filled(exec, {1, 11}, V{});
        const auto pointers = this->pointers(x);
        loom::blas::multi_conj_dot<V>(pointers, y, first);
        loom::blas::multi_conj_dot<V>(pointers, y, second);
        const auto a = first.to_host();
        const auto b = second.to_host();
        EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(V) * a.size()), 0);
    }
}

TYPED_TEST(MultiVector, BadInputThrowsAndLeavesOutputsUntouched)
{
    using V = TypeParam;
    const V sentinel{42};
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto x = this->vectors(exec, {10, 2, 2}, 3, 400);
        const auto shorter = this->vectors(exec, {9, 2, 2}, 1, 500);
        const auto untouched = [&](const Dense<V>& d) {
            for (const auto& v : d.to_host()) {
                if (v != sentinel) return false;
            }
            return true;
        };
        auto pointers = this->pointers(x);
        auto y = this->filled(exec, {10, 2}, sentinel);

        auto short_result = this->filled(exec, {1, 4}, sentinel);
        EXPECT_THROW(loom::blas::multi_conj_dot<V>(pointers, y, short_result),
                     loom::DimensionMismatch);
        EXPECT_TRUE(untouched(short_result));
        const auto short_alpha = this->filled(exec, {1, 5}, V{1});
        EXPECT_THROW(loom::blas::multi_axpy<V>(short_alpha, pointers, y), loom::DimensionMismatch);
        EXPECT_TRUE(untouched(y));

        auto result = this->filled(exec, {1, 6}, sentinel);
        const auto alpha = this->filled(exec, {1, 6}, V{1});
        auto mixed = pointers;
        mixed[1] = &shorter[0];
        EXPECT_THROW(loom::blas::multi_conj_dot<V>(mixed, y, result), loom::DimensionMismatch);
        EXPECT_THROW(loom::blas::multi_axpy<V>(alpha, mixed, y), loom::DimensionMismatch);
        mixed[1] = nullptr;
        EXPECT_THROW(loom::blas::multi_conj_dot<V>(mixed, y, result), loom::BadInput);
        EXPECT_THROW(loom::blas::multi_axpy<V>(alpha, mixed, y), loom::BadInput);
        EXPECT_TRUE(untouched(result));
        EXPECT_TRUE(untouched(y));

        // y among the x_i: the update would read what it writes.
        mixed[1] = &y;
        EXPECT_THROW(loom::blas::multi_axpy<V>(alpha, mixed, y), loom::BadInput);
        EXPECT_TRUE(untouched(y));
        // ... which the dot may do: it only reads.
        EXPECT_NO_THROW(loom::blas::multi_conj_dot<V>(mixed, y, result));

        if (exec->kind() != loom::ExecKind::reference) {
            const auto host_alpha = this->filled(this->ref, {1, 6}, V{1});
            if (!exec->same_memory_as(*this->ref)) {
                EXPECT_THROW(loom::blas::multi_axpy<V>(host_alpha, pointers, y), loom::BadInput);
                EXPECT_TRUE(untouched(y));
            }
        }
    }
}

}  // namespace
