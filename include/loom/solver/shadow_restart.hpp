// Parameters of the solvers built on a shadow residual r~ (BiCG, BiCGSTAB, CGS). Their
// recurrence divides by rho = r~^H r, which can become exactly zero while r is not (the
// Lanczos process broke down, not the system). Such a column restarts: r~ = the current r
// and the search directions start again from r, as at iteration 1. At most max_restarts
// times per right-hand side (SolveResult::restarts counts them); one more rho breakdown
// ends the column as "breakdown (rho)", which then is a true stagnation.
#pragma once

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
struct ShadowParameters : CommonParameters<V> {
    static constexpr size_type default_max_restarts = 10;
    /// Restarts with a fresh shadow residual per right-hand side; 0 stops at the first
    /// rho breakdown.
    size_type max_restarts = default_max_restarts;
};

/// The builder of a shadow-residual solver: the common setters and with_max_restarts.
template <typename SolverT, typename V>
class ShadowBuilder : public BuilderBase<ShadowBuilder<SolverT, V>, ShadowParameters<V>, SolverT> {
public:
    ShadowBuilder& with_max_restarts(size_type restarts)
    {
        return this->set(&ShadowParameters<V>::max_restarts, restarts);
    }
};

}  // namespace loom::solver

LOOM_PUBLIC_END
