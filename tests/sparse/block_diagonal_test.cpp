// Block-diagonal kernels: blocks found on known structures, inverted blocks times blocks = I,
// pivoting, zero pivots, adaptive precision, every backend against the reference, and the
// argument checks.
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "precond/block_matrices.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::sparse::Mode;
using loom::sparse::StoragePrecision;

constexpr Mode all_modes[] = {Mode::none, Mode::transpose, Mode::conjugate, Mode::conj_transpose};

template <typename VI>
class BlockDiagonal : public loom::test::TypedFixture<VI> {
protected:
    using Base = loom::test::TypedFixture<VI>;
    using typename Base::V, typename Base::I;

    std::shared_ptr<const Executor> ref = test::reference();

    /// Block sizes of awkward mix: 1, the warp-sized 31 / 32, odd sizes, repeats.
    static std::vector<size_type> mixed_sizes()
    {
        return {1, 3, 32, 2, 31, 1, 1, 17, 4, 4, 5, 32, 7};
    }

    std::vector<I> found(const matrix::Csr<V, I>& A, size_type max_block_size) const
    {
        return sparse::find_blocks(A, max_block_size).to_host();
    }

    /// The 2 x 2 blocks [1 t; 0 1], one per t: inverse [1 -t; 0 1], 1-norm condition number
    /// (1 + |t|)^2.
    matrix::Csr<V, I> unit_upper_blocks(const std::vector<double>& ts) const
    {
        test::RowLists<V, I> lists(2 * static_cast<size_type>(ts.size()));
        for (std::size_t k = 0; k < ts.size(); ++k) {
            const size_type r = 2 * static_cast<size_type>(k);
            lists.add(r, r, V(1));
            lists.add(r, r + 1, static_cast<V>(ts[k]));
            lists.add(r + 1, r + 1, V(1));
        }
        return lists.to_csr(ref);
    }
};
TYPED_TEST_SUITE(BlockDiagonal, loom::test::ValueIndexTypes);

TYPED_TEST(BlockDiagonal, FindsTheBlocksOfABlockDiagonalPattern)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = block_matrix<V, I>(this->ref, {2, 2, 3, 1});
    EXPECT_EQ(this->found(A, 4), (std::vector<I>{0, 4, 8}));
    EXPECT_EQ(this->found(A, 3), (std::vector<I>{0, 2, 4, 7, 8}));
    // 3 splits as 2 + 1, and the 1 merges with its neighbour.
    EXPECT_EQ(this->found(A, 2), (std::vector<I>{0, 2, 4, 6, 8}));
    EXPECT_EQ(this->found(A, 1), (std::vector<I>{0, 1, 2, 3, 4, 5, 6, 7, 8}));

    const auto sizes = TestFixture::mixed_sizes();
    const auto B = block_matrix<V, I>(this->ref, sizes);
    for (size_type max : {1, 2, 3, 4, 5, 8, 17, 31, 32}) {
        SCOPED_TRACE(max);
        EXPECT_EQ(this->found(B, max), expected_blocks<I>(sizes, max));
    }
}

TYPED_TEST(BlockDiagonal, FindingIgnoresColumnOrderDuplicatesAndValues)
{
    LOOM_TYPED_TEST_TYPES;
    const auto sizes = TestFixture::mixed_sizes();
    const auto A = block_matrix<V, I>(this->ref, sizes, 5, 0, /*scramble=*/true);
    for (size_type max : {3, 32}) EXPECT_EQ(this->found(A, max), expected_blocks<I>(sizes, max));
}

TYPED_TEST(BlockDiagonal, FindsTheNodesOfAMultiComponentPoissonProblem)
{
    LOOM_TYPED_TEST_TYPES;
    for (size_type m : {2, 3}) {
        SCOPED_TRACE(m);
        const size_type n = 7;
        const auto A = test::poisson_kron<V, I>(this->ref, n, m);
        const std::vector<size_type> nodes(n * n, m);
        EXPECT_EQ(this->found(A, m), expected_blocks<I>(nodes, m));
        EXPECT_EQ(this->found(A, 32), expected_blocks<I>(nodes, 32));
        EXPECT_EQ(this->found(A, 32)[1], static_cast<I>(32 / m * m));
    }
}

