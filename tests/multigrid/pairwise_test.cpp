// Pairwise (PGM-style) aggregation in solver::Multigrid: valid aggregates of at most 2^passes
// connected rows, the same on every backend, and AMG-CG that converges with it, smoothed or
// plain.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/solver/solvers.hpp"
#include "support/executors.hpp"

namespace {

using namespace loom;
using Csr = matrix::Csr<double, int32>;
using Dense = matrix::Dense<double>;
using Amg = solver::Multigrid<double, int32>;

std::vector<std::shared_ptr<const Executor>> all_executors()
{
    auto executors = test::backends();
    executors.insert(executors.begin(), test::reference());
    return executors;
}

std::shared_ptr<const Csr> poisson3d(std::shared_ptr<const Executor> exec, size_type n)
{
    return std::make_shared<const Csr>(matrix::poisson3d<double, int32>(exec, n));
}

std::shared_ptr<const Csr> poisson2d(std::shared_ptr<const Executor> exec, size_type n)
{
    return std::make_shared<const Csr>(matrix::poisson2d<double, int32>(exec, n));
}

std::vector<int32> host(const Array<int32>& a)
{
    return Array<int32>(test::reference(), a).to_host();
}

std::shared_ptr<const Amg> pairwise(std::shared_ptr<const Csr> A, int passes, bool smoothing)
{
    return Amg::build()
        .with_aggregation(solver::MultigridAggregation::pairwise)
        .with_pairwise_passes(passes)
        .with_smoothing(smoothing)
        .with_coarse_size(20)
        .on(A->executor())
        ->generate(A);
}

/// Every row in one aggregate, aggregates numbered in the order of their roots (a row of
/// each), of at most `largest` rows, each connected through A's entries inside it.
void expect_valid_aggregates(const Csr& A_any, const graph::Aggregation<int32>& aggregation,
                             size_type largest)
{
    const Csr A(test::reference(), A_any);
    const auto aggregate_of = host(aggregation.aggregate_of);
    const auto roots = host(aggregation.roots);
    const auto count = static_cast<int32>(roots.size());
    ASSERT_EQ(aggregate_of.size(), static_cast<std::size_t>(A.rows()));
    std::vector<std::vector<int32>> members(roots.size());
    for (int32 v = 0; v < A.rows(); ++v) {
        ASSERT_GE(aggregate_of[v], 0);
        ASSERT_LT(aggregate_of[v], count);
        members[aggregate_of[v]].push_back(v);
    }
    const auto* ptrs = A.row_ptrs().data();
    const auto* cols = A.col_idxs().data();
    for (int32 a = 0; a < count; ++a) {
        const auto& rows = members[a];
        ASSERT_FALSE(rows.empty()) << "aggregate " << a;
        EXPECT_LE(static_cast<size_type>(rows.size()), largest) << "aggregate " << a;
        ASSERT_GE(roots[a], 0);
        ASSERT_LT(roots[a], A.rows());
        EXPECT_EQ(aggregate_of[roots[a]], a) << "aggregate " << a;
        if (a > 0) EXPECT_LT(roots[a - 1], roots[a]);
        // Connected: a search from the root inside the aggregate reaches every member.
        std::vector<int32> reached{roots[a]};
        for (std::size_t next = 0; next < reached.size(); ++next) {
            const auto r = reached[next];
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                const auto c = cols[k];
                if (aggregate_of[c] == a &&
                    std::find(reached.begin(), reached.end(), c) == reached.end()) {
                    reached.push_back(c);
                }
            }
        }
        EXPECT_EQ(reached.size(), rows.size()) << "aggregate " << a << " is not connected";
    }
}

TEST(MultigridPairwise, AggregatesAreValid)
{
    for (const int passes : {1, 2, 3}) {
        for (const auto& A : {poisson2d(test::reference(), 17), poisson3d(test::reference(), 7)}) {
            SCOPED_TRACE(std::to_string(passes) + " passes, " + std::to_string(A->rows()) +
                         " rows");
            const auto amg = pairwise(A, passes, false);
            ASSERT_GE(amg->num_levels(), 2);
            // A pass pairs vertices, and a vertex left without an unmatched neighbour joins a
            // neighbouring pair, so aggregates exceed 2^passes rows a little (measured here:
            // 4, 11 and 19 rows at most for 1, 2 and 3 passes).
            const size_type largest = size_type{4} << passes;
            for (size_type k = 0; k + 1 < amg->num_levels(); ++k) {
                SCOPED_TRACE("level " + std::to_string(k));
                expect_valid_aggregates(amg->level_matrix(k), amg->aggregation(k), largest);
                // The matching pairs most rows: every pass at least halves the level, up to
                // the few left alone (small levels have too few rows to tell).
                const auto rows = amg->level_matrix(k).rows();
                const auto coarse = amg->level_matrix(k + 1).rows();
                if (rows >= 100) {
                    EXPECT_LE(static_cast<double>(coarse),
                              1.1 * static_cast<double>(rows) / (1 << passes))
                        << rows << " -> " << coarse;
                }
            }
        }
    }
}

