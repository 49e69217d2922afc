// Vector BLAS on Dense multi-vectors, column by column: column j of the result belongs to
// column j of the inputs. Results of reductions are 1 x k Dense on the inputs' executor, so
// that a solver never waits for the host. Reductions are deterministic for a given executor,
// thread count and size (fixed partition and combination order).
#pragma once

#include <span>

#include "loom/base/array.hpp"
#include "loom/base/lower_precision.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::blas {

/// result(0, j) = sum_i x(i, j) * y(i, j)   (no conjugation)
template <typename V>
LOOM_EXPORT void dot(const matrix::Dense<V>& x, const matrix::Dense<V>& y,
                     matrix::Dense<V>& result);
/// result(0, j) = sum_i conj(x(i, j)) * y(i, j)
template <typename V>
LOOM_EXPORT void conj_dot(const matrix::Dense<V>& x, const matrix::Dense<V>& y,
                          matrix::Dense<V>& result);
/// result(0, j) = ||x(:, j)||_2
template <typename V>
LOOM_EXPORT void nrm2(const matrix::Dense<V>& x, matrix::Dense<remove_complex_t<V>>& result);

/// y(:, j) += alpha(0, j) * x(:, j); alpha is 1 x 1 (shared) or 1 x k.
template <typename V>
LOOM_EXPORT void axpy(const matrix::Dense<V>& alpha, const matrix::Dense<V>& x,
                      matrix::Dense<V>& y);
template <typename V>
LOOM_EXPORT void axpy(V alpha, const matrix::Dense<V>& x, matrix::Dense<V>& y);
/// y(:, j) += s * q_j * x(:, j) with q_j = num(0, j) / den(0, j) and s = -1 when `subtract`,
/// else 1; q_j is taken as 0 where den(0, j) is 0 or the quotient is not finite, so y never
/// turns to NaN here. The quotient is formed where the data are: a step length computed by a
/// reduction on a device needs no copy to the host before it is used. num and den: 1 x k.
template <typename V>
LOOM_EXPORT void axpy_quotient(const matrix::Dense<V>& num, const matrix::Dense<V>& den,
                               const matrix::Dense<V>& x, matrix::Dense<V>& y,
                               bool subtract = false);
/// y(:, j) = alpha(0, j) * x(:, j) + beta(0, j) * y(:, j); y is not read when beta is 0.
template <typename V>
LOOM_EXPORT void axpby(const matrix::Dense<V>& alpha, const matrix::Dense<V>& x,
                       const matrix::Dense<V>& beta, matrix::Dense<V>& y);
template <typename V>
LOOM_EXPORT void axpby(V alpha, const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y);
/// x(:, j) *= alpha(0, j)
template <typename V>
LOOM_EXPORT void scal(const matrix::Dense<V>& alpha, matrix::Dense<V>& x);
template <typename V>
LOOM_EXPORT void scal(V alpha, matrix::Dense<V>& x);
/// y = x (same shape, any strides)
template <typename V>
LOOM_EXPORT void copy(const matrix::Dense<V>& x, matrix::Dense<V>& y);
/// x(i, j) = value
template <typename V>
LOOM_EXPORT void fill(matrix::Dense<V>& x, V value);
/// packed[i * cols + j] = x(i, j) rounded to lower_precision_t<V> (packed: rows x cols
/// values, on x's executor).
template <typename V>
LOOM_EXPORT void pack(const matrix::Dense<V>& x, Array<lower_precision_t<V>>& packed);
/// y(i, j) = packed[i * cols + j] (unpack(pack(x)) is x rounded to the lower precision).
template <typename V>
LOOM_EXPORT void unpack(const Array<lower_precision_t<V>>& packed, matrix::Dense<V>& y);

// ---- fused steps of the Krylov solvers: several updates and reductions in one pass over the
// vectors, every coefficient formed from scalars in the executor's memory (no copy to the
// host between them). Reductions are per column and over the rows given (partial sums when
// the rows are one process's share).

