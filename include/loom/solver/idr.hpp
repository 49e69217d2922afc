// IDR(s) (van Gijzen and Sonneveld, "Algorithm 913", the biorthogonal variant) for general
// systems, right-preconditioned. The shadow space P is s random vectors, orthonormalized,
// the same for every right-hand side and drawn from a fixed seed, so runs repeat exactly.
// Every step with an apply of A is one iteration: s per cycle plus the dimension reduction
// step, whose omega is kept away from zero by the angle safeguard (kappa = 0.7).
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include <cstdint>

#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
struct IdrParameters : CommonParameters<V> {
    static constexpr size_type default_subspace_dim = 2;
    /// Dimension s of the shadow space (Ginkgo's default 2). At least 1.
    size_type subspace_dim = default_subspace_dim;
    /// Seed of the random shadow space.
    std::uint64_t seed = 15;
};

template <typename V>
class Idr final : public EnableIterativeSolver<Idr<V>, V, IdrParameters<V>> {
public:
    static constexpr const char* solver_name = "idr";

    class Builder : public BuilderBase<Builder, IdrParameters<V>, Idr> {
    public:
        Builder& with_subspace_dim(size_type s)
        {
            return this->set(&IdrParameters<V>::subspace_dim, s);
        }
        Builder& with_seed(std::uint64_t seed) { return this->set(&IdrParameters<V>::seed, seed); }
    };
    static Builder build() { return {}; }

    /// The shadow space dimension used: subspace_dim, clamped to the system size.
    size_type subspace_dim() const noexcept { return s_; }

    /// Made by Factory::generate. BadInput when subspace_dim < 1.
    Idr(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
        const IdrParameters<V>& params);

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;

private:
    size_type s_;  ///< subspace_dim, or the system size when that is smaller
};

}  // namespace loom::solver

LOOM_PUBLIC_END
