// What a solve reports: why each right-hand side stopped (stop::Reason, stop::ColumnStatus,
// kept per column) and the outcome of the whole solve (solver::SolveResult, which solvers
// keep for their last apply: IterativeSolver::result()). Plain data, defined here below the
// loggers that report it, so that the log layer - which base/ includes - needs nothing from
// stop/ or solver/; those include this header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/base/types.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::stop {

enum class Reason : std::uint8_t {
    running,          ///< not stopped yet
    converged,        ///< a residual-norm criterion holds (or the residual is exactly zero)
    iteration_limit,  ///< the iteration-count criterion holds
    time_limit,       ///< the time criterion holds
    breakdown,        ///< a denominator of the recurrence is zero (ColumnStatus::detail names it)
    not_finite,       ///< a NaN or Inf appeared in a scalar of the recurrence
};

/// "running", "converged", "iteration limit", "time limit", "breakdown", "not finite".
const char* to_string(Reason reason) noexcept;

/// The state of one right-hand side.
struct ColumnStatus {
    Reason reason = Reason::running;
    /// The iteration at which it stopped: the number of iterations done when a criterion
    /// held (0: at the initial residual), the iteration that could not be completed for a
    /// breakdown or a NaN found in its scalars.
    size_type iteration = 0;
    /// Static text saying which criterion or which quantity stopped it, e.g. "rho".
    const char* detail = "";

    constexpr bool stopped() const noexcept { return reason != Reason::running; }
    constexpr bool converged() const noexcept { return reason == Reason::converged; }
};

}  // namespace loom::stop

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
    /// Restarts with a fresh shadow residual per column (BiCG, BiCGSTAB, CGS; 0 elsewhere).
    std::vector<size_type> restarts;
    /// Wall-clock time of the solve.
    double seconds = 0;

    bool converged() const noexcept { return reason == stop::Reason::converged; }
    /// Residual norm of column j relative to ||b_j|| (its absolute norm when b_j is zero).
    double relative_residual_norm(size_type j = 0) const;
    /// The restarts of all columns together.
    size_type total_restarts() const noexcept;
    /// One line: "converged after 42 iterations (relative residual 3.1e-09)" or
    /// "column 2: breakdown (rho) at iteration 7", followed by ", 2 restarts" when the
    /// shadow residual was restarted.
    std::string message() const;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
