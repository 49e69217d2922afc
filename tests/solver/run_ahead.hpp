// A space that runs blocks of iterations ahead of the host as on a device, on any executor,
// and the comparison of a run-ahead solve with one that checks every iteration: the tests of
// the fused run-ahead methods (CG, BiCGSTAB) on host executors.
#pragma once

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/linop.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/solver/solver.hpp"
#include "loom/solver/vector_space.hpp"

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

}  // namespace loom::test
