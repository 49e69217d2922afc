#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/solver/operators.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/csr.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace {

using namespace loom;

template <typename V>
class Operators : public ::testing::Test {
protected:
    std::shared_ptr<const Executor> ref = test::reference();

    std::shared_ptr<matrix::Dense<V>> dense(dim2 size, std::uint64_t seed) const
    {
        return std::make_shared<matrix::Dense<V>>(test::random_dense<V>(ref, size, seed));
    }

    /// op applied to b, on the reference.
    std::vector<V> applied(const LinOp<V>& op, const matrix::Dense<V>& b) const
    {
        matrix::Dense<V> x(ref, {op.size().rows, b.cols()});
        op.apply(b, x);
        return x.to_host();
    }
};
TYPED_TEST_SUITE(Operators, loom::test::ValueTypes);

TYPED_TEST(Operators, IdentityCopiesAndScales)
{
    using V = TypeParam;
    Identity<V> id(this->ref, 5);
    auto b = test::random_dense<V>(this->ref, {5, 2}, 1);
    EXPECT_EQ(this->applied(id, b), b.to_host());
    auto x = test::random_dense<V>(this->ref, {5, 2}, 2);
    const auto x0 = x.to_host();
    id.apply(V{2}, b, V{-1}, x);
    const auto bh = b.to_host();
    std::vector<V> expected(bh.size());
    for (std::size_t i = 0; i < bh.size(); ++i) expected[i] = V{2} * bh[i] - x0[i];
    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected, test::tolerance<V>());
    EXPECT_THROW(Identity<V>(this->ref, -1), BadInput);
}

TYPED_TEST(Operators, CompositionIsTheProduct)
{
    using V = TypeParam;
    auto A = this->dense({4, 3}, 1);
    auto B = this->dense({3, 6}, 2);
    auto C = this->dense({6, 2}, 3);
    Composition<V> abc({A, B, C});
    EXPECT_EQ(abc.size(), (dim2{4, 2}));
    auto b = test::random_dense<V>(this->ref, {2, 3}, 4);
    matrix::Dense<V> cb(this->ref, {6, 3});
    C->apply(b, cb);
    matrix::Dense<V> bcb(this->ref, {3, 3});
    B->apply(cb, bcb);
    const auto expected = this->applied(*A, bcb);
    LOOM_EXPECT_NEAR_VECTORS(this->applied(abc, b), expected, test::tolerance<V>());
    // twice with another column count (the cached intermediates are resized)
    auto b1 = test::random_dense<V>(this->ref, {2, 1}, 5);
    EXPECT_EQ(this->applied(abc, b1).size(), 4u);
    // alpha / beta
    auto x = test::random_dense<V>(this->ref, {4, 3}, 6);
    const auto x0 = x.to_host();
    abc.apply(V{3}, b, V{1}, x);
    std::vector<V> scaled(expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) scaled[i] = V{3} * expected[i] + x0[i];
    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), scaled, test::tolerance<V>());

    EXPECT_THROW(Composition<V>({A, C}), DimensionMismatch);
    EXPECT_THROW(Composition<V>({}), BadInput);
    EXPECT_THROW(Composition<V>({A, nullptr}), BadInput);
}

TYPED_TEST(Operators, CombinationIsTheLinearCombination)
{
    using V = TypeParam;
    auto A = this->dense({5, 5}, 1);
    auto B = this->dense({5, 5}, 2);
    auto I = std::make_shared<Identity<V>>(this->ref, 5);
    Combination<V> sum({V{2}, V{-1}, V{0.5}}, {A, B, I});
    auto b = test::random_dense<V>(this->ref, {5, 2}, 3);
    const auto ab = this->applied(*A, b);
    const auto bb = this->applied(*B, b);
    const auto bh = b.to_host();
    std::vector<V> expected(ab.size());
    for (std::size_t i = 0; i < ab.size(); ++i) {
        expected[i] = V{2} * ab[i] - bb[i] + V{0.5} * bh[i];
    }
    LOOM_EXPECT_NEAR_VECTORS(this->applied(sum, b), expected, test::tolerance<V>());
    auto x = test::random_dense<V>(this->ref, {5, 2}, 6);
    const auto x0 = x.to_host();
    sum.apply(V{-1}, b, V{2}, x);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = -expected[i] + V{2} * x0[i];
    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected, test::tolerance<V>());

    EXPECT_THROW(Combination<V>({V{1}}, {A, B}), BadInput);
    EXPECT_THROW(Combination<V>({V{1}, V{1}}, {A, this->dense({5, 4}, 7)}), DimensionMismatch);
    EXPECT_THROW(Combination<V>({}, {}), BadInput);
}

