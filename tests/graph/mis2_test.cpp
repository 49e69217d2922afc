// MIS-2 and its aggregation: the set is independent at distance 2 and maximal, the same on
// every backend, thread count and run; every vertex has an aggregate whose root is within
// distance 2; the coarse graph is P^T A P; bad input is refused.
#include <map>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "graph/graph_support.hpp"
#include "loom/base/error.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/matrix/io.hpp"
#include "support/executors.hpp"
#include "support/shared_matrices.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::graph::Mis2Mode;
using loom::graph::Mis2Options;

const std::vector<Mis2Options> all_options{{Mis2Mode::fast, false}, {Mis2Mode::quality, false}};

template <typename T>
class Mis2 : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr;

    /// No two set vertices within distance 2; every other vertex within distance 2 of one.
    static void expect_maximal_independent(const Csr& A, const std::vector<I>& set,
                                           const std::string& name)
    {
        const auto adjacency = loom::test::adjacency(A);
        EXPECT_TRUE(std::is_sorted(set.begin(), set.end())) << name;
        std::vector<int> in_set(A.rows(), 0);
        for (const auto v : set) {
            ASSERT_GE(v, 0) << name;
            ASSERT_LT(v, A.rows()) << name;
            in_set[v] = 1;
        }
        std::vector<int> covered(A.rows(), 0);
        for (const auto v : set) {
            for (const auto u : loom::test::within_2(adjacency, v)) {
                EXPECT_TRUE(u == v || !in_set[u])
                    << name << ": set vertices " << v << " and " << u << " within distance 2";
                covered[u] = 1;
            }
        }
        for (size_type v = 0; v < A.rows(); ++v) {
            EXPECT_TRUE(covered[v]) << name << ": vertex " << v << " could join the set";
        }
    }

    /// Every vertex in an aggregate whose root is within distance 2; the roots are the set.
    static void expect_valid_aggregation(const Csr& A, const graph::Aggregation<I>& aggregation,
                                         const std::vector<I>& set, const std::string& name)
    {
        const auto adjacency = loom::test::adjacency(A);
        const auto aggregate_of = aggregation.aggregate_of.to_host();
        const auto roots = aggregation.roots.to_host();
        EXPECT_EQ(roots, set) << name;
        ASSERT_EQ(static_cast<size_type>(aggregate_of.size()), A.rows()) << name;
        for (size_type a = 0; a < aggregation.count(); ++a) {
            EXPECT_EQ(aggregate_of[roots[a]], a) << name << ": root " << roots[a];
        }
        for (size_type v = 0; v < A.rows(); ++v) {
            const auto a = aggregate_of[v];
            ASSERT_GE(a, 0) << name << ": vertex " << v << " has no aggregate";
            ASSERT_LT(a, aggregation.count()) << name;
            const auto near = loom::test::within_2(adjacency, roots[a]);
            EXPECT_TRUE(std::binary_search(near.begin(), near.end(), v))
                << name << ": vertex " << v << " is farther than 2 from its root " << roots[a];
        }
    }

    /// P^T A P computed densely on the host.
    static std::vector<V> dense_coarse(const Csr& A, const std::vector<I>& aggregate_of,
                                       size_type count)
    {
        std::vector<V> result(count * count, V{0});
        const auto ptrs = A.row_ptrs().to_host();
        const auto cols = A.col_idxs().to_host();
        const auto values = A.values().to_host();
        for (size_type r = 0; r < A.rows(); ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                result[aggregate_of[r] * count + aggregate_of[cols[k]]] += values[k];
            }
        }
        return result;
    }
};

TYPED_TEST_SUITE(Mis2, loom::test::ValueIndexTypes);

TYPED_TEST(Mis2, IsMaximalAndIndependentAtDistance2)
{
    for (const auto& [name, A] :
         loom::test::awkward_graphs<typename TestFixture::V, typename TestFixture::I>(this->ref)) {
        for (const auto& options : all_options) {
            const auto set = graph::mis2(A, options).to_host();
            this->expect_maximal_independent(A, set, name + " " + to_string(options.mode));
        }
    }
}

TYPED_TEST(Mis2, IsTheSameOnEveryBackendAndThreadCount)
{
    using Csr = typename TestFixture::Csr;
    auto executors = loom::test::backends();
    if (loom::OmpExecutor::available()) {
        executors.push_back(loom::OmpExecutor::create(1));
        executors.push_back(loom::OmpExecutor::create(3));
    }
    for (const auto& [name, A] :
         loom::test::awkward_graphs<typename TestFixture::V, typename TestFixture::I>(this->ref)) {
        for (const auto& options : all_options) {
            const auto expected = graph::mis2(A, options).to_host();
            const auto aggregation = graph::mis2_aggregation(A, options);
            const auto expected_aggregates = aggregation.aggregate_of.to_host();
            const auto expected_coarse = graph::coarse_graph(A, aggregation);
            EXPECT_EQ(graph::mis2(A, options).to_host(), expected) << name << ": a second run";
            for (const auto& exec : executors) {
                const Csr B(exec, A);
                const auto where = name + " on " + exec->name() + " " + to_string(options.mode);
                EXPECT_EQ(graph::mis2(B, options).to_host(), expected) << where;
                const auto other = graph::mis2_aggregation(B, options);
                EXPECT_EQ(other.aggregate_of.to_host(), expected_aggregates) << where;
                const auto coarse = graph::coarse_graph(B, other);
                EXPECT_EQ(coarse.row_ptrs().to_host(), expected_coarse.row_ptrs().to_host())
                    << where;
                EXPECT_EQ(coarse.col_idxs().to_host(), expected_coarse.col_idxs().to_host())
                    << where;
                EXPECT_EQ(coarse.values().to_host(), expected_coarse.values().to_host()) << where;
            }
        }
    }
}

