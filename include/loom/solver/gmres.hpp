// Restarted GMRES(m) for general systems, right-preconditioned (x = x0 + M V y), with the
// Arnoldi basis orthogonalized by modified or classical Gram-Schmidt and the least-squares
// problem solved by Givens rotations. Every inner step counts as one iteration; the
// criteria see the residual norm the rotations give (no extra work), and after each restart
// the true residual is recomputed.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

enum class Orthogonalization {
    modified,   ///< modified Gram-Schmidt: one dot and one axpy after another (stabler)
    classical,  ///< classical Gram-Schmidt: all dots against the same vector (more parallel)
};

LOOM_NAME_TABLE(Orthogonalization, orthogonalization_names, "orthogonalization",
    {Orthogonalization::modified, "modified", "modified Gram-Schmidt (stabler)"},
    {Orthogonalization::classical, "classical", "classical Gram-Schmidt (more parallel)"},
);

template <typename V>
struct GmresParameters : CommonParameters<V> {
    static constexpr size_type default_krylov_dim = 30;
    /// Basis vectors per cycle (the restart length m). At least 1.
    size_type krylov_dim = default_krylov_dim;
    /// classical (the default, as PETSc's): all dots in one pass over w and the basis, all
    /// updates in one more (multi-vector kernels), and a second such pass where the first
    /// cancelled more than 99% of ||w|| (on a device: always). GMRES(30) on the shared real
    /// matrices takes the iterations of modified Gram-Schmidt within a few %; with ILU(0) on
    /// one thread, time to solution against PETSc's in the same run: add32 0.66x with
    /// modified, 0.75-0.79x with classical; sherman5 0.76-0.78x and 0.87-0.95x.
    Orthogonalization orthogonalization = Orthogonalization::classical;
};

/// The builder of GMRES and its variants (CB-GMRES, FGMRES): the common setters and GMRES's own.
template <typename SolverT>
class GmresBuilder : public BuilderBase<GmresBuilder<SolverT>,
                                        GmresParameters<typename SolverT::value_type>, SolverT> {
public:
    using Parameters = GmresParameters<typename SolverT::value_type>;

    GmresBuilder& with_krylov_dim(size_type m) { return this->set(&Parameters::krylov_dim, m); }
    GmresBuilder& with_orthogonalization(Orthogonalization method)
    {
        return this->set(&Parameters::orthogonalization, method);
    }
};

template <typename V>
class Gmres final : public EnableRestartedSolver<Gmres<V>, V, GmresParameters<V>> {
public:
    static constexpr const char* solver_name = "gmres";
    static constexpr size_type default_krylov_dim = GmresParameters<V>::default_krylov_dim;

    using Builder = GmresBuilder<Gmres>;
    static Builder build() { return {}; }

    using EnableRestartedSolver<Gmres<V>, V, GmresParameters<V>>::EnableRestartedSolver;

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
