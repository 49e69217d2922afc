// A space that runs blocks of iterations ahead of the host as on a device, on any executor,
// and the comparison of a run-ahead solve with one that checks every iteration: the tests of
// the fused run-ahead methods (CG, BiCGSTAB, the GMRES family) on host executors, and of
// their iteration counts on the other backends.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/linop.hpp"
#include "loom/blas/vector.hpp"
#include "loom/log/loggers.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/solver/solver.hpp"
#include "loom/solver/vector_space.hpp"
#include "loom/stop/criterion.hpp"
#include "solver/problems.hpp"
#include "support/random.hpp"

namespace loom::test {

/// The plain space, but running blocks of iterations ahead of the host as on a device.
class RunAheadSpace final : public solver::VectorSpace<double> {
public:
    using solver::VectorSpace<double>::VectorSpace;
    bool runs_ahead() const override { return true; }
};

class RunAheadMatrix final : public LinOp<double>, public solver::HasVectorSpace<double> {
public:
    explicit RunAheadMatrix(std::shared_ptr<const LinOp<double>> A)
        : LinOp<double>(A->executor(), A->size()),
          A_(std::move(A)),
          space_(std::make_shared<RunAheadSpace>(this->executor(), this->size().rows))
    {}
    std::shared_ptr<const solver::VectorSpace<double>> vector_space() const override
    {
        return space_;
    }

protected:
    void apply_impl(const matrix::Dense<double>& b, matrix::Dense<double>& x) const override
    {
        A_->apply(b, x);
    }
    void apply_impl(double alpha, const matrix::Dense<double>& b, double beta,
                    matrix::Dense<double>& x) const override
    {
        A_->apply(alpha, b, beta, x);
    }

private:
    std::shared_ptr<const LinOp<double>> A_;
    std::shared_ptr<RunAheadSpace> space_;
};

/// A 1 x k row of per-column scalars on exec: the fused steps' inputs and outputs.
inline matrix::Dense<double> row(std::shared_ptr<const Executor> exec, std::vector<double> values)
{
    const auto k = static_cast<size_type>(values.size());
    return matrix::Dense<double>::from_host(std::move(exec), {1, k}, values);
}

/// What a solve gave.
struct Run {
    std::vector<double> x;
    solver::SolveResult result;
    std::vector<std::vector<double>> history;
};

/// Iterations, reasons, restarts, residual histories and x: all equal.
inline void expect_same(const Run& ahead, const Run& plain)
{
    EXPECT_EQ(ahead.result.iterations, plain.result.iterations);
    EXPECT_EQ(ahead.result.reason, plain.result.reason);
    ASSERT_EQ(ahead.result.columns.size(), plain.result.columns.size());
    for (std::size_t j = 0; j < plain.result.columns.size(); ++j) {
        EXPECT_EQ(ahead.result.columns[j].reason, plain.result.columns[j].reason) << j;
        EXPECT_EQ(ahead.result.columns[j].iteration, plain.result.columns[j].iteration) << j;
    }
    EXPECT_EQ(ahead.result.restarts, plain.result.restarts);
    EXPECT_EQ(ahead.history, plain.history);
    EXPECT_EQ(ahead.x, plain.x);
}

/// Solves b from x0 (on x0's executor) with s, keeping the residual history.
inline Run run(solver::IterativeSolver<double>& s, const matrix::Dense<double>& b,
               const matrix::Dense<double>& x0)
{
    auto logger = std::make_shared<log::ConvergenceLogger>();
    s.add_logger(logger);
    matrix::Dense<double> x(x0.executor(), x0);
    s.apply(b, x);
    return {x.to_host(), s.result(), logger->residual_history()};
}

/// One method, configured: solves A x = b from x0 with preconditioner M (or none) to criteria.
using Solve = std::function<Run(std::shared_ptr<const LinOp<double>> A,
                                std::shared_ptr<const LinOp<double>> M,
                                std::shared_ptr<const stop::Criterion> criteria,
                                const matrix::Dense<double>& b, const matrix::Dense<double>& x0)>;

/// Three right-hand sides for an n-row system whose columns converge at different
/// iterations: a random one, a zero one, a random one scaled by 1e-3.
inline matrix::Dense<double> staggered_rhs(std::shared_ptr<const Executor> exec, size_type n)
{
    auto b = random_dense<double>(std::move(exec), {n, 3}, 7);
    auto b1 = b.column(1);
    blas::fill(b1, 0.0);
    auto b2 = b.column(2);
    blas::scal(1e-3, b2);
    return b;
}

/// Stopping rules decided on the executor (a tolerance; a reduction with a floor; an
/// iteration count) and one the host decides, looking at every iteration (a time limit).
inline std::vector<std::shared_ptr<const stop::Criterion>> run_ahead_criteria()
{
    return {
        stop::max_iterations(200) | stop::relative_residual(1e-10),
        stop::max_iterations(200) | stop::residual_reduction(1e-6) | stop::absolute_residual(1e-9),
        stop::max_iterations(7),
        stop::time_limit(std::chrono::hours(1)) | stop::relative_residual(1e-8),
    };
}

/// Solving the first k columns of b from x0 through a RunAheadMatrix of A gives bit for bit
/// what solving with A gives; returns the plain run.
inline Run expect_ahead_as_plain(const Solve& solve, std::shared_ptr<const LinOp<double>> A,
                                 std::shared_ptr<const LinOp<double>> M,
                                 std::shared_ptr<const stop::Criterion> criteria,
                                 matrix::Dense<double>& b, matrix::Dense<double>& x0, size_type k)
{
    const auto bk = b.columns(0, k);
    const auto xk = x0.columns(0, k);
    auto plain = solve(A, M, criteria, bk, xk);
    expect_same(solve(std::make_shared<RunAheadMatrix>(A), M, criteria, bk, xk), plain);
    return plain;
}

/// On exec, solve takes the reference's iterations and reasons per column on csr (held on
/// the reference), with and without Jacobi, for 1 and 3 right-hand sides.
inline void expect_reference_iterations(std::shared_ptr<const Executor> exec,
                                        std::shared_ptr<const matrix::Csr<double>> csr,
                                        const Solve& solve)
{
    using Dense = matrix::Dense<double>;
    const auto ref = csr->executor();
    const auto n = csr->size().rows;
    auto b = random_dense<double>(ref, {n, 3}, 9);
    auto x0 = random_dense<double>(ref, {n, 3}, 10);
    const auto criteria = stop::max_iterations(500) | stop::relative_residual(1e-9);
    const auto A = std::make_shared<matrix::Csr<double>>(exec, *csr);
    for (const bool jacobi : {false, true}) {
        for (const size_type k : {1, 3}) {
            SCOPED_TRACE(exec->name() + (jacobi ? " + jacobi, " : ", ") + std::to_string(k));
            const auto expected = solve(csr, jacobi ? inverse_diagonal(*csr) : nullptr, criteria,
                                        b.columns(0, k), x0.columns(0, k));
            const auto actual = solve(A, jacobi ? inverse_diagonal(*A) : nullptr, criteria,
                                      Dense(exec, b.columns(0, k)), Dense(exec, x0.columns(0, k)));
            ASSERT_TRUE(expected.result.converged());
            for (std::size_t j = 0; j < expected.result.columns.size(); ++j) {
                EXPECT_EQ(actual.result.columns[j].iteration, expected.result.columns[j].iteration);
                EXPECT_EQ(actual.result.columns[j].reason, expected.result.columns[j].reason);
            }
            LOOM_EXPECT_NEAR_VECTORS(actual.x, expected.x, 1e-8);
        }
    }
}

}  // namespace loom::test
