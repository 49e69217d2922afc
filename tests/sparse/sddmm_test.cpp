// SDDMM: the reference against plain dot products, every backend and algorithm against the
// reference for every layout and k, and the argument checks.
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/sparse/sddmm.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"
#include "support/typed_fixture.hpp"

namespace loom::test {
namespace {

using loom::sparse::DenseLayout;
using loom::sparse::SddmmAlgorithm;

constexpr DenseLayout layouts[] = {DenseLayout::row_major, DenseLayout::col_major};

template <typename T>
class Sddmm : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr, typename Base::Dense;

    static double tolerance() { return std::max(1e-10, loom::test::tolerance<V>()); }

    static Dense operand(std::shared_ptr<const loom::Executor> exec, dim2 logical,
                         DenseLayout layout, std::uint64_t seed)
    {
        const dim2 stored = layout == DenseLayout::row_major ? logical : logical.transposed();
        return loom::test::random_dense<V>(std::move(exec), stored, seed, stored.cols + 1);
    }
};

TYPED_TEST_SUITE(Sddmm, loom::test::ValueIndexTypes);

TYPED_TEST(Sddmm, ReferenceComputesSampledDotProducts)
{
    LOOM_TYPED_TEST_TYPES;
    auto S = loom::test::random_csr<V, I>(this->ref, {8, 6, 3, true, false, true, 2});
    const auto X = loom::test::random_dense<V>(this->ref, {8, 5}, 3);
    const auto Y = loom::test::random_dense<V>(this->ref, {6, 5}, 4);
    const auto rows = S.row_ptrs().to_host();
    const auto cols = S.col_idxs().to_host();
    auto expected = S.values().to_host();
    for (size_type r = 0; r < S.rows(); ++r) {
        for (auto e = rows[r]; e < rows[r + 1]; ++e) {
            V dot{};
            for (size_type j = 0; j < 5; ++j) dot += X.at(r, j) * Y.at(cols[e], j);
            expected[e] = V{2} * dot + V{0.5} * expected[e];
        }
    }
    sparse::sddmm(V{2}, X, Y, V{0.5}, S);
    LOOM_EXPECT_NEAR_VECTORS(S.values().to_host(), expected, this->tolerance());
}

TYPED_TEST(Sddmm, BackendsMatchReference)
{
    LOOM_TYPED_TEST_TYPES;
    const std::vector<loom::test::PatternSpec> specs{
        {40, 40, 3, true, true, false, 1},     {33, 70, 0.5, false, true, false, 2},
        {70, 33, 4, true, false, true, 3},     {0, 5, 1, false, true, false, 4},
        {1, 1000, 900, false, true, false, 5}, {300, 50, 9, true, true, false, 6}};
    for (const auto& exec : loom::test::backends()) {
        std::vector<SddmmAlgorithm> algorithms{SddmmAlgorithm::automatic};
        if (!exec->is_host()) algorithms.push_back(SddmmAlgorithm::vendor);
        for (const auto& spec : specs) {
            const auto S_start = loom::test::random_csr<V, I>(this->ref, spec);
            for (const size_type k : {1, 2, 5, 31, 32, 33, 64, 100, 128, 256, 300}) {
                for (const auto x_layout : layouts) {
                    for (const auto y_layout : layouts) {
                        for (const V beta : {V{0}, V{-0.5}}) {
                            const auto X_ref =
                                this->operand(this->ref, {spec.rows, k}, x_layout, 7);
                            const auto Y_ref =
                                this->operand(this->ref, {spec.cols, k}, y_layout, 8);
                            sparse::SddmmOptions options{SddmmAlgorithm::automatic, x_layout,
                                                         y_layout};
                            Csr expected(S_start);
                            if (beta == V{0}) {
                                // beta = 0: S's values are written without being read.
                                expected.values().fill(
                                    V{std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()});
                            }
                            const Csr start(expected);
                            sparse::sddmm(V{1.5}, X_ref, Y_ref, beta, expected, options);
                            const Dense X(exec, X_ref);
                            const Dense Y(exec, Y_ref);
                            for (const auto algorithm : algorithms) {
                                // cuSPARSE may decline X and Y in different orders.
                                if (algorithm == SddmmAlgorithm::vendor && x_layout != y_layout) {
                                    continue;
                                }
                                SCOPED_TRACE(exec->name() + " " + loom::to_string(S_start.size()) +
                                             " k " + std::to_string(k) + " X " +
                                             sparse::to_string(x_layout) + " Y " +
                                             sparse::to_string(y_layout) + " " +
                                             sparse::to_string(algorithm));
                                Csr S(exec, start);
                                options.algorithm = algorithm;
                                sparse::sddmm(V{1.5}, X, Y, beta, S, options);
                                LOOM_EXPECT_NEAR_VECTORS(S.values().to_host(),
                                                         expected.values().to_host(),
                                                         this->tolerance());
                                EXPECT_EQ(S.col_idxs().to_host(), start.col_idxs().to_host());
                            }
                        }
                    }
                }
            }
        }
    }
}

TYPED_TEST(Sddmm, BadShapesRaiseAndLeaveSUntouched)
{
    LOOM_TYPED_TEST_TYPES;
    auto S = loom::test::random_csr<V, I>(this->ref, {6, 4, 2, false, true, false, 1});
    const auto before = S.values().to_host();
    const auto X = loom::test::random_dense<V>(this->ref, {6, 3}, 2);
    const auto Y = loom::test::random_dense<V>(this->ref, {4, 3}, 3);
    const auto Y_wide = loom::test::random_dense<V>(this->ref, {4, 5}, 3);
    EXPECT_THROW(sparse::sddmm(V{1}, Y, X, V{0}, S), loom::DimensionMismatch);
    EXPECT_THROW(sparse::sddmm(V{1}, X, Y_wide, V{0}, S), loom::DimensionMismatch);
    sparse::SddmmOptions col_y{SddmmAlgorithm::automatic, DenseLayout::row_major,
                               DenseLayout::col_major};
    EXPECT_THROW(sparse::sddmm(V{1}, X, Y, V{0}, S, col_y), loom::DimensionMismatch);
    sparse::SddmmOptions vendor{SddmmAlgorithm::vendor};
    EXPECT_THROW(sparse::sddmm(V{1}, X, Y, V{0}, S, vendor), loom::NotSupported);
    for (const auto& exec : loom::test::backends()) {
        if (exec->same_memory_as(*this->ref)) continue;
        const typename TestFixture::Dense X_elsewhere(exec, X);
        EXPECT_THROW(sparse::sddmm(V{1}, X_elsewhere, Y, V{0}, S), loom::BadInput);
    }
    EXPECT_EQ(S.values().to_host(), before);
    EXPECT_EQ(sparse::parse_sddmm_algorithm("vendor"), SddmmAlgorithm::vendor);
}

}  // namespace
}  // namespace loom::test