TYPED_TEST(BlockDiagonal, FindsBlocksOnEveryBackendAndInDegenerateCases)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = block_matrix<V, I>(this->ref, TestFixture::mixed_sizes());
    for (const auto& exec : test::backends()) {
        const matrix::Csr<V, I> A_exec(exec, A);
        const auto ptrs = sparse::find_blocks(A_exec, 8);
        EXPECT_EQ(ptrs.executor(), exec);
        EXPECT_EQ(ptrs.to_host(), this->found(A, 8));
    }
    const matrix::Csr<V, I> empty(this->ref, {0, 0});
    EXPECT_EQ(this->found(empty, 4), (std::vector<I>{0}));
    // Empty rows share the empty pattern: they form one supervariable.
    const auto holes = test::RowLists<V, I>(5).to_csr(this->ref);
    EXPECT_EQ(this->found(holes, 4), (std::vector<I>{0, 4, 5}));
}

TYPED_TEST(BlockDiagonal, InvertedBlocksTimesBlocksAreTheIdentity)
{
    LOOM_TYPED_TEST_TYPES;
    const auto sizes = TestFixture::mixed_sizes();
    const auto A = block_matrix<V, I>(this->ref, sizes, 3, /*coupling=*/3, /*scramble=*/true);
    const auto ptrs = pointers_of<I>(sizes);
    const auto inverse = sparse::invert_blocks(A, Array<I>(this->ref, ptrs));
    EXPECT_EQ(inverse.rows(), A.rows());
    EXPECT_EQ(inverse.num_blocks(), static_cast<size_type>(sizes.size()));
    EXPECT_EQ(inverse.max_block_size(), 32);
    const auto decoded = decode(inverse);
    const auto blocks = diagonal_blocks(A, ptrs);
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        SCOPED_TRACE(k);
        EXPECT_EQ(decoded.precisions[k], sparse::working_precision<V>());
        EXPECT_LE(distance_from_identity(decoded.blocks[k], blocks[k], sizes[k]),
                  50 * test::tolerance<V>());
        EXPECT_LE(distance_from_identity(blocks[k], decoded.blocks[k], sizes[k]),
                  50 * test::tolerance<V>());
        EXPECT_GE(decoded.conditions[k], 1.0 - 1e-5);
        EXPECT_LT(decoded.conditions[k], 100.0);  // diagonally dominant
    }
}

TYPED_TEST(BlockDiagonal, PivotsPastZerosOnTheDiagonal)
{
    LOOM_TYPED_TEST_TYPES;
    // [0 1; 1 0] and a 3 x 3 block that needs two row swaps.
    test::RowLists<V, I> lists(5);
    lists.add(0, 1, V(1));
    lists.add(1, 0, V(1));
    lists.add(2, 4, V(2));
    lists.add(3, 2, V(3));
    lists.add(4, 3, V(4));
    lists.add(4, 4, V(1));
    const auto A = lists.to_csr(this->ref);
    const auto ptrs = std::vector<I>{0, 2, 5};
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto decoded =
            decode(sparse::invert_blocks(matrix::Csr<V, I>(exec, A), Array<I>(exec, ptrs)));
        const auto blocks = diagonal_blocks(A, ptrs);
        for (std::size_t k = 0; k < 2; ++k) {
            EXPECT_LE(distance_from_identity(decoded.blocks[k], blocks[k], decoded.sizes[k]),
                      10 * test::tolerance<V>());
        }
    }
}