/// out1(0, j) = x1(:, j)^H y1(:, j) and out2(0, j) = x2(:, j)^H y2(:, j) in one pass.
template <typename V>
LOOM_EXPORT void conj_dot2(const matrix::Dense<V>& x1, const matrix::Dense<V>& y1,
                           matrix::Dense<V>& out1, const matrix::Dense<V>& x2,
                           const matrix::Dense<V>& y2, matrix::Dense<V>& out2);

/// result(0, i k + j) = x_i(:, j)^H y(:, j) for every x_i of x (k: the columns of y): the
/// dots of classical Gram-Schmidt (PETSc's VecMDot), reading y once for a group of x_i
/// rather than once for each. result: 1 x (x.size() k).
template <typename V>
LOOM_EXPORT void multi_conj_dot(std::span<const matrix::Dense<V>* const> x,
                                const matrix::Dense<V>& y, matrix::Dense<V>& result);
/// y(:, j) += sum_i alpha(0, i k + j) x_i(:, j), the terms added in the order of i (as
/// repeated axpy would): classical Gram-Schmidt's update (PETSc's VecMAXPY) in one pass over
/// y for a group of x_i. alpha: 1 x (x.size() k); y may not share memory with an x_i.
template <typename V>
LOOM_EXPORT void multi_axpy(const matrix::Dense<V>& alpha,
                            std::span<const matrix::Dense<V>* const> x, matrix::Dense<V>& y);

/// The scalars of one (flexible) conjugate-gradient step, each a 1 x k row on the vectors'
/// executor, k the number of columns.
template <typename V>
struct CgStepScalars {
    /// 1 where the column runs this step, 0 where it stopped (it is then left untouched).
    const matrix::Dense<V>* gate = nullptr;
    const matrix::Dense<V>* rho_old = nullptr;  ///< r^H z before the step
    const matrix::Dense<V>* pq = nullptr;       ///< p^H A p
    /// r^H r after the step: written by cg_residual_step, read by cg_direction_step.
    matrix::Dense<V>* rr = nullptr;
    const matrix::Dense<V>* rho_new = nullptr;  ///< r^H z after the step (rr without z)
    const matrix::Dense<V>* qz = nullptr;       ///< q^H z after the step (flexible CG); or null
    /// The residual norm at or below which a column has converged (real part; -inf: never).
    const matrix::Dense<V>* threshold = nullptr;
    /// Written by cg_direction_step: 1 where the column goes on after the step, else 0.
    matrix::Dense<V>* gate_new = nullptr;
};

/// With alpha = rho_old / pq per column (0 where pq is 0 or not finite, or alpha is not):
/// r -= alpha q, then rr = r^H r, in one pass. Columns with gate 0 keep r (rr still written).
template <typename V>
LOOM_EXPORT void cg_residual_step(const CgStepScalars<V>& s, const matrix::Dense<V>& q,
                                  matrix::Dense<V>& r);
/// x += alpha p, then p = z + beta p, in one pass, with beta = rho_new / rho_old (flexible
/// when qz is given: -conj(alpha) qz / rho_old), and gate_new = 1 where the column goes on:
/// 0 where it stopped or alpha was not usable, where sqrt(real(rr)) is not finite, zero or
/// at most the threshold, where rho_new is zero or not finite, or beta is not finite (beta
/// is then 0). These are the tests of the CG solver, in its order. Columns with gate 0 keep
/// x and p.
template <typename V>
LOOM_EXPORT void cg_direction_step(const CgStepScalars<V>& s, const matrix::Dense<V>& z,
                                   matrix::Dense<V>& p, matrix::Dense<V>& x);

/// x(:, j) *= 1 / sqrt(real(squares(0, j))) (the reciprocal formed in double), or 0 where
/// that norm is zero or not finite: a GMRES basis vector normalized by its squared norm on
/// the executor. squares: 1 x k.
template <typename V>
LOOM_EXPORT void normalize(const matrix::Dense<V>& squares, matrix::Dense<V>& x);

