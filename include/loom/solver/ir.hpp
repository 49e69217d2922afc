// Iterative refinement: x += omega * S(b - A x), where S is an inner solver (any LinOp or
// LinOpFactory: a Krylov solver with a loose criterion, a preconditioner) or, without one,
// the identity (Richardson iteration). The inner solver is the preconditioner slot of the
// common parameters: with_solver() and with_preconditioner() set the same thing. Its
// solution vector is zeroed before each inner solve. The residual is recomputed from
// b - A x every iteration, so the criteria see the true residual.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include <memory>

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
struct IrParameters : CommonParameters<V> {
    /// omega, the damping of each correction.
    V relaxation_factor = V{1};
};

template <typename V>
class Ir final : public EnableIterativeSolver<Ir<V>, V, IrParameters<V>> {
public:
    static constexpr const char* solver_name = "ir";

    class Builder : public BuilderBase<Builder, IrParameters<V>, Ir> {
    public:
        Builder& with_solver(std::shared_ptr<const LinOpFactory<V>> factory)
        {
            return this->with_preconditioner(std::move(factory));
        }
        Builder& with_solver(std::shared_ptr<const LinOp<V>> op)
        {
            return this->with_preconditioner(std::move(op));
        }
        Builder& with_relaxation_factor(V omega)
        {
            this->params_.relaxation_factor = omega;
            return *this;
        }
    };
    static Builder build() { return {}; }

    using EnableIterativeSolver<Ir<V>, V, IrParameters<V>>::EnableIterativeSolver;

    /// The inner solver (nullptr: the identity).
    const std::shared_ptr<const LinOp<V>>& inner_solver() const noexcept
    {
        return this->preconditioner();
    }

protected:
    detail::Workspace workspace() const override;
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x,
               detail::SolveState<V>& state) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