TYPED_TEST(BlockDiagonal, ASingularBlockIsNamedWithItsRow)
{
    LOOM_TYPED_TEST_TYPES;
    // Block 1 (rows 2..4) has two equal rows; block 2 (rows 5..7) an empty row.
    test::RowLists<V, I> lists(8);
    for (size_type i : {0, 1}) lists.add(i, i, V(2));
    for (size_type i : {2, 3}) {
        lists.add(i, 2, V(1));
        lists.add(i, 3, V(2));
        lists.add(i, 4, V(3));
    }
    lists.add(4, 4, V(1));
    lists.add(5, 5, V(1));
    lists.add(7, 7, V(1));
    const auto A = lists.to_csr(this->ref);
    const std::vector<I> ptrs{0, 2, 5, 8};
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const matrix::Csr<V, I> A_exec(exec, A);
        try {
            sparse::invert_blocks(A_exec, Array<I>(exec, ptrs));
            ADD_FAILURE() << "no NumericalError";
        } catch (const NumericalError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("block 1 (rows 2 to 4)"), std::string::npos) << message;
            EXPECT_NE(message.find("zero pivot at row 3"), std::string::npos) << message;
        }
        // With rows 2..4 as 1 x 1 blocks, the block holding the empty row 6 is reported.
        try {
            sparse::invert_blocks(A_exec, Array<I>(exec, std::vector<I>{0, 1, 2, 3, 4, 5, 8}));
            ADD_FAILURE() << "no NumericalError";
        } catch (const NumericalError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("block 5 (rows 5 to 7)"), std::string::npos) << message;
            EXPECT_NE(message.find("zero pivot at row 6"), std::string::npos) << message;
        }
        EXPECT_THROW(sparse::invert_diagonal(A_exec), NumericalError);
    }
}

TYPED_TEST(BlockDiagonal, ANonFiniteBlockIsReported)
{
    LOOM_TYPED_TEST_TYPES;
    test::RowLists<V, I> lists(3);
    lists.add(0, 0, V(1));
    lists.add(1, 1, V(1));
    lists.add(1, 2, static_cast<V>(std::numeric_limits<double>::quiet_NaN()));
    lists.add(2, 2, V(1));
    const auto A = lists.to_csr(this->ref);
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        EXPECT_THROW(sparse::invert_blocks(matrix::Csr<V, I>(exec, A),
                                           Array<I>(exec, std::vector<I>{0, 1, 3})),
                     NumericalError);
    }
}

TYPED_TEST(BlockDiagonal, AdaptivePrecisionFollowsTheConditionNumber)
{
    LOOM_TYPED_TEST_TYPES;
    const std::vector<double> ts{0.5, 100, 1e5, 0.25, 3};
    const auto A = this->unit_upper_blocks(ts);
    const auto ptrs = sparse::find_blocks(A, 2);
    ASSERT_EQ(ptrs.size(), static_cast<size_type>(ts.size()) + 1);
    const auto plain = sparse::invert_blocks(A, ptrs);
    const auto adaptive = sparse::invert_blocks(A, ptrs, {.adaptive_precision = true});
    const auto decoded = decode(adaptive);
    const auto blocks = diagonal_blocks(A, pointers_of<I>(std::vector<size_type>(ts.size(), 2)));
    const bool is_double = sparse::working_precision<V>() == StoragePrecision::float64;
    // kappa 2.25, 10201, 1e10, 1.5625, 16 against the unit roundoffs 2^-11, 2^-24, 2^-53.
    const std::vector<StoragePrecision> expected{
        StoragePrecision::float16, StoragePrecision::float32,
        is_double ? StoragePrecision::float64 : StoragePrecision::float32,
        StoragePrecision::float16, StoragePrecision::float16};
    EXPECT_EQ(decoded.precisions, expected);
    EXPECT_LT(adaptive.storage().size(), plain.storage().size());
    for (std::size_t k = 0; k < ts.size(); ++k) {
        SCOPED_TRACE(k);
        const double condition = (1 + ts[k]) * (1 + ts[k]);
        EXPECT_NEAR(decoded.conditions[k], condition, 1e-5 * condition);
        // The rounded inverse keeps ||M~ D - I|| within accuracy.
        EXPECT_LE(distance_from_identity(decoded.blocks[k], blocks[k], 2), 0.1);
    }
    EXPECT_EQ(sparse::choose_storage_precision<V>(std::numeric_limits<double>::infinity(), 0.1),
              sparse::working_precision<V>());
}