/// The scalars of BiCGSTAB iteration `it` (right-preconditioned, Templates fig. 2.10), each a
/// 1 x k row on the vectors' executor. The *_prev rows are iteration it - 1's (at the first
/// iteration only gate_prev, the running columns, and rho_prev = r~^H r are read).
template <typename V>
struct BicgstabStepScalars {
    bool first = false;            ///< it is the first iteration
    double max_restarts = 0;       ///< shadow-residual restarts allowed per column
    /// gate_half of it - 1 (at the first iteration: 1 where the column runs)
    const matrix::Dense<V>* gate_prev = nullptr;
    const matrix::Dense<V>* rho_prev = nullptr;       ///< r~^H r after it - 1
    const matrix::Dense<V>* rr_prev = nullptr;        ///< r^H r after it - 1
    const matrix::Dense<V>* rho_old_prev = nullptr;   ///< the rho of it - 1
    const matrix::Dense<V>* sigma_prev = nullptr;     ///< r~^H A p of it - 1
    const matrix::Dense<V>* tt_prev = nullptr;        ///< t^H t of it - 1
    const matrix::Dense<V>* ts_prev = nullptr;        ///< t^H s of it - 1
    const matrix::Dense<V>* restarts_prev = nullptr;  ///< restarts made before it
    /// The residual norm at or below which a column has converged (real part; -inf: never).
    const matrix::Dense<V>* threshold = nullptr;
    // ---- iteration it
    matrix::Dense<V>* gate = nullptr;      ///< written by the direction step
    matrix::Dense<V>* rho_old = nullptr;   ///< written by the direction step: rho of it
    matrix::Dense<V>* restarts = nullptr;  ///< written by the direction step
    const matrix::Dense<V>* sigma = nullptr;  ///< r~^H A p (finished), read by the half step
    matrix::Dense<V>* gate_half = nullptr;    ///< written by the half step
    const matrix::Dense<V>* tt = nullptr;     ///< t^H t (finished), read by the final step
    const matrix::Dense<V>* ts = nullptr;     ///< t^H s (finished), read by the final step
    matrix::Dense<V>* rho = nullptr;          ///< r~^H r after it: final step (partial)
    matrix::Dense<V>* rr = nullptr;           ///< r^H r after it: final step (partial)
};

/// The start of a BiCGSTAB iteration (blas/krylov/bicgstab_step.hpp's decisions, those of the
/// solver): where the column goes on, p = r + beta (p - omega_prev v), or p = r at the first
/// iteration and on a restart, which also sets r~ = r; writes gate, rho_old and restarts.
/// Columns that stop keep p and r~.
template <typename V>
LOOM_EXPORT void bicgstab_direction_step(const BicgstabStepScalars<V>& s,
                                         const matrix::Dense<V>& r, const matrix::Dense<V>& v,
                                         matrix::Dense<V>& p, matrix::Dense<V>& r_tld);
/// s = r - alpha v with alpha = rho_old / sigma where the column goes on (gate_half 1: it ran
/// and alpha is usable); the others keep r.
template <typename V>
LOOM_EXPORT void bicgstab_half_step(const BicgstabStepScalars<V>& s, const matrix::Dense<V>& v,
                                    matrix::Dense<V>& r);
/// Where gate_half is 1: x += alpha p_hat, then, where omega = ts / tt is usable, x += omega
/// s_hat and r -= omega t; then rho = r~^H r and rr = r^H r (partial) in the same pass. (A
/// column whose omega is not usable stops: the next direction step finds it.)
template <typename V>
LOOM_EXPORT void bicgstab_final_step(const BicgstabStepScalars<V>& s,
                                     const matrix::Dense<V>& p_hat,
                                     const matrix::Dense<V>& s_hat, const matrix::Dense<V>& t,
                                     const matrix::Dense<V>& r_tld, matrix::Dense<V>& r,
                                     matrix::Dense<V>& x);

}  // namespace loom::blas

LOOM_PUBLIC_END
