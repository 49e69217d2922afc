#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "loom/log/loggers.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/solver/solvers.hpp"
#include "support/executors.hpp"

namespace {

using namespace loom;

/// The 1D Laplacian, n x n.
std::shared_ptr<matrix::Csr<double>> laplacian(size_type n)
{
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> vals;
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = std::max<size_type>(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
            cols.push_back(static_cast<int32>(j));
            vals.push_back(i == j ? 2.0 : -1.0);
        }
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    return std::make_shared<matrix::Csr<double>>(
        matrix::Csr<double>::from_host(test::reference(), {n, n}, ptrs, cols, vals));
}

struct Problem {
    std::shared_ptr<matrix::Csr<double>> A = laplacian(20);
    matrix::Dense<double> b{test::reference(), dim2{20, 1}};
    matrix::Dense<double> x{test::reference(), dim2{20, 1}};
    Problem()
    {
        b.fill(1.0);
        x.fill(0.0);
    }
};

std::shared_ptr<const stop::Criterion> criteria()
{
    return stop::max_iterations(100) | stop::relative_residual(1e-10);
}

TEST(Loggers, ConvergenceLoggerKeepsTheHistory)
{
    Problem p;
    auto convergence = std::make_shared<log::ConvergenceLogger>();
    auto cg = solver::Cg<double>::build()
                  .with_criteria(criteria())
                  .with_loggers(convergence)
                  .on(test::reference())
                  ->generate(p.A);
    cg->apply(p.b, p.x);
    const auto iterations = cg->result().iterations;
    ASSERT_GT(iterations, 0);
    EXPECT_EQ(convergence->iterations(), iterations);
    ASSERT_EQ(convergence->residual_history().size(), static_cast<std::size_t>(iterations + 1));
    EXPECT_DOUBLE_EQ(convergence->residual_history().front()[0], std::sqrt(20.0));
    EXPECT_EQ(convergence->final_residual_norms(), cg->result().residual_norms);
    ASSERT_TRUE(convergence->result().has_value());
    EXPECT_TRUE(convergence->result()->converged());
}

TEST(Loggers, ConvergenceLoggerFollowsTheOuterSolver)
{
    Problem p;
    auto convergence = std::make_shared<log::ConvergenceLogger>();
    auto inner = solver::Cg<double>::build()
                     .with_criteria(stop::max_iterations(3))
                     .with_loggers(convergence)
                     .on(test::reference());
    auto ir = solver::Ir<double>::build()
                  .with_solver(inner)
                  .with_criteria(criteria())
                  .with_loggers(convergence)
                  .on(test::reference())
                  ->generate(p.A);
    ir->apply(p.b, p.x);
    EXPECT_EQ(convergence->iterations(), ir->result().iterations);
    EXPECT_EQ(convergence->residual_history().size(),
              static_cast<std::size_t>(ir->result().iterations + 1));
}

TEST(Loggers, RecordLoggerSeesSolverOperatorAndCriterionEvents)
{
    Problem p;
    auto record = std::make_shared<log::RecordLogger>();
    auto crit = stop::max_iterations(5);
    crit->add_logger(record);
    p.A->add_logger(record);
    auto cg = solver::Cg<double>::build()
                  .with_criteria(crit)
                  .with_loggers(record)
                  .on(test::reference())
                  ->generate(p.A);
    cg->apply(p.b, p.x);
    using log::EventKind;
    EXPECT_EQ(record->count(EventKind::solve_started), 1u);
    EXPECT_EQ(record->count(EventKind::solve_finished), 1u);
    EXPECT_EQ(record->count(EventKind::iteration), 6u);          // iterations 0..5
    EXPECT_EQ(record->count(EventKind::criterion_checked), 6u);
    // A: once for the initial residual and once per iteration; plus the solver's own apply.
    EXPECT_EQ(record->count(EventKind::apply_started), 5u + 1u + 1u);
    EXPECT_EQ(record->count(EventKind::apply_finished), 7u);
    EXPECT_EQ(record->records().front().kind, EventKind::apply_started);
    EXPECT_EQ(record->records().front().source, cg.get());
    const auto& last = record->records().back();
    EXPECT_EQ(last.kind, EventKind::apply_finished);
    const auto& end = record->records()[record->records().size() - 2];
    ASSERT_EQ(end.kind, EventKind::solve_finished);
    ASSERT_TRUE(end.result.has_value());
    EXPECT_EQ(end.result->reason, stop::Reason::iteration_limit);

    auto limited = std::make_shared<log::RecordLogger>(3);
    cg->add_logger(limited);
    cg->apply(p.b, p.x);
    EXPECT_EQ(limited->records().size(), 3u);
    EXPECT_EQ(limited->records().back().kind, EventKind::apply_finished);
}

TEST(Loggers, StreamLoggerWritesReadableLines)
{
    Problem p;
    std::ostringstream out;
    auto stream = std::make_shared<log::StreamLogger>(out, log::StreamLogger::all);
    auto cg = solver::Cg<double>::build()
                  .with_criteria(criteria())
                  .with_loggers(stream)
                  .on(test::reference())
                  ->generate(p.A);
    cg->apply(p.b, p.x);
    const auto text = out.str();
    EXPECT_NE(text.find("[loom] cg: solving a 20x20 system"), std::string::npos) << text;
    EXPECT_NE(text.find("cg: iteration 0: residual norm 4.472e+00"), std::string::npos) << text;
    EXPECT_NE(text.find("cg: converged after"), std::string::npos) << text;
    EXPECT_NE(text.find("apply started: loom::solver::Cg<double>"), std::string::npos) << text;

    std::ostringstream quiet;
    auto solves_only = std::make_shared<log::StreamLogger>(quiet, log::StreamLogger::solves);
    cg->add_logger(solves_only);
    p.x.fill(0.0);
    cg->apply(p.b, p.x);
    EXPECT_EQ(quiet.str().find("iteration 1:"), std::string::npos);
    EXPECT_NE(quiet.str().find("converged after"), std::string::npos);
}

TEST(Loggers, NothingIsAttachedByDefault)
{
    Problem p;
    auto cg = solver::Cg<double>::build().with_criteria(criteria()).on(test::reference())->generate(p.A);
    EXPECT_FALSE(cg->has_loggers());
    EXPECT_FALSE(p.A->has_loggers());
    auto record = std::make_shared<log::RecordLogger>();
    cg->add_logger(record);
    cg->add_logger(nullptr);  // ignored
    EXPECT_EQ(cg->loggers().size(), 1u);
    cg->remove_logger(record.get());
    EXPECT_FALSE(cg->has_loggers());
}

}  // namespace
