// Conjugate gradient squared (Sonneveld) for general systems, right-preconditioned.
// Restarts on a rho breakdown (solver/shadow_restart.hpp).
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/shadow_restart.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Cgs final : public EnableIterativeSolver<Cgs<V>, V, ShadowParameters<V>> {
public:
    static constexpr const char* solver_name = "cgs";

    using EnableIterativeSolver<Cgs<V>, V, ShadowParameters<V>>::EnableIterativeSolver;
    using Builder = ShadowBuilder<Cgs, V>;
    static Builder build() { return {}; }

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
