// Flexible GMRES(m) (Saad): right-preconditioned GMRES that stores the preconditioned
// vectors z_j = M_j v_j, so that the preconditioner may change between applies (an inner
// iterative solver, say); x = x0 + Z y. Costs m more vectors than GMRES; with a fixed
// preconditioner its iterates are those of GMRES. Parameters and counting as for GMRES.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/gmres.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Fgmres final : public EnableRestartedSolver<Fgmres<V>, V, GmresParameters<V>> {
public:
    static constexpr const char* solver_name = "fgmres";

    using Builder = GmresBuilder<Fgmres>;
    static Builder build() { return {}; }

    using EnableRestartedSolver<Fgmres<V>, V, GmresParameters<V>>::EnableRestartedSolver;

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
