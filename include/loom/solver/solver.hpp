// What every iterative solver shares: its parameters, the builder that collects them, the
// factory that binds them to a system matrix, and the IterativeSolver base.
//
//     auto factory = solver::Cg<double>::build()
//                        .with_preconditioner(jacobi_factory)     // a factory or an operator
//                        .with_criteria(stop::max_iterations(1000), stop::relative_residual(1e-8))
//                        .on(exec);
//     auto cg = factory->generate(A);        // bound to A; the factory serves many matrices
//     cg->apply(b, x);                       // x holds the initial guess on entry
//     if (!cg->result().converged()) std::cerr << cg->result().message() << '\n';
//
// A solver is a LinOp (x = A^-1 b), so any solver factory can be another solver's
// preconditioner. A solver copies its factory's parameters at generation: the factory may be
// dropped or reused. Work vectors are allocated at the first apply (and again only when the
// number of right-hand sides changes), so one solver object must not be applied from two
// threads at once.
//
// Failure: a solve that does not converge (limit reached, breakdown, NaN/Inf) returns
// normally; result() says why, per right-hand side, and x holds the last iterate computed
// before the column stopped (never the garbage of a broken-down step). With
// with_throw_on_failure(), apply raises NumericalError carrying result().message() instead
// (x is left as just described). Bad input (null or non-square A, wrong b/x shapes) always
// raises.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/log/logger.hpp"
#include "loom/log/outcome.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/solver/vector_space.hpp"
#include "loom/stop/criterion.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

/// Where the iteration starts: from x as given, or from zero (x is overwritten first). Use
/// zero for a solver that serves as a preconditioner, whose x holds unrelated data.
enum class InitialGuess { provided, zero };

LOOM_NAME_TABLE(InitialGuess, initial_guess_names, "initial guess",
    {InitialGuess::provided, "provided", "x as given"},
    {InitialGuess::zero, "zero", "x = 0 (x is overwritten first)"},
);

/// Parameters every iterative solver takes.
template <typename V>
struct CommonParameters {
    using value_type = V;

    /// Generated on the system matrix at generate(); wins over `preconditioner` when both set.
    std::shared_ptr<const LinOpFactory<V>> preconditioner_factory;
    /// Used as is (must be n x n); none of the two means no preconditioner.
    std::shared_ptr<const LinOp<V>> preconditioner;
    /// Required: generate() raises BadInput without one.
    std::shared_ptr<const stop::Criterion> criteria;
    /// Attached to every generated solver.
    std::vector<std::shared_ptr<log::Logger>> loggers;
    InitialGuess initial_guess = InitialGuess::provided;
    bool throw_on_failure = false;
};

template <typename V>
class IterativeSolver;

/// What every solver's Factory is: a LinOpFactory whose generate gives an IterativeSolver,
/// with its result(), whichever solver it makes (solver::from_config returns one).
template <typename V>
class IterativeSolverFactory : public LinOpFactory<V> {
public:
    /// A solver for `system`; BadInput when system is null.
    std::shared_ptr<IterativeSolver<V>> generate(std::shared_ptr<const LinOp<V>> system) const
    {
        return std::static_pointer_cast<IterativeSolver<V>>(
            LinOpFactory<V>::generate(std::move(system)));
    }

protected:
    using LinOpFactory<V>::LinOpFactory;
};

/// Binds a solver's parameters to system matrices.
template <typename SolverT>
using Factory = GeneratedFactory<SolverT, IterativeSolverFactory<typename SolverT::value_type>>;

/// Fluent setters shared by every solver's builder. Derived is the concrete builder.
template <typename Derived, typename Params, typename SolverT>
class BuilderBase : public FactoryBuilder<Derived, Params, SolverT> {
public:
    using value_type = typename Params::value_type;
    using V = value_type;

    Derived& with_preconditioner(std::shared_ptr<const LinOpFactory<V>> factory)
    {
        this->params_.preconditioner_factory = std::move(factory);
        this->params_.preconditioner = nullptr;
        return this->self();
    }
    Derived& with_preconditioner(std::shared_ptr<const LinOp<V>> op)
    {
        this->params_.preconditioner = std::move(op);
        this->params_.preconditioner_factory = nullptr;
        return this->self();
    }
    /// One criterion, or several combined with stop::any_of (the first that holds stops).
    template <typename... More>
    Derived& with_criteria(std::shared_ptr<const stop::Criterion> first, More&&... more)
    {
        if constexpr (sizeof...(More) == 0) {
            this->params_.criteria = std::move(first);
        } else {
            this->params_.criteria = stop::any_of({std::move(first), std::forward<More>(more)...});
        }
        return this->self();
    }
    /// Adds loggers attached to every generated solver.
    template <typename... More>
    Derived& with_loggers(std::shared_ptr<log::Logger> first, More&&... more)
    {
        this->params_.loggers.push_back(std::move(first));
        (this->params_.loggers.push_back(std::forward<More>(more)), ...);
        return this->self();
    }
    Derived& with_initial_guess(InitialGuess guess)
    {
        return this->set(&Params::initial_guess, guess);
    }
    Derived& with_throw_on_failure(bool enable = true)
    {
        return this->set(&Params::throw_on_failure, enable);
    }
};

