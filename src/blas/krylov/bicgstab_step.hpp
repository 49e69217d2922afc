// The per-column decisions of one BiCGSTAB iteration, written once for the host backends and
// device code (D: the backend's value type). They mirror, test for test and in the same
// order, what the BiCGSTAB solver decides on the host (solver/bicgstab.cpp): a fused step
// stops, or restarts with a fresh shadow residual, a column exactly where the solver's replay
// of the same scalars does, so the device may run ahead of the host.
#pragma once

#include "blas/krylov/step.hpp"
#include "loom/launch/macros.hpp"

namespace loom::blas::krylov {

/// A step coefficient and whether the solver goes on with it.
template <typename D>
struct UsableCoefficient {
    D value;
    bool usable;
};

/// omega = t^H s / t^H t of a column that reached it (gate_half 1): usable when t^H t is
/// finite and omega finite (0 where t^H t is 0: the half step is kept).

template <typename D>
LOOM_HOST_DEVICE UsableCoefficient<D> bicgstab_omega(const D& gate_half, const D& tt, const D& ts)
{
    if (gate_half == D{} || !finite(tt)) return {D{}, false};
    if (tt == D{}) return {D{}, true};
    const D omega = ts / tt;
    if (!finite(omega)) return {D{}, false};
    return {omega, true};
}

/// alpha = rho_old / r~^H A p of a column that runs (gate 1): 0 and not usable where
/// r~^H A p is zero or not finite or alpha is not finite.
template <typename D>
LOOM_HOST_DEVICE UsableCoefficient<D> bicgstab_alpha(const D& gate, const D& rho_old, const D& sigma)
{
    if (gate == D{} || sigma == D{} || !finite(sigma)) return {D{}, false};
    const D alpha = rho_old / sigma;
    if (!finite(alpha)) return {D{}, false};
    return {alpha, true};
}

/// What the start of an iteration decides for a column.
template <typename D>
struct BicgstabTop {
    bool goes_on;
    bool restarted;  ///< r~ = r and p = r (rho = r^H r)
    D rho;           ///< the rho of this iteration (rho_old of its alpha)
    D beta;
    D omega_prev;    ///< the last iteration's omega (p -= omega v before beta)
    D restarts;      ///< restarts so far, counted in D
};

/// The end of the last iteration (omega usable; then the solver's check: a residual norm not
/// finite, zero or at most `threshold` stops; then omega = 0 is a breakdown) and the start of
/// this one: rho = r~^H r zero restarts while fewer than max_restarts restarts were made, else
/// stops; beta = (rho / rho_old) (alpha / omega) must be finite. `first`: the first
/// iteration, where only gate_prev (the running columns) and rho_prev are read and nothing
/// restarts.
template <typename D>
LOOM_HOST_DEVICE BicgstabTop<D> bicgstab_top(bool first, const D& gate_prev, const D& rho_prev,
                                             const D& rr_prev, const D& rho_old_prev,
                                             const D& sigma_prev, const D& tt_prev,
                                             const D& ts_prev, const D& restarts_prev,
                                             double threshold, double max_restarts)
{
    BicgstabTop<D> top{false, false, rho_prev, D{}, D{}, first ? D{} : restarts_prev};
    if (gate_prev == D{}) return top;
    if (!first) {
        const auto omega = bicgstab_omega(gate_prev, tt_prev, ts_prev);
        if (!omega.usable) return top;
        const double norm = norm_from_square(rr_prev);
        if (!finite_real(norm) || norm == 0 || norm <= threshold) return top;
        if (omega.value == D{}) return top;
        top.omega_prev = omega.value;
        if (rho_prev == D{} && real_part(top.restarts) < max_restarts) {
            top.restarted = true;
            top.restarts = top.restarts + D(1);
            top.rho = rr_prev;
            top.goes_on = true;
            return top;
        }
    }
    if (rho_prev == D{} || !finite(rho_prev)) return top;
    if (!first) {
        const D alpha_prev = rho_old_prev / sigma_prev;
        top.beta = (rho_prev / rho_old_prev) * (alpha_prev / top.omega_prev);
        if (!finite(top.beta)) {
            top.beta = D{};
            return top;
        }
    }
    top.goes_on = true;
    return top;
}

}  // namespace loom::blas::krylov
