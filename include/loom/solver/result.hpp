// What an iterative solve did: per right-hand side, why and when it stopped and at which
// residual norm. Solvers keep the result of their last apply (IterativeSolver::result()).
#pragma once

#include <string>
#include <vector>

#include "loom/base/types.hpp"
#include "loom/stop/status.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

struct SolveResult {
    /// converged when every column converged, otherwise the reason of the first column that
    /// did not (running only before the first solve).
    stop::Reason reason = stop::Reason::running;
    /// The detail text of that column (criterion or broken-down quantity).
    const char* detail = "";
    /// Iterations done: the most any column took.
    size_type iterations = 0;
    /// Per right-hand side.
    std::vector<stop::ColumnStatus> columns;
    /// Residual norm ||b - A x|| of each column when it stopped, as estimated by the solver's
    /// recurrence (the true residual may differ by rounding).
    std::vector<double> residual_norms;
    std::vector<double> initial_residual_norms;
    std::vector<double> rhs_norms;
    /// Wall-clock time of the solve.
    double seconds = 0;

    bool converged() const noexcept { return reason == stop::Reason::converged; }
    /// Residual norm of column j relative to ||b_j|| (its absolute norm when b_j is zero).
    double relative_residual_norm(size_type j = 0) const;
    /// One line: "converged after 42 iterations (relative residual 3.1e-09)" or
    /// "column 2: breakdown (rho = 0) at iteration 7".
    std::string message() const;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