TYPED_TEST(BlockDiagonal, Float16StorageRoundsToNearest)
{
    LOOM_TYPED_TEST_TYPES;
    using R = remove_complex_t<V>;
    // Every stored half must be the one nearest to the scaled entry: random well-conditioned
    // blocks, and [1 e; 0 1] blocks whose -e falls on half subnormals, ties and underflow.
    std::vector<size_type> sizes(40, 3);
    const auto random_blocks = block_matrix<V, I>(this->ref, sizes, 9);
    const std::vector<double> tiny{1e-6, 3e-8, std::ldexp(1.0, -26), 3 * std::ldexp(1.0, -26),
                                   6.1e-5, 1.0 / 3, 65519.0 / 65536};
    const auto tiny_blocks = this->unit_upper_blocks(tiny);
    const auto check = [&](const matrix::Csr<V, I>& A, const std::vector<I>& host_ptrs) {
        const Array<I> ptrs(this->ref, host_ptrs);
        const auto plain = decode(sparse::invert_blocks(A, ptrs));
        const auto adaptive =
            sparse::invert_blocks(A, ptrs, {.adaptive_precision = true, .accuracy = 0.5});
        const auto decoded = decode(adaptive);
        const auto scales = adaptive.scales().to_host();
        for (std::size_t k = 0; k < decoded.blocks.size(); ++k) {
            ASSERT_EQ(decoded.precisions[k], StoragePrecision::float16);
            const auto nearest = [&](R value) {
                const auto half = static_cast<_Float16>(static_cast<float>(value / scales[k]));
                return static_cast<R>(static_cast<float>(half)) * scales[k];
            };
            for (std::size_t e = 0; e < plain.blocks[k].size(); ++e) {
                const V exact = plain.blocks[k][e];
                V expected;
                if constexpr (is_complex_v<V>) {
                    expected = V(nearest(exact.real()), nearest(exact.imag()));
                } else {
                    expected = nearest(exact);
                }
                EXPECT_EQ(decoded.blocks[k][e], expected) << "block " << k << " entry " << e;
            }
        }
    };
    check(random_blocks, pointers_of<I>(sizes));
    check(tiny_blocks, pointers_of<I>(std::vector<size_type>(tiny.size(), 2)));
}

TYPED_TEST(BlockDiagonal, BackendsMatchTheReference)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto& sizes : std::vector<std::vector<size_type>>{
             {}, {1}, {31}, {32}, {32, 1}, TestFixture::mixed_sizes(),
             std::vector<size_type>(300, 3)}) {
        const auto A = block_matrix<V, I>(this->ref, sizes, sizes.size() + 7, 2);
        const auto ptrs = pointers_of<I>(sizes);
        const auto n = A.rows();
        for (bool adaptive : {false, true}) {
            const sparse::BlockInversionOptions options{.adaptive_precision = adaptive,
                                                        .accuracy = 0.3};
            const auto ref_inverse = sparse::invert_blocks(A, Array<I>(this->ref, ptrs), options);
            const auto ref_decoded = decode(ref_inverse);
            for (const auto& exec : test::backends()) {
                SCOPED_TRACE(exec->name() + " n=" + std::to_string(n) +
                             (adaptive ? " adaptive" : ""));
                const matrix::Csr<V, I> A_exec(exec, A);
                const auto inverse = sparse::invert_blocks(A_exec, Array<I>(exec, ptrs), options);
                EXPECT_EQ(inverse.executor(), exec);
                const auto decoded = decode(inverse);
                ASSERT_EQ(decoded.precisions, ref_decoded.precisions);
                for (std::size_t k = 0; k < sizes.size(); ++k) {
                    const double unit = sparse::unit_roundoff(decoded.precisions[k]);
                    LOOM_EXPECT_NEAR_VECTORS(decoded.blocks[k], ref_decoded.blocks[k],
                                             4 * unit + 100 * test::tolerance<V>());
                    EXPECT_NEAR(decoded.conditions[k], ref_decoded.conditions[k],
                                1e3 * test::tolerance<V>() * ref_decoded.conditions[k]);
                }
                for (const auto mode : all_modes) {
                    for (size_type k : {1, 3}) {
                        const auto b = test::random_dense<V>(this->ref, {n, k}, 4, k + 1);
                        auto x_ref = test::random_dense<V>(this->ref, {n, k}, 5, k + 2);
                        matrix::Dense<V> b_exec(exec, b);
                        matrix::Dense<V> x_exec(exec, x_ref);
                        const V alpha = static_cast<V>(0.75);
                        const V beta = static_cast<V>(-0.5);
                        sparse::apply_block_inverse(mode, alpha, ref_inverse, b, beta, x_ref);
                        sparse::apply_block_inverse(mode, alpha, inverse, b_exec, beta, x_exec);
                        const double tolerance =
                            (adaptive ? 1e-2 : 0.0) + 100 * test::tolerance<V>();
                        LOOM_EXPECT_NEAR_VECTORS(x_exec.to_host(), x_ref.to_host(), tolerance);
                    }
                }
            }
        }
    }
}

