#include "loom/solver/bicgstab.hpp"

#include "base/instantiate.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { rho_slot, rr_slot, sigma_slot, tt_slot, ts_slot, alpha_slot,
                  neg_alpha_slot, omega_slot, neg_omega_slot, beta_slot, one_slot, slot_count };
// s lives in r: r - alpha v overwrites r, then r - omega t gives the next residual.
enum Vector : int { r_vec, r_tld_vec, p_vec, v_vec, t_vec, p_hat_vec, s_hat_vec };
// Host values per column.
enum Host : int { rho_old_h, alpha_h, omega_h, host_count };

}  // namespace

// Right-preconditioned BiCGSTAB (Templates for the Solution of Linear Systems, fig. 2.10).
template <typename V>
void Bicgstab<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto& st =
        this->state(b.cols(), {this->preconditioner() ? 7 : 5, slot_count, host_count});
    const auto& A = *this->system_matrix();
    const auto* M = this->preconditioner().get();
    const auto& space = st.space();
    auto& s = st.scalars();
    auto& r = st.vector(r_vec);
    auto& r_tld = st.vector(r_tld_vec);
    auto& p = st.vector(p_vec);
    auto& v = st.vector(v_vec);
    auto& t = st.vector(t_vec);
    auto& p_hat = M ? st.vector(p_hat_vec) : p;
    auto& s_hat = M ? st.vector(s_hat_vec) : r;
    const auto k = st.columns();
    const auto max_restarts = this->parameters().max_restarts;
    const auto host = st.host_values();
    auto at = [&](size_type j, Host h) -> V& { return host[j * host_count + h]; };

    detail::residual(space, A, b, x, r);
    if (st.start(b, x, r)) return;
    space.copy(r, r_tld);
    s.conj_dot(rho_slot, r_tld, r);
    s.fetch(rho_slot);
    for (size_type j = 0; j < k; ++j) s.host(one_slot, j) = V{1};
    s.push(one_slot);

    for (size_type it = 1;; ++it) {
        // rho = r~^H r is in rho_slot, fetched (with r^H r after iteration 1).
        for (size_type j = 0; j < k; ++j) {
            V beta{0};
            V rho = s.host(rho_slot, j);
            if (it > 1 && st.restart_shadow(j, rho, max_restarts)) {
                // r~ = r makes rho = r^H r; beta = 0 restarts p from r.
                detail::copy_column(space, r, r_tld, j);
                rho = s.host(rr_slot, j);
            } else if (st.running(j) && st.usable_denominator(j, rho, "rho", it - 1) && it > 1) {
                beta = (rho / at(j, rho_old_h)) * (at(j, alpha_h) / at(j, omega_h));
                if (!st.finite_or_stop(j, beta, "beta", it - 1)) beta = V{0};
            }
            at(j, rho_old_h) = rho;
            s.host(beta_slot, j) = beta;
        }
        if (st.all_stopped()) return;
        if (it == 1) {
            space.copy(r, p);
        } else {
            s.push(beta_slot);
            s.axpy(neg_omega_slot, v, p);        // p - omega v
            s.axpby(one_slot, r, beta_slot, p);  // r + beta (p - omega v)
        }
        if (M) M->apply(p, p_hat);
        A.apply(p_hat, v);
        s.conj_dot(sigma_slot, r_tld, v);
        s.fetch(sigma_slot);
        for (size_type j = 0; j < k; ++j) {
            const V alpha =
                st.coefficient(j, at(j, rho_old_h), s.host(sigma_slot, j), "alpha", "r~^H A p", it);
            at(j, alpha_h) = alpha;
            s.host(alpha_slot, j) = alpha;
            s.host(neg_alpha_slot, j) = -alpha;
        }
        if (st.all_stopped()) return;
        s.push(alpha_slot, 2);
        s.axpy(neg_alpha_slot, v, r);  // s = r - alpha v
        if (M) M->apply(r, s_hat);
        A.apply(s_hat, t);
        s.conj_dot2(tt_slot, t, t, ts_slot, t, r);
        s.fetch(tt_slot, 2);
        // omega = 0 (t = 0 or t orthogonal to s) keeps the half step x + alpha p_hat with
        // residual s. The next beta would divide by omega, so such a column breaks down
        // after this step unless s, hence the new residual, is zero (it converged).
        for (size_type j = 0; j < k; ++j) {
            V omega{0};
            if (st.running(j)) {
                const V tt = s.host(tt_slot, j);
                if (st.finite_or_stop(j, tt, "t^H t", it) && tt != V{0}) {
                    omega = s.host(ts_slot, j) / tt;
                    if (!st.finite_or_stop(j, omega, "omega", it)) omega = V{0};
                }
            }
            at(j, omega_h) = omega;
            s.host(omega_slot, j) = omega;
            s.host(neg_omega_slot, j) = -omega;
        }
        s.push(omega_slot, 2);
        s.axpy(alpha_slot, p_hat, x);
        s.axpy(omega_slot, s_hat, x);
        s.axpy(neg_omega_slot, t, r);

        s.conj_dot2(rho_slot, r_tld, r, rr_slot, r, r);
        s.fetch(rho_slot, 2);
        st.set_norms_from_squares(rr_slot);
        if (st.check(it, &x)) return;
        for (size_type j = 0; j < k; ++j) {
            if (st.running(j) && at(j, omega_h) == V{0}) {
                st.stop(j, stop::Reason::breakdown, "omega", it);
            }
        }
        if (st.all_stopped()) return;
    }
}

#define LOOM_INSTANTIATE_BICGSTAB(V) template class Bicgstab<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BICGSTAB)

}  // namespace loom::solver
