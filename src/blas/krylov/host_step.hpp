// The coefficients of a CG direction step for one column, on the host backends: reads the
// step's scalars (host memory) and writes the column's gate_new.
#pragma once

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

}  // namespace loom::blas::krylov
