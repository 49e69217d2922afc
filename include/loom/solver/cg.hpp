// Conjugate gradient for Hermitian positive definite systems (with a Hermitian positive
// definite preconditioner). Breaks down (p^H A p = 0) on indefinite systems.
// On a device the iterations run in blocks ahead of the host when the criteria are iteration
// limits and residual tolerances only: the iterates, iteration counts, residual history and
// result are exactly those of checking every iteration, but loggers hear of a block's
// iterations when it ends (and a column that stopped inside a block is not touched by the
// rest of it). Any other criterion (a time limit) makes the host check every iteration.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Cg final : public EnableIterativeSolver<Cg<V>, V> {
public:
    static constexpr const char* solver_name = "cg";

    using EnableIterativeSolver<Cg<V>, V>::EnableIterativeSolver;

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
