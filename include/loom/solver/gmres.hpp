// Restarted GMRES(m) for general systems, right-preconditioned (x = x0 + M V y), with the
// Arnoldi basis orthogonalized by modified or classical Gram-Schmidt and the least-squares
// problem solved by Givens rotations. Every inner step counts as one iteration; the
// criteria see the residual norm the rotations give (no extra work), and after each restart
// the true residual is recomputed.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include <memory>

#include "loom/solver/solver.hpp"

namespace loom::solver {

enum class Orthogonalization {
    modified,   ///< modified Gram-Schmidt: one dot and one axpy after another (stabler)
    classical,  ///< classical Gram-Schmidt: all dots against the same vector (more parallel)
};

inline constexpr Name<Orthogonalization> orthogonalization_names[] = {
    {Orthogonalization::modified, "modified", "modified Gram-Schmidt (stabler)"},
    {Orthogonalization::classical, "classical", "classical Gram-Schmidt (more parallel)"},
};
constexpr NameTable<Orthogonalization> names_of(Orthogonalization)
{
    return {"orthogonalization", orthogonalization_names};
}

template <typename V>
class Gmres final : public IterativeSolver<V> {
public:
    static constexpr const char* solver_name = "gmres";
    static constexpr size_type default_krylov_dim = 30;

    struct Parameters : CommonParameters<V> {
        /// Basis vectors per cycle (the restart length m). At least 1.
        size_type krylov_dim = default_krylov_dim;
        Orthogonalization orthogonalization = Orthogonalization::modified;
    };
    class Builder : public BuilderBase<Builder, Parameters, Gmres> {
    public:
        Builder& with_krylov_dim(size_type m)
        {
            this->params_.krylov_dim = m;
            return *this;
        }
        Builder& with_orthogonalization(Orthogonalization method)
        {
            this->params_.orthogonalization = method;
            return *this;
        }
    };
    using Factory = solver::Factory<Gmres>;

    static Builder build() { return {}; }

    /// Made by Factory::generate. BadInput when krylov_dim < 1.
    Gmres(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
          const Parameters& params);

    const char* name() const noexcept override { return solver_name; }
    const Parameters& parameters() const noexcept { return params_; }
    /// The restart length used: krylov_dim, or the system size when that is smaller.
    size_type krylov_dim() const noexcept { return krylov_dim_; }

protected:
    detail::Workspace workspace() const override;
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x,
               detail::SolveState<V>& state) const override;

private:
    void orthogonalize(detail::SolveState<V>& state, size_type j) const;

    Parameters params_;
    size_type krylov_dim_;
};

const char* to_string(Orthogonalization method) noexcept;

}  // namespace loom::solver
