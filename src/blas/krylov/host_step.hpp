// The coefficients of a CG direction step for one column, on the host backends: reads the
// step's scalars (host memory) and writes the column's gate_new.
#pragma once

#include "blas/krylov/bicgstab_step.hpp"
#include "blas/krylov/step.hpp"
#include "loom/blas/vector.hpp"

namespace loom::blas::krylov {

template <typename V>
struct CgColumnStep {
    bool running;  ///< the column runs this step (gate 1): x and p are updated
    V alpha;
    V beta;
};

template <typename V>
CgColumnStep<V> cg_column_step(const CgStepScalars<V>& s, size_type j)
{
    const V gate = s.gate->at(0, j);
    const V rho_old = s.rho_old->at(0, j);
    const V pq = s.pq->at(0, j);
    const V qz = s.qz ? s.qz->at(0, j) : V{};
    const auto next = cg_next(gate, rho_old, pq, s.rr->at(0, j), s.rho_new->at(0, j),
                              s.qz ? &qz : nullptr, real_part(s.threshold->at(0, j)));
    s.gate_new->at(0, j) = next.goes_on ? V{1} : V{0};
    return {gate != V{0}, cg_alpha(gate, rho_old, pq), next.beta};
}

/// The start of BiCGSTAB iteration for column j: writes its gate, rho_old and restarts.
template <typename V>
BicgstabTop<V> bicgstab_column_top(const BicgstabStepScalars<V>& s, size_type j)
{
    const auto top = bicgstab_top(s.first, s.gate_prev->at(0, j), s.rho_prev->at(0, j),
                                  s.rr_prev->at(0, j), s.rho_old_prev->at(0, j),
                                  s.sigma_prev->at(0, j), s.tt_prev->at(0, j),
                                  s.ts_prev->at(0, j), s.restarts_prev->at(0, j),
                                  real_part(s.threshold->at(0, j)), s.max_restarts);
    s.gate->at(0, j) = top.goes_on ? V{1} : V{0};
    s.rho_old->at(0, j) = top.rho;
    s.restarts->at(0, j) = top.restarts;
    return top;
}

/// BiCGSTAB's alpha for column j: writes its gate_half.
template <typename V>
UsableCoefficient<V> bicgstab_column_alpha(const BicgstabStepScalars<V>& s, size_type j)
{
    const auto alpha = bicgstab_alpha(s.gate->at(0, j), s.rho_old->at(0, j), s.sigma->at(0, j));
    s.gate_half->at(0, j) = alpha.usable ? V{1} : V{0};
    return alpha;
}

/// BiCGSTAB's final step for column j: alpha (usable where gate_half is 1) and omega.
template <typename V>
struct BicgstabFinal {
    UsableCoefficient<V> alpha;
    UsableCoefficient<V> omega;
};

template <typename V>
BicgstabFinal<V> bicgstab_column_final(const BicgstabStepScalars<V>& s, size_type j)
{
    const V gate_half = s.gate_half->at(0, j);
    return {bicgstab_alpha(gate_half, s.rho_old->at(0, j), s.sigma->at(0, j)),
            bicgstab_omega(gate_half, s.tt->at(0, j), s.ts->at(0, j))};
}

}  // namespace loom::blas::krylov