namespace detail {
template <typename V>
class SolveState;
/// Sizes of what a method needs per solve: multi-vectors of n x k, scalar slots of k
/// values each, and host values per right-hand side.
struct Workspace {
    int vectors = 0;
    int scalar_slots = 0;
    size_type host_values_per_column = 0;
};
}  // namespace detail

/// A solver's vectors are those of its system matrix (vector_space_of): a solver of a
/// distributed system is itself distributed.
template <typename V>
class IterativeSolver : public LinOp<V>, public HasVectorSpace<V> {
public:
    using value_type = V;

    ~IterativeSolver() override;
    IterativeSolver(const IterativeSolver&) = delete;
    IterativeSolver& operator=(const IterativeSolver&) = delete;

    /// "cg", "fcg", "bicg", "bicgstab", "cgs", "gmres", "ir", "pipe-cg", "chebyshev",
    /// "cb-gmres", "fgmres", "gcr", "minres", "idr".
    virtual const char* name() const noexcept = 0;

    const std::shared_ptr<const LinOp<V>>& system_matrix() const noexcept { return system_; }
    /// nullptr when there is none (the identity).
    const std::shared_ptr<const LinOp<V>>& preconditioner() const noexcept
    {
        return preconditioner_;
    }
    const std::shared_ptr<const stop::Criterion>& criteria() const noexcept { return criteria_; }
    InitialGuess initial_guess() const noexcept { return initial_guess_; }
    bool throws_on_failure() const noexcept { return throw_on_failure_; }
    /// Where the work vectors live and how they are reduced.
    std::shared_ptr<const VectorSpace<V>> vector_space() const override { return space_; }

    /// The outcome of the last apply (reason `running` before the first).
    const SolveResult& result() const noexcept { return result_; }

protected:
    /// Checks and binds the common parameters; messages name the solver "loom::solver::<name>".
    IterativeSolver(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
                    const CommonParameters<V>& params, const char* name);

    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const final;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const final;

    /// Runs the method: x holds the initial guess. The method first takes its state from
    /// state(), saying what it needs.
    virtual void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const = 0;
    /// The state of this apply, sized for `columns` right-hand sides and `sizes` (reused from
    /// the last apply when it fits) and started (status reset, clock running).
    detail::SolveState<V>& state(size_type columns, const detail::Workspace& sizes) const;

private:
    std::shared_ptr<const LinOp<V>> system_;
    std::shared_ptr<const LinOp<V>> preconditioner_;
    std::shared_ptr<const VectorSpace<V>> space_;
    std::shared_ptr<const stop::Criterion> criteria_;
    InitialGuess initial_guess_;
    bool throw_on_failure_;
    mutable SolveResult result_;
    mutable std::unique_ptr<detail::SolveState<V>> state_;
    mutable matrix::Dense<V> scaled_;  ///< the solution when apply has alpha and beta
};

/// What a concrete solver has because it is one: its parameters (copied from the factory),
/// builder, factory type and name. Derived names itself (`solver_name`) and implements
/// solve(). A solver with parameters of its own passes them as ParametersT
/// and declares a Builder with their setters, and build(), hiding these.
template <typename Derived, typename V, typename ParametersT = CommonParameters<V>>
class EnableIterativeSolver : public IterativeSolver<V> {
public:
    using Parameters = ParametersT;
    class Builder : public BuilderBase<Builder, Parameters, Derived> {};
    using Factory = GeneratedFactory<Derived, IterativeSolverFactory<V>>;

    static Builder build() { return {}; }

    /// Made by Factory::generate.
    EnableIterativeSolver(std::shared_ptr<const Executor> exec,
                          std::shared_ptr<const LinOp<V>> system, const Parameters& params)
        : IterativeSolver<V>(std::move(exec), std::move(system), params, Derived::solver_name),
          params_(params)
    {}

    const char* name() const noexcept override { return Derived::solver_name; }
    const Parameters& parameters() const noexcept { return params_; }

private:
    Parameters params_;
};

namespace detail {
/// krylov_dim clamped to the system size (at least 1); BadInput naming `where` when the
/// parameter is below 1.
size_type restart_length(size_type krylov_dim, size_type rows, const char* where);
}  // namespace detail

/// A solver restarted every krylov_dim steps (GMRES and its variants, GCR): ParametersT has
/// `krylov_dim`, clamped here to the system size.
template <typename Derived, typename V, typename ParametersT>
class EnableRestartedSolver : public EnableIterativeSolver<Derived, V, ParametersT> {
public:
    /// Made by Factory::generate. BadInput when krylov_dim < 1.
    EnableRestartedSolver(std::shared_ptr<const Executor> exec,
                          std::shared_ptr<const LinOp<V>> system, const ParametersT& params)
        : EnableIterativeSolver<Derived, V, ParametersT>(std::move(exec), std::move(system),
                                                         params),
          // Clamped to the global size: every rank of a distributed system restarts alike.
          krylov_dim_(detail::restart_length(
              params.krylov_dim, this->vector_space()->global_rows(),
              (std::string("loom::solver::") + Derived::solver_name).c_str()))
    {}

    /// The restart length used: krylov_dim, or the system size when that is smaller.
    size_type krylov_dim() const noexcept { return krylov_dim_; }

private:
    size_type krylov_dim_;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
