// Why a right-hand side stopped being iterated on. Kept per column of a multi-vector solve.
#pragma once

#include <cstdint>

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

LOOM_PUBLIC_END
