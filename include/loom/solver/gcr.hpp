// Generalized conjugate residual, restarted after krylov_dim steps (GCR(m)), for general
// systems, right-preconditioned: p_i = M r orthogonalized so that the q_i = A p_i are
// orthonormal (modified Gram-Schmidt), and x, r step along p_i, q_i to minimize ||r||.
// Like FGMRES it tolerates a preconditioner that changes between applies; it keeps 2m
// vectors and the true residual by recurrence, which the criteria see after every step.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
struct GcrParameters : CommonParameters<V> {
    static constexpr size_type default_krylov_dim = 30;
    /// Directions kept per cycle (the restart length m). At least 1.
    size_type krylov_dim = default_krylov_dim;
};

template <typename V>
class Gcr final : public EnableRestartedSolver<Gcr<V>, V, GcrParameters<V>> {
public:
    static constexpr const char* solver_name = "gcr";

    class Builder : public BuilderBase<Builder, GcrParameters<V>, Gcr> {
    public:
        Builder& with_krylov_dim(size_type m)
        {
            return this->set(&GcrParameters<V>::krylov_dim, m);
        }
    };
    static Builder build() { return {}; }

    using EnableRestartedSolver<Gcr<V>, V, GcrParameters<V>>::EnableRestartedSolver;

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
