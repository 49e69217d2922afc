// BiCGSTAB (van der Vorst) for general systems, right-preconditioned. Restarts on a rho
// breakdown (solver/shadow_restart.hpp).
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/shadow_restart.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Bicgstab final : public EnableIterativeSolver<Bicgstab<V>, V, ShadowParameters<V>> {
public:
    static constexpr const char* solver_name = "bicgstab";

    using EnableIterativeSolver<Bicgstab<V>, V, ShadowParameters<V>>::EnableIterativeSolver;
    using Builder = ShadowBuilder<Bicgstab, V>;
    static Builder build() { return {}; }

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
