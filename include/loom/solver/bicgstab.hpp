// BiCGSTAB (van der Vorst) for general systems, right-preconditioned.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include <memory>

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Bicgstab final : public IterativeSolver<V> {
public:
    static constexpr const char* solver_name = "bicgstab";

    struct Parameters : CommonParameters<V> {};
    class Builder : public BuilderBase<Builder, Parameters, Bicgstab> {};
    using Factory = solver::Factory<Bicgstab>;

    static Builder build() { return {}; }

    /// Made by Factory::generate.
    Bicgstab(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
             const Parameters& params);

    const char* name() const noexcept override { return solver_name; }
    const Parameters& parameters() const noexcept { return params_; }

protected:
    detail::Workspace workspace() const override;
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x,
               detail::SolveState<V>& state) const override;

private:
    Parameters params_;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
