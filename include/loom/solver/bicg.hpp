// Biconjugate gradient for general systems. Needs the conjugate transpose of the system
// matrix (and of the preconditioner), taken at generation through loom::conj_transpose():
// NotSupported there when an operator cannot provide it.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include <memory>

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Bicg final : public IterativeSolver<V> {
public:
    static constexpr const char* solver_name = "bicg";

    struct Parameters : CommonParameters<V> {};
    class Builder : public BuilderBase<Builder, Parameters, Bicg> {};
    using Factory = solver::Factory<Bicg>;

    static Builder build() { return {}; }

    /// Made by Factory::generate.
    Bicg(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
         const Parameters& params);

    const char* name() const noexcept override { return solver_name; }
    const Parameters& parameters() const noexcept { return params_; }

protected:
    detail::Workspace workspace() const override;
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x,
               detail::SolveState<V>& state) const override;

private:
    Parameters params_;
    std::shared_ptr<const LinOp<V>> system_conj_transpose_;
    std::shared_ptr<const LinOp<V>> preconditioner_conj_transpose_;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
