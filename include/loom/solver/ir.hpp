// Iterative refinement: x += omega * S(b - A x), where S is an inner solver (any LinOp or
// LinOpFactory: a Krylov solver with a loose criterion, a preconditioner) or, without one,
// the identity (Richardson iteration). The inner solver is the preconditioner slot of the
// common parameters: with_solver() and with_preconditioner() set the same thing. Its
// solution vector is zeroed before each inner solve. The residual is recomputed from
// b - A x every iteration, so the criteria see the true residual.
//
// Mixed precision: with a lower_precision_solver (a factory of lower_precision_t<V>, float
// for double), the inner solve runs in that precision: the residual (computed in V) is
// rounded to it, the inner solver, generated at construction on A rounded to it, solves,
// and its correction is added to x in V. The attainable accuracy stays V's (the outer
// residual is V's); each inner solve only needs to reduce the residual, so float's
// precision limits the convergence rate, not the result. A must then be a matrix::Csr, and
// the lower type must be among the built value types (LOOM_VALUE_TYPES); BadInput otherwise.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include <memory>

#include "loom/base/lower_precision.hpp"

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
struct IrParameters : CommonParameters<V> {
    /// omega, the damping of each correction.
    V relaxation_factor = V{1};
    /// When set, the inner solve runs in the lower precision (replacing the inner solver).
    std::shared_ptr<const LinOpFactory<lower_precision_t<V>>> lower_precision_solver;
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
        Builder& with_lower_precision_solver(
            std::shared_ptr<const LinOpFactory<lower_precision_t<V>>> factory)
        {
            return this->set(&IrParameters<V>::lower_precision_solver, std::move(factory));
        }
        Builder& with_relaxation_factor(V omega)
        {
            return this->set(&IrParameters<V>::relaxation_factor, omega);
        }
    };
    static Builder build() { return {}; }

    /// Made by Factory::generate; generates the lower-precision inner solver when asked.
    Ir(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
       const IrParameters<V>& params);

    /// The inner solver (nullptr: the identity, or the lower-precision one).
    const std::shared_ptr<const LinOp<V>>& inner_solver() const noexcept
    {
        return this->preconditioner();
    }
    /// The inner solver in the lower precision (nullptr unless mixed precision).
    const std::shared_ptr<const LinOp<lower_precision_t<V>>>& lower_precision_solver() const noexcept
    {
        return lower_solver_;
    }

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;

private:
    /// d = S(r) with S the lower-precision inner solver.
    void solve_in_lower_precision(detail::SolveState<V>& state, const matrix::Dense<V>& r,
                                  matrix::Dense<V>& d) const;

    std::shared_ptr<const LinOp<lower_precision_t<V>>> lower_solver_;
    /// r and d rounded, sized at the first solve of k columns.
    mutable typename VectorSpace<V>::Compressed lower_r_;
    mutable typename VectorSpace<V>::Compressed lower_d_;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
