// Stencil: its CSR form against the generators and against its own SpMV, every backend's
// SpMV against the reference, for every stencil type, every mode and tiny boxes.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/stencil.hpp"
#include "loom/sparse/spmv_stencil.hpp"
#include "support/csr_checks.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::matrix::Box;
using loom::sparse::Mode;

constexpr int all_points[] = {3, 5, 9, 7, 27};
constexpr Mode all_modes[] = {Mode::none, Mode::transpose, Mode::conjugate, Mode::conj_transpose};

/// Tiny and degenerate boxes, and a few with an interior in every direction.
std::vector<Box> boxes()
{
    return {{1, 1, 1}, {2, 1, 1}, {3, 3, 3}, {33, 1, 2}, {0, 4, 4}, {5, 4, 3}, {17, 9, 6},
            {40, 3, 1}};
}

template <typename T>
class StencilTest : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I;

    using Stencil = matrix::Stencil<V, I>;

    /// Weights that tell every offset apart (and, for complex types, A from conj(A) and A^T
    /// from A^H): the transposed products then really test the mirroring.
    static std::vector<V> distinct_weights(int points, std::uint64_t seed)
    {
        std::mt19937_64 rng(seed);
        std::vector<V> weights(matrix::stencil_offsets(points).size());
        for (auto& w : weights) w = loom::test::random_value<V>(rng);
        return weights;
    }

    /// y = alpha op(A) x + beta y0 for a stencil or a CSR matrix, y0 random (or NaN when beta
    /// is zero: it must not be read).
    template <typename Matrix>
    static std::vector<V> product(Mode mode, V alpha, const Matrix& A, V beta, size_type k,
                                  size_type x_stride = 0)
    {
        const auto exec = A.executor();
        const auto x = loom::test::random_dense<V>(exec, {A.size().cols, k}, 3, x_stride);
        auto y = loom::test::random_dense<V>(exec, {A.size().rows, k}, 4);
        if (beta == V{0}) y.fill(V{std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()});
        sparse::spmv(mode, alpha, A, x, beta, y);
        return y.to_host();
    }

    static std::vector<std::pair<V, V>> coefficients()
    {
        std::vector<std::pair<V, V>> result{{V{1}, V{0}}, {V{-0.5}, V{2}}};
        if constexpr (loom::is_complex_v<V>) result.push_back({V(0.5, -1), V(0.25, 2)});
        return result;
    }
};

TYPED_TEST_SUITE(StencilTest, loom::test::ValueIndexTypes);

TYPED_TEST(StencilTest, OffsetsAreSortedAndSymmetric)
{
    for (const int points : all_points) {
        const auto offsets = matrix::stencil_offsets(points);
        EXPECT_EQ(static_cast<int>(offsets.size()), points);
        for (std::size_t i = 1; i < offsets.size(); ++i) {
            const auto key = [](const matrix::StencilOffset& o) {
                return (o.dz * 3 + o.dy) * 3 + o.dx;
            };
            EXPECT_LT(key(offsets[i - 1]), key(offsets[i]));
        }
        for (const auto& o : offsets) {
            EXPECT_TRUE(matrix::in_stencil(points, {-o.dx, -o.dy, -o.dz}));
        }
    }
    EXPECT_THROW(matrix::stencil_offsets(4), loom::BadInput);
}

TYPED_TEST(StencilTest, PoissonIsWhatTheGeneratorsBuild)
{
    LOOM_TYPED_TEST_TYPES;
    for (const size_type n : {1, 2, 3, 7}) {
        for (const int points : {7, 27}) {
            const typename TestFixture::Stencil S(this->ref, {n, n, n}, points);
            loom::test::expect_same_csr(S.to_csr(), matrix::poisson3d<V, I>(this->ref, n, points));
        }
        for (const int points : {5, 9}) {
            const typename TestFixture::Stencil S(this->ref, {n, n, 1}, points);
            loom::test::expect_same_csr(S.to_csr(), matrix::poisson2d<V, I>(this->ref, n, points));
        }
    }
}

TYPED_TEST(StencilTest, InteriorAndBoundaryRows)
{
    using I = typename TestFixture::I;
    const typename TestFixture::Stencil S(this->ref, {6, 5, 4}, 7);
    EXPECT_EQ(S.size(), (dim2{120, 120}));
    EXPECT_EQ(S.interior_rows(), 4 * 3 * 2);
    EXPECT_EQ(S.boundary().rows(), 120 - 24);
    const auto rows = S.boundary_rows().to_host();
    for (std::size_t b = 1; b < rows.size(); ++b) EXPECT_LT(rows[b - 1], rows[b]);
    // A 2D stencil on a 3D box: every plane has its own interior, z is no direction of it.
    const typename TestFixture::Stencil planes(this->ref, {6, 5, 4}, 5);
    EXPECT_EQ(planes.interior_rows(), 4 * 3 * 4);
    EXPECT_EQ(planes.interior_first(), (Box{1, 1, 0}));
    EXPECT_EQ(planes.interior_last(), (Box{5, 4, 4}));
    // Too thin for an interior.
    const typename TestFixture::Stencil thin(this->ref, {2, 9, 9}, 27);
    EXPECT_EQ(thin.interior_rows(), 0);
    EXPECT_EQ(thin.boundary_rows().to_host().size(), std::size_t{162});
    (void)sizeof(I);
}

