// The per-column decisions of one conjugate-gradient step, written once for the host
// backends and device code (D: the backend's value type, std::complex or thrust::complex).
// They mirror, test for test and in the same order, what the CG solver decides on the host
// (solver/cg.cpp through SolveState): a fused step stops a column exactly where the solver's
// replay of the same scalars stops it, so the device may run ahead of the host.
#pragma once

#include <cmath>
#include <type_traits>

#include "base/kernel_scalar.hpp"
#include "loom/launch/macros.hpp"

namespace loom::blas::krylov {

template <typename T>
LOOM_HOST_DEVICE bool finite_real(T v)
{
#ifdef __CUDA_ARCH__
    return isfinite(v);
#else
    return std::isfinite(v);
#endif
}

template <typename D>
LOOM_HOST_DEVICE bool finite(const D& v)
{
    if constexpr (std::is_arithmetic_v<D>) {
        return finite_real(v);
    } else {
        return finite_real(v.real()) && finite_real(v.imag());
    }
}

using loom::detail::conjugate;
using loom::detail::real_part;

/// sqrt(real(v)) in double: the residual norm the solver derives from r^H r.
template <typename D>
LOOM_HOST_DEVICE double norm_from_square(const D& v)
{
    return ::sqrt(real_part(v));  // the C function: host and device have it
}

/// 1 / sqrt(real(square)) in double, rounded to D: what GMRES scales its new basis vector by;
/// 0 where that norm is zero, negative or not finite.
template <typename D>
LOOM_HOST_DEVICE D inverse_norm(const D& square)
{
    const double norm = norm_from_square(square);
    if (!finite_real(norm) || !(norm > 0)) return D{};
    if constexpr (std::is_arithmetic_v<D>) {
        return static_cast<D>(1 / norm);
    } else {
        return D(static_cast<typename D::value_type>(1 / norm));
    }
}

/// A column's step length alpha = rho_old / p^H A p: 0 for a stopped column (gate 0) and
/// where the solver stops it (p^H A p zero or not finite, alpha not finite).
template <typename D>
LOOM_HOST_DEVICE D cg_alpha(const D& gate, const D& rho_old, const D& pq)
{
    if (gate == D{} || pq == D{} || !finite(pq)) return D{};
    const D alpha = rho_old / pq;
    return finite(alpha) ? alpha : D{};
}

template <typename D>
struct CgNext {
    D beta;
    bool goes_on;
};

/// beta of the next direction, and whether the column goes on after this step: it stops
/// where it was stopped or alpha was not usable, where the residual norm sqrt(r^H r) is not
/// finite, zero or at most `threshold`, where rho_new = r^H z is zero or not finite, and where
/// beta = rho_new / rho_old (flexible: -conj(alpha) q^H z / rho_old) is not finite.
template <typename D>
LOOM_HOST_DEVICE CgNext<D> cg_next(const D& gate, const D& rho_old, const D& pq, const D& rr,
                                   const D& rho_new, const D* qz, double threshold)
{
    const CgNext<D> stop{D{}, false};
    if (gate == D{} || pq == D{} || !finite(pq)) return stop;
    const D alpha = rho_old / pq;
    if (!finite(alpha)) return stop;
    const double norm = norm_from_square(rr);
    if (!finite_real(norm) || norm == 0 || norm <= threshold) return stop;
    if (rho_new == D{} || !finite(rho_new)) return stop;
    const D beta = qz ? (-conjugate(alpha) * *qz) / rho_old : rho_new / rho_old;
    if (!finite(beta)) return stop;
    return {beta, true};
}

}  // namespace loom::blas::krylov
