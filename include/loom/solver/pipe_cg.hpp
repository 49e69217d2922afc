// Pipelined CG (Ghysels and Vanroose, 2014) for Hermitian positive definite systems: CG
// rearranged so that an iteration has ONE reduction phase (r^H u, u^H w and, when
// preconditioned, r^H r, finished together: one all-reduce when distributed), issued before
// the iteration's preconditioner and SpMV and finished after them, so that a space whose
// reductions complete asynchronously can hide the all-reduce behind that work.
//
// The price: extra vectors (w = A u, and the recurrences s = A p, z = A q, plus u = M r,
// m = M w, q = M s when preconditioned: 6 vectors instead of CG's 3, 9 instead of 4), and
// a lower attainable accuracy. The residual is updated by recurrences that are not
// coupled to x, whose rounding errors accumulate: the residual the criteria see can drift
// from b - A x by roughly (iterations * cond(A) * eps * ||A|| ||x||), so a tolerance near
// the precision may be reported reached while the true residual is larger. Setting
// replacement_interval = k recomputes r, w and the recurrences from x and p every k
// iterations (3 extra SpMVs and 2 preconditioner applies), which bounds that drift.
// Iterations otherwise match CG's in exact arithmetic.
// See solver/solver.hpp for building, generating, criteria and failure handling.
#pragma once

#include "loom/solver/solver.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
struct PipeCgParameters : CommonParameters<V> {
    /// Recompute the residual and its recurrences from x every this many iterations;
    /// 0: never.
    size_type replacement_interval = 0;
};

template <typename V>
class PipeCg final : public EnableIterativeSolver<PipeCg<V>, V, PipeCgParameters<V>> {
public:
    static constexpr const char* solver_name = "pipe-cg";

    class Builder : public BuilderBase<Builder, PipeCgParameters<V>, PipeCg> {
    public:
        Builder& with_replacement_interval(size_type k)
        {
            return this->set(&PipeCgParameters<V>::replacement_interval, k);
        }
    };
    static Builder build() { return {}; }

    /// Made by Factory::generate. BadInput when replacement_interval < 0.
    PipeCg(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
           const PipeCgParameters<V>& params);

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
