// MINRES (Paige and Saunders) for Hermitian, possibly indefinite systems: Lanczos on A
// (with M: on M A, M Hermitian positive definite) and Givens rotations minimizing the
// residual, short recurrences (x steps along w_k built from the last two). Without a
// preconditioner the criteria see the rotations' residual norm ||b - A x||; with one, the
// true residual kept by recurrence (A w_k formed from the A v_k already computed: 3 more
// vectors, no more applies). A preconditioner that is not positive definite ends the solve
// as "breakdown (r^H M r)".
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class Minres final : public EnableIterativeSolver<Minres<V>, V> {
public:
    static constexpr const char* solver_name = "minres";

    using EnableIterativeSolver<Minres<V>, V>::EnableIterativeSolver;

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
