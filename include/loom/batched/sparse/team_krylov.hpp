// Batched Krylov solvers for one sparse system inside a user's kernel, in the modes of the
// batched dense routines (Serial, Team, TeamVector): CG, BiCGSTAB, GMRES(restart) with
// classical or modified Gram-Schmidt, and Richardson, with a preconditioner view (identity,
// scalar Jacobi, block Jacobi) applied on the left or the right.
//
//     const loom::batched::JacobiPrec<double> M{inv_diag};          // set up by JacobiSetup
//     auto outcome = loom::batched::Cg<Mode::Team>::invoke(member, A, M, b, x, work, settings);
//
// A solver reads the matrix through a view of team_spmv.hpp, keeps its vectors in `work`
// (krylov_workspace(method, n, restart) values, shared by the team) and returns how it ended:
// converged, out of iterations, or broken down (a zero or non-finite pivot) — never a trap.
// Every worker of the team receives the same outcome. The residual it reports is the 2-norm
// of b - A x (for left preconditioning, of M^{-1}(b - A x), on which it stops); the front-level
// solve (krylov.hpp) recomputes the true residual for every system.
#pragma once

#include "loom/batched/sparse/team_spmv.hpp"

namespace loom::batched {

/// How a batched Krylov solve of one system ended.
enum class KrylovStatus : int32 { converged = 0, max_iterations = 1, breakdown = 2 };

/// The Krylov method; the front-level solve picks one per call.
enum class KrylovMethod : int32 { cg, bicgstab, gmres, richardson };

/// Stopping rule and method parameters, a plain struct that a kernel copies.
struct KrylovSettings {
    int max_iterations = 1000;
    double rtol = 1e-10;       ///< stop when ||r|| <= max(rtol ||b||, atol)
    double atol = 0;
    int restart = 30;          ///< GMRES: Krylov vectors per cycle
    bool modified_gs = true;   ///< GMRES: modified (true) or classical Gram-Schmidt
    bool right = false;        ///< BiCGSTAB, GMRES, Richardson: right preconditioning
    double relaxation = 1;     ///< Richardson: x += relaxation M^{-1} r
};

/// Iterations done, the final residual norm and the status.
struct KrylovOutcome {
    int32 iterations = 0;
    KrylovStatus status = KrylovStatus::max_iterations;
    double residual = 0;
};

/// Workspace values one system of n unknowns needs for method (preconditioner not included).
LOOM_HOST_DEVICE constexpr size_type krylov_workspace(KrylovMethod method, size_type n,
                                                      int restart)
{
    switch (method) {
    case KrylovMethod::cg: return 4 * n;
    case KrylovMethod::bicgstab: return 9 * n;
    case KrylovMethod::gmres: {
        const size_type m = restart < 1 ? 1 : restart;
        return (m + 1) * n + 2 * n + (m + 1) * m + 4 * (m + 1);
    }
    case KrylovMethod::richardson: return 3 * n;
    }
    return 0;
}

/// No preconditioner: z := r.
struct IdentityPrec {
    template <typename Par, typename VR, typename VZ>
    LOOM_HOST_DEVICE void apply(const Par& par, const VR& r, const VZ& z) const
    {
        par.flat(r.size(), [&](int i) { z(i) = r(i); });
        par.barrier();
    }
};

/// Scalar Jacobi: z := D^{-1} r with the inverted diagonal (JacobiSetup).
template <typename T>
struct JacobiPrec {
    const T* inv_diag = nullptr;

    template <typename Par, typename VR, typename VZ>
    LOOM_HOST_DEVICE void apply(const Par& par, const VR& r, const VZ& z) const
    {
        par.flat(r.size(), [&](int i) { z(i) = inv_diag[i] * r(i); });
        par.barrier();
    }
};

/// Block Jacobi: z := blockdiag(A)^{-1} r with the inverted diagonal blocks of block_size rows
/// (the last one may be smaller), each row-major block_size x block_size (BlockJacobiSetup).
template <typename T>
struct BlockJacobiPrec {
    const T* inv_blocks = nullptr;
    int block_size = 1;

