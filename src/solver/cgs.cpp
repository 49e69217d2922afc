#include "loom/solver/cgs.hpp"

#include "base/instantiate.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { rho_slot, rr_slot, sigma_slot, alpha_slot, neg_alpha_slot, beta_slot,
                  beta_squared_slot, slot_count };
// v_hat and q_hat share storage (v_hat is dead once q is formed), as do p_hat and u_hat.
enum Vector : int { r_vec, r_tld_vec, u_vec, p_vec, q_vec, v_hat_vec, t_vec, p_hat_vec };

}  // namespace

// Right-preconditioned CGS (Templates for the Solution of Linear Systems, fig. 2.9).
template <typename V>
void Cgs<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto [st, A, M, space, s] = detail::begin_solve(
        *this, this->state(b.cols(), {this->preconditioner() ? 8 : 7, slot_count, 1}));
    auto& r = st.vector(r_vec);
    auto& r_tld = st.vector(r_tld_vec);
    auto& u = st.vector(u_vec);
    auto& p = st.vector(p_vec);
    auto& q = st.vector(q_vec);
    auto& v_hat = st.vector(v_hat_vec);
    auto& q_hat = v_hat;
    auto& t = st.vector(t_vec);
    auto& p_hat = M ? st.vector(p_hat_vec) : p;
    auto& u_hat = M ? st.vector(p_hat_vec) : t;
    const auto k = st.columns();
    const auto max_restarts = this->parameters().max_restarts;
    const auto rho = st.host_values();

    if (st.start(A, b, x, r)) return;
    space.copy(r, r_tld);
    s.conj_dot(rho_slot, r_tld, r);
    s.fetch(rho_slot);
    for (size_type j = 0; j < k; ++j) {
        rho[j] = s.host(rho_slot, j);
        if (st.running(j)) st.usable_denominator(j, rho[j], "rho", 0);
    }
    if (st.all_stopped()) return;
    space.copy(r, u);
    space.copy(r, p);

    for (size_type it = 1;; ++it) {
        if (M) M->apply(p, p_hat);
        A.apply(p_hat, v_hat);
        s.conj_dot(sigma_slot, r_tld, v_hat);
        s.fetch(sigma_slot);
        for (size_type j = 0; j < k; ++j) {
            const V alpha =
                st.coefficient(j, rho[j], s.host(sigma_slot, j), "alpha", "r~^H A p", it);
            s.host(alpha_slot, j) = alpha;
            s.host(neg_alpha_slot, j) = -alpha;
        }
        if (st.all_stopped()) return;
        s.push(alpha_slot, 2);
        space.copy(u, q);
        s.axpy(neg_alpha_slot, v_hat, q);  // q = u - alpha v_hat
        space.copy(u, t);
        space.axpy(V{1}, q, t);  // t = u + q
        if (M) M->apply(t, u_hat);
        s.axpy(alpha_slot, u_hat, x);
        A.apply(u_hat, q_hat);
        s.axpy(neg_alpha_slot, q_hat, r);

        s.conj_dot(rho_slot, r_tld, r);
        s.conj_dot(rr_slot, r, r);
        s.fetch(rho_slot, 2);
        st.set_norms_from_squares(rr_slot);
        if (st.check(it, &x)) return;

        for (size_type j = 0; j < k; ++j) {
            const V rho_new = s.host(rho_slot, j);
            V beta{0};
            if (st.restart_shadow(j, rho_new, max_restarts)) {
                // r~ = r makes rho = r^H r; beta = 0 restarts u and p from r.
                detail::copy_column(space, r, r_tld, j);
                rho[j] = s.host(rr_slot, j);
            } else {
                beta = st.next_beta(j, rho_new, rho[j], rho_new, "rho", it);
            }
            s.host(beta_slot, j) = beta;
            s.host(beta_squared_slot, j) = beta * beta;
        }
        if (st.all_stopped()) return;
        s.push(beta_slot, 2);
        space.copy(r, u);
        s.axpy(beta_slot, q, u);                      // u = r + beta q
        s.axpby(beta_slot, q, beta_squared_slot, p);  // p = beta q + beta^2 p
        space.axpy(V{1}, u, p);                       //   + u
    }
}

#define LOOM_INSTANTIATE_CGS(V) template class Cgs<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_CGS)

}  // namespace loom::solver