TYPED_TEST(StencilTest, ReferenceSpmvIsTheCsrSpmv)
{
    using V = typename TestFixture::V;
    const auto tol = loom::test::tolerance<V>();
    std::uint64_t seed = 1;
    for (const int points : all_points) {
        for (const auto& box : boxes()) {
            const typename TestFixture::Stencil S(this->ref, box, points,
                                                  TestFixture::distinct_weights(points, seed++));
            const auto A = S.to_csr();
            for (const auto mode : all_modes) {
                for (const auto& [alpha, beta] : TestFixture::coefficients()) {
                    SCOPED_TRACE(std::to_string(points) + " points, " + std::to_string(box.nx) +
                                 "x" + std::to_string(box.ny) + "x" + std::to_string(box.nz) +
                                 ", mode " + sparse::to_string(mode));
                    for (const size_type k : {1, 3}) {
                        LOOM_EXPECT_NEAR_VECTORS(TestFixture::product(mode, alpha, S, beta, k),
                                                 TestFixture::product(mode, alpha, A, beta, k),
                                                 tol);
                    }
                }
            }
        }
    }
}

TYPED_TEST(StencilTest, BackendsMatchTheReference)
{
    using V = typename TestFixture::V;
    const auto tol = loom::test::tolerance<V>();
    std::uint64_t seed = 100;
    for (const auto& exec : loom::test::backends()) {
        for (const int points : all_points) {
            for (const auto& box : boxes()) {
                const typename TestFixture::Stencil S(
                    this->ref, box, points, TestFixture::distinct_weights(points, seed++));
                const typename TestFixture::Stencil S_exec(exec, S);
                EXPECT_EQ(S_exec.to_csr().col_idxs().to_host(), S.to_csr().col_idxs().to_host());
                for (const auto mode : all_modes) {
                    for (const auto& [alpha, beta] : TestFixture::coefficients()) {
                        for (const size_type k : {1, 2}) {
                            SCOPED_TRACE(exec->name() + ", " + std::to_string(points) +
                                         " points, " + std::to_string(box.nx) + "x" +
                                         std::to_string(box.ny) + "x" + std::to_string(box.nz) +
                                         ", mode " + sparse::to_string(mode) + ", k " +
                                         std::to_string(k));
                            LOOM_EXPECT_NEAR_VECTORS(
                                TestFixture::product(mode, alpha, S_exec, beta, k, k + 1),
                                TestFixture::product(mode, alpha, S, beta, k, k + 1), tol);
                        }
                    }
                }
            }
        }
    }
}

TYPED_TEST(StencilTest, LargerBoxesMatchTheReference)
{
    using V = typename TestFixture::V;
    for (const auto& exec : loom::test::backends()) {
        for (const int points : {7, 27}) {
            const typename TestFixture::Stencil S(this->ref, {37, 20, 11}, points);
            const typename TestFixture::Stencil S_exec(exec, S);
            LOOM_EXPECT_NEAR_VECTORS(TestFixture::product(Mode::none, V{2}, S_exec, V{-1}, 1),
                                     TestFixture::product(Mode::none, V{2}, S, V{-1}, 1),
                                     loom::test::tolerance<V>());
        }
    }
}

TYPED_TEST(StencilTest, IsALinOp)
{
    using V = typename TestFixture::V;
    for (const auto& exec : loom::test::backends()) {
        const typename TestFixture::Stencil S(exec, {9, 8, 7}, 27);
        const auto A = S.to_csr();
        const loom::LinOp<V>& op = S;
        const auto b = loom::test::random_dense<V>(exec, {S.size().cols, 1}, 9);
        typename TestFixture::Dense x(exec, dim2{S.size().rows, 1});
        typename TestFixture::Dense expected(exec, dim2{S.size().rows, 1});
        op.apply(b, x);
        A.apply(b, expected);
        LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), loom::test::tolerance<V>());
    }
}

TYPED_TEST(StencilTest, BadInput)
{
    using V = typename TestFixture::V;
    using Stencil = typename TestFixture::Stencil;
    EXPECT_THROW(Stencil(this->ref, {3, 3, 3}, 4), loom::BadInput);
    EXPECT_THROW(Stencil(this->ref, {3, 3, 3}, 7, std::vector<V>(6, V{1})), loom::BadInput);
    EXPECT_THROW(Stencil(this->ref, {-1, 3, 3}, 7), loom::BadInput);
    EXPECT_THROW(Stencil(nullptr, {3, 3, 3}, 7), loom::BadInput);
    EXPECT_THROW(Stencil(this->ref, {3, 3, -2}, 27), loom::BadInput);
    // More grid points than the index type can number.
    if constexpr (sizeof(typename TestFixture::I) == 4) {
        EXPECT_THROW(Stencil(this->ref, {2000, 2000, 1000}, 7), loom::NotSupported);
    } else {
        EXPECT_THROW(Stencil(this->ref, {size_type{1} << 30, size_type{1} << 30, 1 << 30}, 7),
                     loom::NotSupported);
    }

    const Stencil S(this->ref, {4, 3, 2}, 7);
    const auto x = loom::test::random_dense<V>(this->ref, {24, 1});
    typename TestFixture::Dense y(this->ref, dim2{23, 1});
    EXPECT_THROW(sparse::spmv(Mode::none, V{1}, S, x, V{0}, y), loom::DimensionMismatch);
    auto both = loom::test::random_dense<V>(this->ref, {24, 2});
    auto first = both.column(0);
    auto second = both.column(1);
    EXPECT_NO_THROW(sparse::spmv(Mode::none, V{1}, S, first, V{0}, second));
    EXPECT_THROW(sparse::spmv(Mode::none, V{1}, S, first, V{0}, first), loom::BadInput);
}

}  // namespace
}  // namespace loom::test