TYPED_TEST(BlockDiagonal, ApplyComputesTheBlockProductsInEveryMode)
{
    LOOM_TYPED_TEST_TYPES;
    const auto sizes = TestFixture::mixed_sizes();
    const auto A = block_matrix<V, I>(this->ref, sizes, 21);
    const auto ptrs = pointers_of<I>(sizes);
    const auto n = A.rows();
    for (const auto& exec : loom::test::all_executors()) {
        const auto inverse =
            sparse::invert_blocks(matrix::Csr<V, I>(exec, A), Array<I>(exec, ptrs));
        const auto decoded = decode(inverse);
        for (const auto mode : all_modes) {
            SCOPED_TRACE(exec->name() + " mode " + sparse::to_string(mode));
            const bool transposes = mode == Mode::transpose || mode == Mode::conj_transpose;
            const bool conjugates = mode == Mode::conjugate || mode == Mode::conj_transpose;
            const auto b = test::random_dense<V>(this->ref, {n, 2}, 8, 5);  // strided
            matrix::Dense<V> x(this->ref, {n, 2}, 3);
            x.fill(static_cast<V>(std::numeric_limits<double>::quiet_NaN()));  // beta 0: not read
            matrix::Dense<V> x_exec(exec, x);
            sparse::apply_block_inverse(mode, V{2}, inverse, matrix::Dense<V>(exec, b), V{0},
                                        x_exec);
            std::vector<V> expected(static_cast<std::size_t>(n * 2), V{0});
            size_type begin = 0;
            for (std::size_t k = 0; k < sizes.size(); ++k) {
                const auto s = sizes[k];
                for (size_type i = 0; i < s; ++i) {
                    for (size_type c = 0; c < 2; ++c) {
                        V sum{0};
                        for (size_type j = 0; j < s; ++j) {
                            V entry = transposes ? decoded.blocks[k][j * s + i]
                                                 : decoded.blocks[k][i * s + j];
                            if (conjugates) entry = loom::conj(entry);
                            sum += entry * b.at(begin + j, c);
                        }
                        expected[(begin + i) * 2 + c] = V{2} * sum;
                    }
                }
                begin += s;
            }
            LOOM_EXPECT_NEAR_VECTORS(matrix::Dense<V>(this->ref, x_exec).to_host(), expected,
                                     100 * test::tolerance<V>());
        }
    }
}

