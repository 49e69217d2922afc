// LinOpFactory: something configured once and then bound to many system matrices — a solver
// or a preconditioner. generate(A) returns an operator for A (a solver of A, an approximate
// inverse of A); the factory keeps no reference to A and may serve many matrices, e.g. one
// per time step. Any LinOpFactory can be a solver's preconditioner.
//
// Implementing one: derive, and override generate_impl (A arrives non-null). A concrete
// factory may also offer a typed `generate` returning its own operator type; it hides this
// one, which stays usable through the base class.
//
// Most operators need no factory class of their own: one made from a system matrix and a
// Parameters struct alone derives from EnableGenerated<Op, V, Parameters> and declares a
// Builder deriving from FactoryBuilder (its with_... setters only); GeneratedFactory<Op>
// then binds the parameters, and Op's constructor (exec, system, parameters) checks the
// system. Preconditioners, triangular solvers, multigrid and the Krylov solvers are made so.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/linop.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

template <typename V>
class LinOpFactory {
public:
    using value_type = V;

    virtual ~LinOpFactory() = default;

    /// Where the generated operators live and run.
    const std::shared_ptr<const Executor>& executor() const noexcept { return exec_; }

    /// An operator bound to `system`. BadInput when system is null; the concrete factory
    /// raises what else it checks (DimensionMismatch for a non-square system, ...).
    std::shared_ptr<LinOp<V>> generate(std::shared_ptr<const LinOp<V>> system) const
    {
        if (!system) {
            throw BadInput("loom::LinOpFactory::generate", "the system matrix is null");
        }
        return generate_impl(std::move(system));
    }

protected:
    explicit LinOpFactory(std::shared_ptr<const Executor> exec) : exec_(std::move(exec))
    {
        if (!exec_) throw BadInput("loom::LinOpFactory", "the executor is null");
    }
    LinOpFactory(const LinOpFactory&) = default;
    LinOpFactory& operator=(const LinOpFactory&) = default;

    virtual std::shared_ptr<LinOp<V>> generate_impl(
        std::shared_ptr<const LinOp<V>> system) const = 0;

private:
    std::shared_ptr<const Executor> exec_;
};

/// The factory of OpT: keeps a copy of the parameters and generates
/// OpT(executor, system, parameters); OpT's constructor checks the system (null, type, size).
/// Base is the interface it is known by: LinOpFactory, or one that says more of what it
/// generates (solver::IterativeSolverFactory).
template <typename OpT, typename Base = void>
class GeneratedFactory final
    : public std::conditional_t<std::is_void_v<Base>, LinOpFactory<typename OpT::value_type>, Base> {
    // The default is chosen here, not in the parameter list: OpT is incomplete where
    // GeneratedFactory<OpT> is first named (inside OpT's own bases).
    using Base_ =
        std::conditional_t<std::is_void_v<Base>, LinOpFactory<typename OpT::value_type>, Base>;

public:
    using value_type = typename OpT::value_type;
    using Parameters = typename OpT::Parameters;

    /// BadInput when exec is null.
    GeneratedFactory(std::shared_ptr<const Executor> exec, Parameters params)
        : Base_(std::move(exec)), params_(std::move(params))
    {}

    const Parameters& parameters() const noexcept { return params_; }

    /// OpT bound to `system`; OpT's constructor says what it accepts.
    std::shared_ptr<OpT> generate(std::shared_ptr<const LinOp<value_type>> system) const
    {
        return std::make_shared<OpT>(this->executor(), std::move(system), params_);
    }

protected:
    std::shared_ptr<LinOp<value_type>> generate_impl(
        std::shared_ptr<const LinOp<value_type>> system) const override
    {
        return generate(std::move(system));
    }

private:
    Parameters params_;
};

/// What every builder has: the parameters it collects and on(). Derived, the concrete
/// builder, adds its with_... setters (returning Derived&; self() gives it).
template <typename Derived, typename Params, typename OpT>
class FactoryBuilder {
public:
    const Params& parameters() const noexcept { return params_; }
    Params& parameters() noexcept { return params_; }

    /// The factory (OpT::Factory), generating operators on exec. BadInput when exec is null.
    /// The return type is deduced: OpT is complete only where on() is called.
    auto on(std::shared_ptr<const Executor> exec) const
    {
        return std::shared_ptr<const typename OpT::Factory>(
            std::make_shared<const typename OpT::Factory>(std::move(exec), params_));
    }

protected:
    Derived& self() noexcept { return static_cast<Derived&>(*this); }

    /// The whole body of a plain with_... setter: stores value in field (a member of the
    /// parameters or of one of their bases), returns the builder.
    template <typename Owner, typename T, typename U>
    Derived& set(T Owner::*field, U&& value)
    {
        static_assert(std::is_base_of_v<Owner, Params>, "field is not one of the parameters");
        params_.*field = std::forward<U>(value);
        return self();
    }
    /// The same for a field of an options struct inside the parameters.
    template <typename Owner, typename Outer, typename T, typename U>
    Derived& set(Outer Owner::*outer, T Outer::*field, U&& value)
    {
        static_assert(std::is_base_of_v<Owner, Params>, "outer is not one of the parameters");
        (params_.*outer).*field = std::forward<U>(value);
        return self();
    }

    Params params_;
};

/// What an operator made by GeneratedFactory has because it is one: the parameters it was
/// generated with, its factory type and build() (Derived declares the Builder).
template <typename Derived, typename V, typename ParametersT>
class EnableGenerated : public LinOp<V> {
public:
    using value_type = V;
    using Parameters = ParametersT;
    using Factory = GeneratedFactory<Derived>;

    static auto build() { return typename Derived::Builder{}; }

    const Parameters& parameters() const noexcept { return params_; }

protected:
    /// The size is set by Derived once it has checked its system (set_size).
    EnableGenerated(std::shared_ptr<const Executor> exec, dim2 size, const Parameters& params)
        : LinOp<V>(std::move(exec), size), params_(params)
    {}

private:
    Parameters params_;
};

}  // namespace loom

LOOM_PUBLIC_END
