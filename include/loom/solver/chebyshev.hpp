// Chebyshev iteration (Saad, Iterative Methods, algorithm 12.1) for systems whose
// (preconditioned) spectrum is real and positive, inside [lower, upper]: the residual after
// k steps is the Chebyshev polynomial of degree k on that interval applied to the initial
// one. Its step coefficients depend on the bounds alone, so an iteration has no inner
// product except the stopping criterion's residual norm.
//
// The bounds are given (0 < lower < upper) or, when both are 0, estimated at generation by
// estimation_steps steps of (preconditioned) CG from a fixed pseudo-random vector: the
// extreme eigenvalues of CG's Lanczos tridiagonal matrix, upper widened by
// upper_safety_factor. Ritz values lie inside the spectrum, so an eigenvalue above the
// estimate could grow (hence the widening), while one below it only converges more slowly.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/solver.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
struct ChebyshevParameters : CommonParameters<V> {
    static constexpr size_type default_estimation_steps = 20;
    static constexpr double default_upper_safety_factor = 1.1;
    /// Bounds of the spectrum of M^-1 A; both 0: estimated.
    double lower = 0;
    double upper = 0;
    /// CG (Lanczos) steps of the estimate. At least 1.
    size_type estimation_steps = default_estimation_steps;
    /// The estimated upper bound is the largest Ritz value times this (at least 1).
    double upper_safety_factor = default_upper_safety_factor;
};

/// An interval [lower, upper] holding a spectrum.
struct EigenvalueBounds {
    double lower = 0;
    double upper = 0;
};

template <typename V>
class Chebyshev final : public EnableIterativeSolver<Chebyshev<V>, V, ChebyshevParameters<V>> {
public:
    static constexpr const char* solver_name = "chebyshev";

    class Builder : public BuilderBase<Builder, ChebyshevParameters<V>, Chebyshev> {
    public:
        Builder& with_eigenvalue_bounds(double lower, double upper)
        {
            this->params_.lower = lower;
            this->params_.upper = upper;
            return *this;
        }
        Builder& with_estimation_steps(size_type steps)
        {
            return this->set(&ChebyshevParameters<V>::estimation_steps, steps);
        }
        Builder& with_upper_safety_factor(double factor)
        {
            return this->set(&ChebyshevParameters<V>::upper_safety_factor, factor);
        }
    };
    static Builder build() { return {}; }

    /// Made by Factory::generate; estimates the bounds when none are given. BadInput when
    /// the given bounds are not 0 < lower < upper, estimation_steps < 1 or the safety
    /// factor is below 1. An estimate that meets p^H A p <= 0 (A or M not positive
    /// definite) or NaN/Inf is not an error of the input: every solve then stops at
    /// iteration 0 as a breakdown or not_finite naming the estimate.
    Chebyshev(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
              const ChebyshevParameters<V>& params);

    /// The bounds the iteration uses (given or estimated).
    const EigenvalueBounds& eigenvalue_bounds() const noexcept { return bounds_; }

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;

private:
    /// Sets bounds_, or estimate_failure_ when the estimate fails.
    void estimate_bounds(size_type steps, double safety_factor);

    EigenvalueBounds bounds_{1, 2};
    /// Why the estimate failed (running: it did not).
    stop::Reason estimate_failure_ = stop::Reason::running;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