TYPED_TEST(Operators, MatrixFreeCallsTheFunction)
{
    using V = TypeParam;
    auto A = this->dense({3, 4}, 1);
    int calls = 0;
    MatrixFree<V> op(this->ref, {3, 4}, [&](const matrix::Dense<V>& in, matrix::Dense<V>& out) {
        ++calls;
        A->apply(in, out);
    });
    auto b = test::random_dense<V>(this->ref, {4, 2}, 2);
    LOOM_EXPECT_NEAR_VECTORS(this->applied(op, b), this->applied(*A, b), test::tolerance<V>());
    matrix::Dense<V> x(this->ref, {3, 2});
    x.fill(V{1});
    op.apply(V{2}, b, V{1}, x);
    EXPECT_EQ(calls, 2);
    EXPECT_THROW(op.conj_transpose(), NotSupported);
    EXPECT_THROW(MatrixFree<V>(this->ref, {3, 4}, {}), BadInput);
    matrix::Dense<V> wrong(this->ref, {3, 2});
    EXPECT_THROW(op.apply(wrong, x), DimensionMismatch);
}

TYPED_TEST(Operators, ConjugateTransposes)
{
    using V = TypeParam;
    auto host = test::random_dense<V>(this->ref, {4, 3}, 1);
    const auto h = host.to_host();
    std::vector<V> ht(h.size());
    for (size_type r = 0; r < 4; ++r) {
        for (size_type c = 0; c < 3; ++c) ht[c * 4 + r] = loom::conj(h[r * 3 + c]);
    }
    auto expected_op = matrix::Dense<V>::from_host(this->ref, {3, 4}, ht);
    auto b = test::random_dense<V>(this->ref, {4, 2}, 2);
    const auto expected = this->applied(expected_op, b);

    // Dense, Csr (the same values), and composites of them
    std::shared_ptr<const LinOp<V>> dense = std::make_shared<matrix::Dense<V>>(host);
    std::vector<int32> ptrs{0, 3, 6, 9, 12}, cols{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2};
    std::shared_ptr<const LinOp<V>> csr =
        std::make_shared<matrix::Csr<V>>(matrix::Csr<V>::from_host(this->ref, {4, 3}, ptrs, cols, h));
    for (const auto& op : {dense, csr}) {
        auto t = loom::conj_transpose(op);
        EXPECT_EQ(t->size(), (dim2{3, 4}));
        LOOM_EXPECT_NEAR_VECTORS(this->applied(*t, b), expected, test::tolerance<V>());
    }
    auto id = std::make_shared<Identity<V>>(this->ref, 4);
    auto composite = std::make_shared<Combination<V>>(
        std::vector<V>{V{2}}, std::vector<std::shared_ptr<const LinOp<V>>>{
                                  std::make_shared<Composition<V>>(
                                      std::vector<std::shared_ptr<const LinOp<V>>>{id, csr})});
    auto t = loom::conj_transpose<V>(composite);
    auto doubled = this->applied(*t, b);
    for (auto& v : doubled) v /= V{2};
    LOOM_EXPECT_NEAR_VECTORS(doubled, expected, test::tolerance<V>());
    EXPECT_THROW(loom::conj_transpose<V>(nullptr), BadInput);
}

TYPED_TEST(Operators, OperatorsOnAnotherExecutorTakeHostVectors)
{
    using V = TypeParam;
    for (const auto& exec : test::backends()) {
        auto A = std::make_shared<matrix::Dense<V>>(exec, *this->dense({5, 5}, 1));
        auto B = std::make_shared<matrix::Dense<V>>(exec, *this->dense({5, 5}, 2));
        Composition<V> ab({A, B});
        Combination<V> sum({V{1}, V{1}}, {A, B});
        auto b = test::random_dense<V>(this->ref, {5, 1}, 3);
        const auto ab_ref = this->applied(
            Composition<V>({this->dense({5, 5}, 1), this->dense({5, 5}, 2)}), b);
        LOOM_EXPECT_NEAR_VECTORS(this->applied(ab, b), ab_ref, test::tolerance<V>());
        EXPECT_EQ(this->applied(sum, b).size(), 5u);
    }
}

}  // namespace