TYPED_TEST(Mis2, SymmetricPromiseGivesTheSameSetOnSymmetricPatterns)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = matrix::poisson3d<V, I>(this->ref, 10);
    for (const auto mode : {Mis2Mode::fast, Mis2Mode::quality}) {
        EXPECT_EQ(graph::mis2(A, {mode, true}).to_host(), graph::mis2(A, {mode, false}).to_host());
    }
}

TYPED_TEST(Mis2, AggregationCoversEveryVertexWithOneRootWithinDistance2)
{
    for (const auto& [name, A] :
         loom::test::awkward_graphs<typename TestFixture::V, typename TestFixture::I>(this->ref)) {
        for (const auto& options : all_options) {
            const auto aggregation = graph::mis2_aggregation(A, options);
            this->expect_valid_aggregation(A, aggregation, graph::mis2(A, options).to_host(), name);
        }
    }
}

TYPED_TEST(Mis2, CoarseGraphIsGalerkinProductOfTheAggregation)
{
    using V = typename TestFixture::V;
    for (const auto& [name, A] :
         loom::test::awkward_graphs<V, typename TestFixture::I>(this->ref)) {
        const auto aggregation = graph::mis2_aggregation(A);
        const auto coarse = graph::coarse_graph(A, aggregation);
        const auto count = aggregation.count();
        ASSERT_EQ(coarse.size(), (loom::dim2{count, count})) << name;
        const auto expected = this->dense_coarse(A, aggregation.aggregate_of.to_host(), count);
        const auto ptrs = coarse.row_ptrs().to_host();
        const auto cols = coarse.col_idxs().to_host();
        const auto values = coarse.values().to_host();
        std::vector<V> actual(count * count, V{0});
        std::vector<int> stored(count * count, 0);
        for (size_type r = 0; r < count; ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                if (k > ptrs[r]) {
                    EXPECT_LT(cols[k - 1], cols[k]) << name << ": row " << r;
                }
                actual[r * count + cols[k]] = values[k];
                stored[r * count + cols[k]] = 1;
            }
        }
        LOOM_EXPECT_NEAR_VECTORS(actual, expected, loom::test::tolerance<V>());
        // The pattern is P^T pattern(A) P: an entry wherever two aggregates are connected.
        const auto a_ptrs = A.row_ptrs().to_host();
        const auto a_cols = A.col_idxs().to_host();
        const auto aggregate_of = aggregation.aggregate_of.to_host();
        for (size_type r = 0; r < A.rows(); ++r) {
            for (auto k = a_ptrs[r]; k < a_ptrs[r + 1]; ++k) {
                EXPECT_TRUE(stored[aggregate_of[r] * count + aggregate_of[a_cols[k]]]) << name;
            }
        }
    }
}

TYPED_TEST(Mis2, QualityModeGivesNoSmallerSetsOnPoisson)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = matrix::poisson3d<V, I>(this->ref, 16);
    const auto fast = graph::mis2(A, {Mis2Mode::fast}).size();
    const auto quality = graph::mis2(A, {Mis2Mode::quality}).size();
    EXPECT_GE(quality, fast);
}

TYPED_TEST(Mis2, WorksOnSharedMatrices)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    for (const std::string name : {"bcsstk01", "can_838", "dwt_992", "lund_a", "add32"}) {
        if (!loom::test::have_shared_matrix(name)) continue;
        const auto A = matrix::read_csr<V, I>(this->ref, loom::test::shared_matrix_path(name));
        const auto set = graph::mis2(A).to_host();
        this->expect_maximal_independent(A, set, name);
        this->expect_valid_aggregation(A, graph::mis2_aggregation(A), set, name);
        for (const auto& exec : loom::test::backends()) {
            const matrix::Csr<V, I> B(exec, A);
            EXPECT_EQ(graph::mis2(B).to_host(), set) << name << " on " << exec->name();
        }
    }
}

TYPED_TEST(Mis2, RefusesBadInput)
{
    LOOM_TYPED_TEST_TYPES;
    const auto rectangle = Csr::from_host(this->ref, {2, 3}, {0, 1, 2}, {0, 2}, {V{1}, V{1}});
    EXPECT_THROW(graph::mis2(rectangle), loom::BadInput);
    EXPECT_THROW(graph::mis2_aggregation(rectangle), loom::BadInput);
    EXPECT_THROW(graph::mis2(Csr{}), loom::BadInput);
    const auto A = matrix::poisson2d<V, I>(this->ref, 4);
    const auto small = matrix::poisson2d<V, I>(this->ref, 3);
    const auto aggregation = graph::mis2_aggregation(small);
    EXPECT_THROW(graph::coarse_graph(A, aggregation), loom::BadInput);
    EXPECT_THROW(graph::parse_mis2_mode("slow"), loom::BadInput);
    EXPECT_EQ(graph::parse_mis2_mode("quality"), Mis2Mode::quality);
}

TYPED_TEST(Mis2, CudaMatchesTheReferenceOnALargePoissonMatrix)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A = matrix::poisson3d<V, I>(this->ref, 40);
    const matrix::Csr<V, I> B(cuda, A);
    for (const auto& options : all_options) {
        EXPECT_EQ(graph::mis2(B, options).to_host(), graph::mis2(A, options).to_host());
        EXPECT_EQ(graph::mis2_aggregation(B, options).aggregate_of.to_host(),
                  graph::mis2_aggregation(A, options).aggregate_of.to_host());
    }
}

}  // namespace
}  // namespace loom::test
