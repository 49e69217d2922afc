// AMD: a permutation, the same on every backend, whose Cholesky factor of a 2D Poisson
// matrix has less fill than the natural order's; bad input; NotCompiled without SuiteSparse.
#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "graph/graph_support.hpp"
#include "loom/base/error.hpp"
#include "loom/graph/amd.hpp"
#include "loom/graph/rcm.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/permutation.hpp"
#include "support/executors.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


/// The number of entries strictly below the diagonal in the Cholesky factor of a matrix with
/// A's symmetrized pattern: eliminating column j adds its pattern below its first
/// off-diagonal row p to column p (the elimination tree's parent).
template <typename V, typename I>
size_type cholesky_fill(const matrix::Csr<V, I>& A)
{
    const auto graph = loom::test::adjacency(A);
    std::vector<std::set<size_type>> below(A.rows());
    for (size_type j = 0; j < A.rows(); ++j) {
        for (const auto i : graph[j]) {
            if (i > j) below[j].insert(i);
        }
    }
    size_type fill = 0;
    for (size_type j = 0; j < A.rows(); ++j) {
        fill += below[j].size();
        if (below[j].empty()) continue;
        const auto parent = *below[j].begin();
        below[parent].insert(std::next(below[j].begin()), below[j].end());
    }
    return fill;
}

template <typename T>
class Amd : public loom::test::TypedFixture<T> {};

TYPED_TEST_SUITE(Amd, loom::test::ValueIndexTypes);

TYPED_TEST(Amd, GivesAPermutationTheSameOnEveryBackend)
{
    if (!graph::amd_available()) GTEST_SKIP() << "built without SuiteSparse AMD";
    for (const auto& [name, A] :
         loom::test::awkward_graphs<typename TestFixture::V, typename TestFixture::I>(this->ref)) {
        const auto perm = graph::amd(A).to_host();
        std::vector<typename TestFixture::I> identity(A.rows());
        std::iota(identity.begin(), identity.end(), 0);
        EXPECT_TRUE(std::is_permutation(perm.begin(), perm.end(), identity.begin(), identity.end()))
            << name;
        loom::test::expect_same_order_on_backends(
            A, [](const auto& B) { return graph::amd(B); }, perm, name);
    }
}

TYPED_TEST(Amd, ReducesTheCholeskyFillOfA2DPoissonMatrix)
{
    LOOM_TYPED_TEST_TYPES;
    if (!graph::amd_available()) GTEST_SKIP() << "built without SuiteSparse AMD";
    const auto A = matrix::poisson2d<V, I>(this->ref, 30);
    const matrix::Permutation<I> reorder(this->ref, graph::amd(A));
    const auto B = reorder.permute(A);
    const auto natural = cholesky_fill(A);
    const auto reordered = cholesky_fill(B);
    // The natural order fills the whole band (about n^1.5); minimum degree about n log n.
    EXPECT_LT(reordered, natural * 3 / 4) << natural << " vs " << reordered;
    const matrix::Permutation<I> rcm(this->ref, graph::rcm(A));
    EXPECT_LT(reordered, cholesky_fill(rcm.permute(A)));
}

TYPED_TEST(Amd, RefusesANonSquareMatrix)
{
    LOOM_TYPED_TEST_TYPES;
    const auto rectangle = Csr::from_host(this->ref, {2, 3}, {0, 1, 2}, {0, 2}, {V{1}, V{1}});
    EXPECT_THROW(graph::amd(rectangle), loom::BadInput);
    EXPECT_THROW(graph::amd(Csr{}), loom::BadInput);
}

TYPED_TEST(Amd, WithoutSuiteSparseSaysNotCompiled)
{
    LOOM_TYPED_TEST_TYPES;
    if (graph::amd_available()) GTEST_SKIP() << "built with SuiteSparse AMD";
    const auto A = matrix::poisson2d<V, I>(this->ref, 3);
    EXPECT_THROW(graph::amd(A), loom::NotCompiled);
}

}  // namespace
}  // namespace loom::test