    template <typename Par, typename VR, typename VZ>
    LOOM_HOST_DEVICE void apply(const Par& par, const VR& r, const VZ& z) const
    {
        const int n = r.size();
        par.flat(n, [&](int i) {
            const int first = i / block_size * block_size;
            const int size = detail::min_int(block_size, n - first);
            const T* row = inv_blocks + static_cast<size_type>(first) * block_size +
                           (i - first) * block_size;
            T sum(0);
            for (int j = 0; j < size; ++j) sum += row[j] * r(first + j);
            z(i) = sum;
        });
        par.barrier();
    }
};

/// Values the block Jacobi inverse of an n x n matrix takes.
LOOM_HOST_DEVICE constexpr size_type block_jacobi_storage(size_type n, int block_size)
{
    return (n + block_size - 1) / block_size * block_size * block_size;
}

namespace detail {

/// inv_diag(i) := 1 / A(i, i); returns 1 + the first row with a zero diagonal, else 0.
template <typename Par, typename MatrixV, typename T>
LOOM_HOST_DEVICE int jacobi_setup(const Par& par, const MatrixV& A, T* inv_diag)
{
    const int n = A.rows();
    const int zeros = static_cast<int>(par.sum(n, [&](int i) {
        const T d = A.entry(i, i);
        const bool zero = !(math::abs(d) > 0);
        inv_diag[i] = zero ? T(0) : T(T(1) / d);
        return int(zero);
    }));
    par.barrier();
    return zeros;
}

/// Inverts each diagonal block by Gauss-Jordan with partial pivoting, one block per worker.
/// Returns the number of singular blocks (0 when all are invertible).
template <typename Par, typename MatrixV, typename T>
LOOM_HOST_DEVICE int block_jacobi_setup(const Par& par, const MatrixV& A, int block_size,
                                        T* inv_blocks)
{
    using R = real_type_t<T>;
    const int n = A.rows();
    const int blocks = (n + block_size - 1) / block_size;
    const int bs = block_size;
    // Each block is inverted by the worker that the reduction hands it to; the reduction
    // counts the singular ones.
    const int singular = static_cast<int>(par.sum(blocks, [&](int blk) {
        const int first = blk * bs;
        const int size = min_int(bs, n - first);
        T* inv = inv_blocks + static_cast<size_type>(first) * bs;
        T block[16 * 16];
        for (int i = 0; i < size; ++i) {
            for (int j = 0; j < size; ++j) {
                block[i * size + j] = A.entry(first + i, first + j);
                inv[i * bs + j] = i == j ? T(1) : T(0);
            }
        }
        for (int k = 0; k < size; ++k) {
            int pivot = k;
            for (int i = k + 1; i < size; ++i) {
                if (math::abs(block[i * size + k]) > math::abs(block[pivot * size + k])) pivot = i;
            }
            if (!(math::abs(block[pivot * size + k]) > R(0))) {
                for (int i = 0; i < size * bs; ++i) inv[i] = T(0);
                return 1;
            }
            for (int j = 0; j < size; ++j) {
                swap_values(block[k * size + j], block[pivot * size + j]);
                swap_values(inv[k * bs + j], inv[pivot * bs + j]);
            }
            const T scale = T(1) / block[k * size + k];
            for (int j = 0; j < size; ++j) {
                block[k * size + j] *= scale;
                inv[k * bs + j] *= scale;
            }
            for (int i = 0; i < size; ++i) {
                if (i == k) continue;
                const T factor = block[i * size + k];
                for (int j = 0; j < size; ++j) {
                    block[i * size + j] -= factor * block[k * size + j];
                    inv[i * bs + j] -= factor * inv[k * bs + j];
                }
            }
        }
        return 0;
    }));
    par.barrier();
    return singular;
}

template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE VectorView<T> work_vector(T* work, int n, int index)
{
    return {work + static_cast<size_type>(index) * n, n};
}

/// x·y with x conjugated, returned to every worker.
template <typename Par, typename VX, typename VY>
LOOM_HOST_DEVICE LOOM_INLINE auto cdot(const Par& par, const VX& x, const VY& y)
{
    using T = value_of<VY>;
    return par.sum(x.size(), [&](int i) { return T(math::conj(x(i)) * y(i)); });
}

template <typename Par, typename VX>
LOOM_HOST_DEVICE LOOM_INLINE double norm2(const Par& par, const VX& x)
{
    using R = real_type_t<value_of<VX>>;
    return static_cast<double>(
        math::sqrt(par.sum(x.size(), [&](int i) { return R(math::abs2(x(i))); })));
}

/// Whether a pivot is unusable: zero or not finite (NaN fails every comparison).
template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE bool bad_pivot(const T& value)
{
    const double magnitude = static_cast<double>(math::abs(value));
    return !(magnitude > 0) || !(magnitude < 1e300);
}

/// r := b - A x.
template <typename Par, typename MatrixV, typename VB, typename VX, typename VR>
LOOM_HOST_DEVICE void residual(const Par& par, const MatrixV& A, const VB& b, const VX& x,
                               const VR& r)
{
    using T = value_of<VR>;
    par.flat(r.size(), [&](int i) { r(i) = b(i); });
    par.barrier();
    spmv(par, T(-1), A, x, T(1), r);
}

/// The tolerance of a right-hand side of norm b_norm.
LOOM_HOST_DEVICE LOOM_INLINE double tolerance(const KrylovSettings& s, double b_norm)
{
    const double relative = s.rtol * b_norm;
    return relative > s.atol ? relative : s.atol;
}

template <typename Par, typename MatrixV, typename Prec, typename VB, typename VX, typename T>
LOOM_HOST_DEVICE KrylovOutcome cg(const Par& par, const MatrixV& A, const Prec& M, const VB& b,
                                  const VX& x, T* work, const KrylovSettings& s)
{
    using R = real_type_t<T>;
    const int n = A.rows();
    const auto r = work_vector(work, n, 0);
    const auto z = work_vector(work, n, 1);
    const auto p = work_vector(work, n, 2);
    const auto Ap = work_vector(work, n, 3);
    KrylovOutcome out;
    const double tol = tolerance(s, norm2(par, b));
    residual(par, A, b, x, r);
    out.residual = norm2(par, r);
    if (out.residual <= tol) {
        out.status = KrylovStatus::converged;
        return out;
    }
    M.apply(par, r, z);
    par.flat(n, [&](int i) { p(i) = z(i); });
    par.barrier();
    T rz = cdot(par, r, z);
    while (out.iterations < s.max_iterations) {
        spmv(par, T(1), A, p, T(0), Ap);
        const T pAp = cdot(par, p, Ap);
        if (bad_pivot(rz) || bad_pivot(pAp) || !(math::real(pAp) > R(0))) {
            out.status = KrylovStatus::breakdown;
            return out;
        }
        const T alpha = rz / pAp;
        par.flat(n, [&](int i) {
            x(i) += alpha * p(i);
            r(i) -= alpha * Ap(i);
        });
        par.barrier();
        ++out.iterations;
        out.residual = norm2(par, r);
        if (out.residual <= tol) {
            out.status = KrylovStatus::converged;
            return out;
        }
        M.apply(par, r, z);
        const T rz_next = cdot(par, r, z);
        const T beta = rz_next / rz;
        rz = rz_next;
        par.flat(n, [&](int i) { p(i) = z(i) + beta * p(i); });
        par.barrier();
    }
    return out;
}

/// out := op(in) where op is A (right preconditioning) or M^{-1} A (left; tmp holds A in).
template <typename Par, typename MatrixV, typename Prec, typename VI, typename VO, typename VT>
LOOM_HOST_DEVICE void apply_operator(const Par& par, bool right, const MatrixV& A,
                                     const Prec& M, const VI& in, const VO& out, const VT& tmp)
{
    using T = value_of<VO>;
    if (right) {
        spmv(par, T(1), A, in, T(0), out);
    } else {
        spmv(par, T(1), A, in, T(0), tmp);
        M.apply(par, tmp, out);
    }
}

/// out := M^{-1} in (right preconditioning) or in (left: the operator already holds M).
template <typename Par, typename Prec, typename VI, typename VO>
LOOM_HOST_DEVICE void apply_right(const Par& par, bool right, const Prec& M, const VI& in,
                                  const VO& out)
{
    if (right) {
        M.apply(par, in, out);
    } else {
        IdentityPrec{}.apply(par, in, out);
    }
}

/// The residual a solver stops on: b - A x, or M^{-1}(b - A x) for left preconditioning.
template <typename Par, typename MatrixV, typename Prec, typename VB, typename VX, typename VR,
          typename VT>
LOOM_HOST_DEVICE void solver_residual(const Par& par, bool right, const MatrixV& A,
                                      const Prec& M, const VB& b, const VX& x, const VR& r,
                                      const VT& tmp)
{
    if (right) {
        residual(par, A, b, x, r);
    } else {
        residual(par, A, b, x, tmp);
        M.apply(par, tmp, r);
    }
}

/// The norm of the right-hand side the stopping rule is relative to (M^{-1} b for left).
template <typename Par, typename Prec, typename VB, typename VT>
LOOM_HOST_DEVICE double rhs_norm(const Par& par, bool right, const Prec& M, const VB& b,
                                 const VT& tmp)
{
    if (right) return norm2(par, b);
    M.apply(par, b, tmp);
    return norm2(par, tmp);
}

template <typename Par, typename MatrixV, typename Prec, typename VB, typename VX, typename T>
LOOM_HOST_DEVICE KrylovOutcome bicgstab(const Par& par, const MatrixV& A, const Prec& M,
                                        const VB& b, const VX& x, T* work,
                                        const KrylovSettings& s)
{
    const int n = A.rows();
    const auto r = work_vector(work, n, 0);
    const auto rhat = work_vector(work, n, 1);
    const auto p = work_vector(work, n, 2);
    const auto v = work_vector(work, n, 3);
    const auto sv = work_vector(work, n, 4);
    const auto phat = work_vector(work, n, 5);
    const auto shat = work_vector(work, n, 6);
    const auto t = work_vector(work, n, 7);
    const auto tmp = work_vector(work, n, 8);
    KrylovOutcome out;
    const double tol = tolerance(s, rhs_norm(par, s.right, M, b, tmp));
    solver_residual(par, s.right, A, M, b, x, r, tmp);
    out.residual = norm2(par, r);
    if (out.residual <= tol) {
        out.status = KrylovStatus::converged;
        return out;
    }
    par.flat(n, [&](int i) {
        rhat(i) = r(i);
        p(i) = T(0);
        v(i) = T(0);
    });
    par.barrier();
    T rho(1), alpha(1), omega(1);
    while (out.iterations < s.max_iterations) {
        const T rho_next = cdot(par, rhat, r);
        if (bad_pivot(rho_next) || bad_pivot(omega)) {
            out.status = KrylovStatus::breakdown;
            return out;
        }
        const T beta = rho_next / rho * (alpha / omega);
        rho = rho_next;
        par.flat(n, [&](int i) { p(i) = r(i) + beta * (p(i) - omega * v(i)); });
        par.barrier();
        apply_right(par, s.right, M, p, phat);
        apply_operator(par, s.right, A, M, phat, v, tmp);
        const T rhat_v = cdot(par, rhat, v);
        if (bad_pivot(rhat_v)) {
            out.status = KrylovStatus::breakdown;
            return out;
        }
        alpha = rho / rhat_v;
        par.flat(n, [&](int i) { sv(i) = r(i) - alpha * v(i); });
        par.barrier();
        ++out.iterations;
        const double s_norm = norm2(par, sv);
        if (s_norm <= tol) {
            par.flat(n, [&](int i) { x(i) += alpha * phat(i); });
            par.barrier();
            out.residual = s_norm;
            out.status = KrylovStatus::converged;
            return out;
        }
        apply_right(par, s.right, M, sv, shat);
        apply_operator(par, s.right, A, M, shat, t, tmp);
        const T tt = cdot(par, t, t);
        if (bad_pivot(tt)) {
            out.status = KrylovStatus::breakdown;
            return out;
        }
        omega = cdot(par, t, sv) / tt;
        par.flat(n, [&](int i) {
            x(i) += alpha * phat(i) + omega * shat(i);
            r(i) = sv(i) - omega * t(i);
        });
        par.barrier();
        out.residual = norm2(par, r);
        if (out.residual <= tol) {
            out.status = KrylovStatus::converged;
            return out;
        }
    }
    return out;
}

/// The Givens rotation that zeroes b against a: c real, [c s; -conj(s) c] unitary.
template <typename T>
LOOM_HOST_DEVICE void givens(const T& a, const T& b, T& c, T& s)
{
    using R = real_type_t<T>;
    const R abs_a = math::abs(a);
    if (!(abs_a > R(0))) {
        c = T(0);
        s = T(1);
        return;
    }
    const R norm = math::sqrt(abs_a * abs_a + math::abs2(b));
    c = T(abs_a / norm);
    s = (a / T(abs_a)) * math::conj(b) / T(norm);
}

template <typename Par, typename MatrixV, typename Prec, typename VB, typename VX, typename T>
LOOM_HOST_DEVICE KrylovOutcome gmres(const Par& par, const MatrixV& A, const Prec& M,
                                     const VB& b, const VX& x, T* work, const KrylovSettings& s)
{
    const int n = A.rows();
    const int m = s.restart < 1 ? 1 : s.restart;
    // Layout: m + 1 basis vectors, z, tmp, then H ((m + 1) x m, row-major), cs, sn, g, y.
    const auto basis = [&](int j) { return work_vector(work, n, j); };
    const auto z = work_vector(work, n, m + 1);
    const auto tmp = work_vector(work, n, m + 2);
    T* H = work + static_cast<size_type>(m + 3) * n;
    T* cs = H + (m + 1) * m;
    T* sn = cs + (m + 1);
    T* g = sn + (m + 1);
    T* y = g + (m + 1);
    KrylovOutcome out;
    const double tol = tolerance(s, rhs_norm(par, s.right, M, b, tmp));
    while (true) {
        const auto r = basis(0);
        solver_residual(par, s.right, A, M, b, x, r, tmp);
        const double beta = norm2(par, r);
        out.residual = beta;
        if (beta <= tol) {
            out.status = KrylovStatus::converged;
            return out;
        }
        if (out.iterations >= s.max_iterations) return out;
        par.flat(n, [&](int i) { r(i) = r(i) / T(beta); });
        par.single([&] {
            g[0] = T(beta);
            for (int i = 1; i <= m; ++i) g[i] = T(0);
        });
        par.barrier();
        int k = 0;
        bool breakdown = false;
        while (k < m && out.iterations < s.max_iterations) {
            const auto w = basis(k + 1);
            apply_right(par, s.right, M, basis(k), z);
            apply_operator(par, s.right, A, M, z, w, tmp);
            T* h = H;  // column k: h[i * m + k]
            if (s.modified_gs) {
                for (int i = 0; i <= k; ++i) {
                    const T hik = cdot(par, basis(i), w);
                    par.flat(n, [&](int l) { w(l) -= hik * basis(i)(l); });
                    par.single([&] { h[i * m + k] = hik; });
                    par.barrier();
                }
            } else {
                for (int i = 0; i <= k; ++i) {
                    const T hik = cdot(par, basis(i), w);
                    par.single([&] { h[i * m + k] = hik; });
                }
                par.barrier();
                par.flat(n, [&](int l) {
                    T sum(0);
                    for (int i = 0; i <= k; ++i) sum += h[i * m + k] * basis(i)(l);
                    w(l) -= sum;
                });
                par.barrier();
            }
            const double h_next = norm2(par, w);
            if (h_next > 0) {
                par.flat(n, [&](int l) { w(l) = w(l) / T(h_next); });
            }
            par.single([&] {
                h[(k + 1) * m + k] = T(h_next);
                for (int i = 0; i < k; ++i) {
                    const T upper = cs[i] * h[i * m + k] + sn[i] * h[(i + 1) * m + k];
                    h[(i + 1) * m + k] =
                        -math::conj(sn[i]) * h[i * m + k] + cs[i] * h[(i + 1) * m + k];
                    h[i * m + k] = upper;
                }
                givens(h[k * m + k], h[(k + 1) * m + k], cs[k], sn[k]);
                h[k * m + k] = cs[k] * h[k * m + k] + sn[k] * h[(k + 1) * m + k];
                h[(k + 1) * m + k] = T(0);
                g[k + 1] = -math::conj(sn[k]) * g[k];
                g[k] = cs[k] * g[k];
            });
            par.barrier();
            ++k;
            ++out.iterations;
            if (bad_pivot(h[(k - 1) * m + k - 1])) {
                breakdown = true;
                break;
            }
            out.residual = static_cast<double>(math::abs(g[k]));
            // A zero h_next is a lucky breakdown: the solution lies in the space built so far.
            if (out.residual <= tol || !(h_next > 0)) break;
        }
        if (breakdown) {
            out.status = KrylovStatus::breakdown;
            return out;
        }
        // y := H(0:k, 0:k)^{-1} g, then x += M^{-1} (V y) (right) or V y (left).
        par.single([&] {
            for (int i = k - 1; i >= 0; --i) {
                T sum = g[i];
                for (int j = i + 1; j < k; ++j) sum -= H[i * m + j] * y[j];
                y[i] = sum / H[i * m + i];
            }
        });
        par.barrier();
        par.flat(n, [&](int l) {
            T sum(0);
            for (int j = 0; j < k; ++j) sum += y[j] * basis(j)(l);
            tmp(l) = sum;
        });
        par.barrier();
        apply_right(par, s.right, M, tmp, z);
        par.flat(n, [&](int l) { x(l) += z(l); });
        par.barrier();
    }
}

template <typename Par, typename MatrixV, typename Prec, typename VB, typename VX, typename T>
LOOM_HOST_DEVICE KrylovOutcome richardson(const Par& par, const MatrixV& A, const Prec& M,
                                          const VB& b, const VX& x, T* work,
                                          const KrylovSettings& s)
{
    const int n = A.rows();
    const auto r = work_vector(work, n, 0);
    const auto z = work_vector(work, n, 1);
    const auto tmp = work_vector(work, n, 2);
    KrylovOutcome out;
    const double tol = tolerance(s, rhs_norm(par, s.right, M, b, tmp));
    const T omega(s.relaxation);
    while (true) {
        solver_residual(par, s.right, A, M, b, x, r, tmp);
        out.residual = norm2(par, r);
        if (out.residual <= tol) {
            out.status = KrylovStatus::converged;
            return out;
        }
        if (!(out.residual < 1e300)) {
            out.status = KrylovStatus::breakdown;
            return out;
        }
        if (out.iterations >= s.max_iterations) return out;
        apply_right(par, s.right, M, r, z);
        par.flat(n, [&](int i) { x(i) += omega * z(i); });
        par.barrier();
        ++out.iterations;
    }
}

/// The method named at run time.
template <typename Par, typename MatrixV, typename Prec, typename VB, typename VX, typename T>
LOOM_HOST_DEVICE KrylovOutcome krylov(const Par& par, KrylovMethod method, const MatrixV& A,
                                      const Prec& M, const VB& b, const VX& x, T* work,
                                      const KrylovSettings& s)
{
    switch (method) {
    case KrylovMethod::cg: return cg(par, A, M, b, x, work, s);
    case KrylovMethod::bicgstab: return bicgstab(par, A, M, b, x, work, s);
    case KrylovMethod::gmres: return gmres(par, A, M, b, x, work, s);
    case KrylovMethod::richardson: break;
    }
    return richardson(par, A, M, b, x, work, s);
}

}  // namespace detail

// One struct per method, as the dense routines: invoke([member,] A, M, b, x, work, settings).
#define LOOM_BATCHED_KRYLOV_ROUTINE(Name, function)                                            \
    template <typename ModeT>                                                                  \
    struct Name {                                                                              \
        static_assert(is_mode_v<ModeT>);                                                       \
        template <typename MatrixV, typename Prec, typename VB, typename VX, typename T>      \
            requires std::is_same_v<ModeT, Mode::Serial>                                       \
        LOOM_HOST_DEVICE static KrylovOutcome invoke(const MatrixV& A, const Prec& M,          \
                                                     const VB& b, const VX& x, T* work,        \
                                                     const KrylovSettings& settings)           \
        {                                                                                      \
            return detail::function(detail::SerialPar{}, A, M, b, x, work, settings);         \
        }                                                                                      \
        template <typename Member, typename MatrixV, typename Prec, typename VB, typename VX,  \
                  typename T>                                                                  \
            requires is_team_mode_v<ModeT>                                                     \
        LOOM_HOST_DEVICE static KrylovOutcome invoke(const Member& member, const MatrixV& A,   \
                                                     const Prec& M, const VB& b, const VX& x,  \
                                                     T* work, const KrylovSettings& settings)  \
        {                                                                                      \
            return detail::function(detail::make_par<ModeT>(member), A, M, b, x, work,        \
                                    settings);                                                 \
        }                                                                                      \
    };
/// Preconditioned CG (the preconditioner applied symmetrically: left and right coincide).
LOOM_BATCHED_KRYLOV_ROUTINE(Cg, cg)
/// BiCGSTAB, left or right preconditioned.
LOOM_BATCHED_KRYLOV_ROUTINE(Bicgstab, bicgstab)
/// GMRES(restart), classical or modified Gram-Schmidt, left or right preconditioned.
LOOM_BATCHED_KRYLOV_ROUTINE(Gmres, gmres)
/// Preconditioned Richardson iteration x += relaxation M^{-1}(b - A x).
LOOM_BATCHED_KRYLOV_ROUTINE(Richardson, richardson)
#undef LOOM_BATCHED_KRYLOV_ROUTINE

/// Inverts A's diagonal into inv_diag (rows() values) for JacobiPrec. Returns 0, or the
/// number of zero diagonal entries (their inverse is set to 0).
template <typename ModeT>
struct JacobiSetup {
    template <typename MatrixV, typename T>
        requires std::is_same_v<ModeT, Mode::Serial>
    LOOM_HOST_DEVICE static int invoke(const MatrixV& A, T* inv_diag)
    {
        return detail::jacobi_setup(detail::SerialPar{}, A, inv_diag);
    }
    template <typename Member, typename MatrixV, typename T>
        requires is_team_mode_v<ModeT>
    LOOM_HOST_DEVICE static int invoke(const Member& member, const MatrixV& A, T* inv_diag)
    {
        return detail::jacobi_setup(detail::make_par<ModeT>(member), A, inv_diag);
    }
};

/// Inverts A's diagonal blocks (block_size at most 16) into inv_blocks
/// (block_jacobi_storage(rows, block_size) values) for BlockJacobiPrec. Returns 0, or the
/// number of singular blocks (their inverse is set to 0).
template <typename ModeT>
struct BlockJacobiSetup {
    template <typename MatrixV, typename T>
        requires std::is_same_v<ModeT, Mode::Serial>
    LOOM_HOST_DEVICE static int invoke(const MatrixV& A, int block_size, T* inv_blocks)
    {
        return detail::block_jacobi_setup(detail::SerialPar{}, A, block_size, inv_blocks);
    }
    template <typename Member, typename MatrixV, typename T>
        requires is_team_mode_v<ModeT>
    LOOM_HOST_DEVICE static int invoke(const Member& member, const MatrixV& A, int block_size,
                                       T* inv_blocks)
    {
        return detail::block_jacobi_setup(detail::make_par<ModeT>(member), A, block_size,
                                          inv_blocks);
    }
};

}  // namespace loom::batched