TEST(MultigridPairwise, SameAggregatesOnEveryBackend)
{
    const auto reference = pairwise(poisson3d(test::reference(), 7), 2, true);
    for (const auto& exec : test::backends()) {
        SCOPED_TRACE(exec->name());
        const auto amg = pairwise(poisson3d(exec, 7), 2, true);
        ASSERT_EQ(amg->num_levels(), reference->num_levels());
        for (size_type k = 0; k + 1 < amg->num_levels(); ++k) {
            EXPECT_EQ(host(amg->aggregation(k).aggregate_of),
                      host(reference->aggregation(k).aggregate_of))
                << "level " << k;
            EXPECT_EQ(host(amg->aggregation(k).roots), host(reference->aggregation(k).roots));
            EXPECT_EQ(amg->level_info(k + 1).nnz, reference->level_info(k + 1).nnz);
        }
    }
}

/// CG to 1e-8 preconditioned by `amg` on A; its iterations.
size_type cg_iterations(std::shared_ptr<const Csr> A,
                        std::shared_ptr<const LinOpFactory<double>> amg)
{
    const auto& exec = A->executor();
    auto cg = solver::Cg<double>::build()
                  .with_criteria(stop::max_iterations(500), stop::relative_residual(1e-8))
                  .with_preconditioner(amg)
                  .on(exec)
                  ->generate(A);
    Dense b(exec, dim2{A->rows(), 1});
    b.fill(1.0);
    Dense x(exec, dim2{A->rows(), 1});
    x.fill(0.0);
    cg->apply(b, x);
    EXPECT_TRUE(cg->result().converged()) << cg->result().message();
    return cg->result().iterations;
}

TEST(MultigridPairwise, CgConvergesOnPoisson)
{
    struct Case {
        bool smoothing;
        size_type bound_2d;  ///< Poisson 2D 32^2: measured (8, plain 18) + margin
        size_type bound_3d;  ///< Poisson 3D 12^3: measured (7, plain 11) + margin
    };
    for (const auto& exec : test::backends()) {
        for (const Case c : {Case{true, 11, 10}, Case{false, 24, 15}}) {
            SCOPED_TRACE(exec->name() + (c.smoothing ? " smoothed" : " plain"));
            const auto amg = Amg::build()
                                 .with_aggregation(solver::MultigridAggregation::pairwise)
                                 .with_smoothing(c.smoothing)
                                 .with_coarse_size(40)
                                 .on(exec);
            EXPECT_LE(cg_iterations(poisson2d(exec, 32), amg), c.bound_2d);
            EXPECT_LE(cg_iterations(poisson3d(exec, 12), amg), c.bound_3d);
        }
    }
}

TEST(MultigridPairwise, OptionsAndConfig)
{
    EXPECT_EQ(solver::parse_multigrid_aggregation("pairwise"),
              solver::MultigridAggregation::pairwise);
    EXPECT_EQ(solver::parse_multigrid_aggregation("pgm"), solver::MultigridAggregation::pairwise);
    EXPECT_EQ(solver::parse_multigrid_aggregation("mis2"), solver::MultigridAggregation::mis2);
    EXPECT_THROW(solver::parse_multigrid_aggregation("triples"), BadInput);
    EXPECT_THROW(Amg::build().with_pairwise_passes(0), BadInput);
    EXPECT_THROW(Amg::build().with_pairwise_passes(9), BadInput);

    const auto exec = test::reference();
    const auto A = poisson2d(exec, 12);
    const auto factory = solver::from_config<double, int32>(
        R"({"solver": "cg", "criteria": {"max_iters": 100, "relative_residual": 1e-8},
            "preconditioner": {"type": "amg", "aggregation": "pairwise", "pairwise_passes": 1,
                               "smoothing": false, "coarse_size": 10}})",
        exec);
    const auto solver = factory->generate(A);
    const auto* amg = dynamic_cast<const Amg*>(solver->preconditioner().get());
    ASSERT_NE(amg, nullptr);
    EXPECT_EQ(amg->parameters().aggregation, solver::MultigridAggregation::pairwise);
    EXPECT_EQ(amg->parameters().pairwise_passes, 1);
    EXPECT_FALSE(amg->parameters().smoothing);
    // Plain aggregation: P is P_tent, one entry per row.
    EXPECT_EQ(amg->prolongator(0).nnz(), A->rows());
    const auto zero_passes =
        R"({"solver": "cg", "preconditioner": {"type": "amg", "pairwise_passes": 0}})";
    EXPECT_THROW((solver::from_config<double, int32>(zero_passes, exec)), BadInput);
}

}  // namespace
