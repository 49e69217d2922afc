// RCM: a permutation, the same on every backend, that brings a randomly renumbered Poisson
// matrix back to a small bandwidth; the bandwidth and profile helpers; bad input.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "graph/graph_support.hpp"
#include "loom/base/error.hpp"
#include "loom/graph/rcm.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/matrix/permutation.hpp"
#include "support/executors.hpp"
#include "support/graphs.hpp"
#include "support/shared_matrices.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


template <typename T>
class Rcm : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::I;

    static void expect_permutation(const std::vector<I>& perm, size_type n, const std::string& name)
    {
        ASSERT_EQ(static_cast<size_type>(perm.size()), n) << name;
        auto sorted = perm;
        std::sort(sorted.begin(), sorted.end());
        for (size_type k = 0; k < n; ++k) ASSERT_EQ(sorted[k], k) << name;
    }
};

TYPED_TEST_SUITE(Rcm, loom::test::ValueIndexTypes);

TYPED_TEST(Rcm, GivesAPermutationTheSameOnEveryBackend)
{
    for (const auto& [name, A] :
         loom::test::awkward_graphs<typename TestFixture::V, typename TestFixture::I>(this->ref)) {
        const auto perm = graph::rcm(A).to_host();
        this->expect_permutation(perm, A.rows(), name);
        loom::test::expect_same_order_on_backends(
            A, [](const auto& B) { return graph::rcm(B); }, perm, name);
    }
}

TYPED_TEST(Rcm, RestoresASmallBandwidthToARenumberedPoissonMatrix)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto& exec : loom::test::backends()) {
        const size_type n = 12;
        const auto A = matrix::poisson3d<V, I>(exec, n);
        const matrix::Permutation<I> scramble(
            exec, loom::Array<I>(exec, loom::test::random_permutation<I>(A.rows(), 3)));
        const auto scrambled = scramble.permute(A);
        const matrix::Permutation<I> reorder(exec, graph::rcm(scrambled));
        const auto B = reorder.permute(scrambled);
        EXPECT_GT(graph::bandwidth(scrambled), A.rows() / 2);
        // Level sets of a 3D grid from a corner hold at most about 3/4 n^2 + ... vertices.
        EXPECT_LE(graph::bandwidth(B), 2 * n * n) << exec->name();
        EXPECT_LT(graph::profile(B), graph::profile(scrambled) / 4) << exec->name();
    }
}

TYPED_TEST(Rcm, ReducesTheBandwidthOfRenumberedSharedMatrices)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    for (const std::string name : {"can_838", "dwt_992", "bcsstk09", "lund_a"}) {
        if (!loom::test::have_shared_matrix(name)) continue;
        const auto A = matrix::read_csr<V, I>(this->ref, loom::test::shared_matrix_path(name));
        const matrix::Permutation<I> scramble(
            this->ref, loom::Array<I>(this->ref, loom::test::random_permutation<I>(A.rows(), 7)));
        const auto scrambled = scramble.permute(A);
        const matrix::Permutation<I> reorder(this->ref, graph::rcm(scrambled));
        const auto B = reorder.permute(scrambled);
        EXPECT_LT(graph::bandwidth(B), graph::bandwidth(scrambled) / 2) << name;
        EXPECT_LT(graph::profile(B), graph::profile(scrambled) / 2) << name;
    }
}

TYPED_TEST(Rcm, OrdersEachComponentAndAPathEndToEnd)
{
    LOOM_TYPED_TEST_TYPES;
    // Two paths 0-2-4-6 and 1-3-5 (interleaved numbering), plus an isolated vertex 7.
    const std::vector<std::pair<I, I>> edges{{0, 2}, {2, 4}, {4, 6}, {1, 3}, {3, 5}};
    const auto A = loom::test::undirected_graph<V, I>(this->ref, 8, edges);
    const auto perm = graph::rcm(A).to_host();
    this->expect_permutation(perm, 8, "paths");
    const matrix::Permutation<I> P(this->ref, loom::Array<I>(this->ref, perm));
    EXPECT_EQ(graph::bandwidth(P.permute(A)), 1);
    EXPECT_EQ(graph::bandwidth(A), 2);
}

TYPED_TEST(Rcm, BandwidthAndProfileOfKnownMatrices)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = matrix::poisson2d<V, I>(this->ref, 5);
    EXPECT_EQ(graph::bandwidth(A), 5);
    // Rows 1..4 of the first grid row reach back 1, every row of a later one reaches back 5.
    EXPECT_EQ(graph::profile(A), 4 * 1 + 20 * 5);
    const auto empty = matrix::Csr<V, I>(this->ref, {0, 0});
    EXPECT_EQ(graph::bandwidth(empty), 0);
    EXPECT_EQ(graph::profile(empty), 0);
}

TYPED_TEST(Rcm, RefusesANonSquareMatrix)
{
    LOOM_TYPED_TEST_TYPES;
    const auto rectangle = Csr::from_host(this->ref, {2, 3}, {0, 1, 2}, {0, 2}, {V{1}, V{1}});
    EXPECT_THROW(graph::rcm(rectangle), loom::BadInput);
    EXPECT_THROW(graph::rcm(Csr{}), loom::BadInput);
}

}  // namespace
}  // namespace loom::test
