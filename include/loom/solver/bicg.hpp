// Biconjugate gradient for general systems. Needs the conjugate transpose of the system
// matrix (and of the preconditioner), taken at generation through loom::conj_transpose():
// NotSupported there when an operator cannot provide it. Restarts on a rho breakdown
// (solver/shadow_restart.hpp).
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include <memory>

#include "loom/solver/shadow_restart.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Bicg final : public EnableIterativeSolver<Bicg<V>, V, ShadowParameters<V>> {
public:
    static constexpr const char* solver_name = "bicg";
    using Builder = ShadowBuilder<Bicg, V>;
    static Builder build() { return {}; }

    /// Made by Factory::generate. NotSupported when A^H or M^H cannot be formed.
    Bicg(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
         const ShadowParameters<V>& params);

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;

private:
    std::shared_ptr<const LinOp<V>> system_conj_transpose_;
    std::shared_ptr<const LinOp<V>> preconditioner_conj_transpose_;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
