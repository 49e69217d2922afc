// CB-GMRES (compressed basis GMRES, Aliaga et al. 2022): restarted GMRES(m) whose Krylov
// basis is stored in lower_precision_t<V> (float for double, complex<float> for
// complex<double>; float types have no lower precision here and store their own), while
// every operation (SpMV, preconditioner, Gram-Schmidt, the least-squares problem, x) runs
// in V. Each basis vector is normalized in V and then rounded once; Gram-Schmidt and the
// update of x read it back (decompressed into a V vector). The basis then takes half the
// memory; the rounding (about 6e-8 relative for float) perturbs the orthogonality, so
// convergence needs a few more iterations than GMRES at tolerances far below it, but the
// criteria see the same true-residual restarts as GMRES, so the attainable accuracy stays
// that of V. Parameters, iteration counting and failure handling are those of GMRES
// (solver/gmres.hpp).
#pragma once

#include "loom/solver/gmres.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::solver {

template <typename V>
class CbGmres final : public EnableRestartedSolver<CbGmres<V>, V, GmresParameters<V>> {
public:
    static constexpr const char* solver_name = "cb-gmres";

    using Builder = GmresBuilder<CbGmres>;
    static Builder build() { return {}; }

    using EnableRestartedSolver<CbGmres<V>, V, GmresParameters<V>>::EnableRestartedSolver;

protected:
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;

private:
    /// The compressed basis V_0..V_m, sized at the first solve of k columns.
    mutable std::vector<typename VectorSpace<V>::Compressed> basis_;
};

}  // namespace loom::solver

LOOM_PUBLIC_END