TYPED_TEST(BlockDiagonal, ScalarInverseAndScaling)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto n : test::awkward_sizes()) {
        // Random pattern plus a nonzero diagonal split into duplicates.
        test::RowLists<V, I> lists(n);
        std::mt19937_64 rng(n);
        for (size_type i = 0; i < n; ++i) {
            lists.add(i, (i * 7) % n, test::random_value<V>(rng));
            lists.add(i, i, static_cast<V>(1.5));
            lists.add(i, i, test::random_value<V>(rng) * static_cast<V>(0.25));
        }
        const auto A = lists.to_csr(this->ref);
        const auto d_ref = sparse::invert_diagonal(A);
        const auto blocks = diagonal_blocks(A, pointers_of<I>(std::vector<size_type>(n, 1)));
        for (size_type i = 0; i < n; ++i) {
            EXPECT_NEAR(std::abs(d_ref[i] * blocks[i][0] - V{1}), 0.0, 10 * test::tolerance<V>());
        }
        const auto b = test::random_dense<V>(this->ref, {n, 3}, 2);
        for (const auto& exec : test::backends()) {
            SCOPED_TRACE(exec->name() + " n=" + std::to_string(n));
            const auto d = sparse::invert_diagonal(matrix::Csr<V, I>(exec, A));
            LOOM_EXPECT_NEAR_VECTORS(d.to_host(), d_ref.to_host(), test::tolerance<V>());
            for (const auto mode : all_modes) {
                auto x_ref = test::random_dense<V>(this->ref, {n, 3}, 3, 4);
                matrix::Dense<V> x(exec, x_ref);
                sparse::apply_diagonal(mode, V{3}, d_ref, b, V{1}, x_ref);
                sparse::apply_diagonal(mode, V{3}, d, matrix::Dense<V>(exec, b), V{1}, x);
                LOOM_EXPECT_NEAR_VECTORS(x.to_host(), x_ref.to_host(), 10 * test::tolerance<V>());
            }
        }
    }
}

TYPED_TEST(BlockDiagonal, BadInputsAreRejected)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = block_matrix<V, I>(this->ref, {2, 3});
    const auto rectangle = test::RowLists<V, I>(3).to_csr(this->ref, 4);
    EXPECT_THROW(sparse::find_blocks(A, 0), BadInput);
    EXPECT_THROW(sparse::find_blocks(A, 33), BadInput);
    EXPECT_THROW(sparse::find_blocks(rectangle, 4), DimensionMismatch);
    EXPECT_THROW(sparse::invert_diagonal(rectangle), DimensionMismatch);
    EXPECT_THROW(sparse::invert_blocks(rectangle, Array<I>(this->ref, {0, 3})), DimensionMismatch);
    for (const auto& bad : std::vector<std::vector<I>>{
             {}, {1, 5}, {0, 4}, {0, 2, 2, 5}, {0, 3, 2, 5}, {0, 6}}) {
        EXPECT_THROW(sparse::invert_blocks(A, Array<I>(this->ref, bad)), BadInput);
    }
    const auto big = block_matrix<V, I>(this->ref, {33});
    EXPECT_THROW(sparse::invert_blocks(big, Array<I>(this->ref, {0, 33})), BadInput);
    const Array<I> ptrs(this->ref, {0, 2, 5});
    EXPECT_THROW(sparse::invert_blocks(A, ptrs, {.adaptive_precision = true, .accuracy = 0.0}),
                 BadInput);
    EXPECT_THROW(sparse::invert_blocks(A, ptrs, {.accuracy = 1.0}), BadInput);

    const auto inverse = sparse::invert_blocks(A, ptrs);
    const auto d = sparse::invert_diagonal(A);
    matrix::Dense<V> b(this->ref, {5, 2});
    matrix::Dense<V> x(this->ref, {5, 2});
    b.fill(V{1});
    matrix::Dense<V> short_x(this->ref, {4, 2});
    matrix::Dense<V> narrow_x(this->ref, {5, 1});
    EXPECT_THROW(sparse::apply_block_inverse(Mode::none, V{1}, inverse, b, V{0}, short_x),
                 DimensionMismatch);
    EXPECT_THROW(sparse::apply_block_inverse(Mode::none, V{1}, inverse, b, V{0}, narrow_x),
                 DimensionMismatch);
    EXPECT_THROW(sparse::apply_diagonal(Mode::none, V{1}, d, short_x, V{0}, x), DimensionMismatch);
    for (const auto& exec : test::backends()) {
        matrix::Dense<V> x_exec(exec, {5, 2});
        if (!exec->same_memory_as(*this->ref)) {
            EXPECT_THROW(sparse::apply_block_inverse(Mode::none, V{1}, inverse, b, V{0}, x_exec),
                         BadInput);
            EXPECT_THROW(sparse::apply_diagonal(Mode::none, V{1}, d, b, V{0}, x_exec), BadInput);
        }
    }
}

}  // namespace
}  // namespace loom::test
