// Flexible conjugate gradient (Notay): CG whose beta uses the Polak-Ribiere formula, so that
// the preconditioner may change between iterations (e.g. an inner iterative solver).
// One more dot product per iteration than CG.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Fcg final : public EnableIterativeSolver<Fcg<V>, V> {
public:
    static constexpr const char* solver_name = "fcg";

    using EnableIterativeSolver<Fcg<V>, V>::EnableIterativeSolver;

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
