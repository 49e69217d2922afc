#include "loom/solver/bicg.hpp"

#include "base/instantiate.hpp"
#include "loom/solver/operators.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { pq_slot, rho_slot, rr_slot, alpha_slot, neg_alpha_slot, neg_conj_alpha_slot,
                  beta_slot, conj_beta_slot, one_slot, slot_count };
enum Vector : int { r_vec, r2_vec, p_vec, p2_vec, q_vec, q2_vec, z_vec, z2_vec };

}  // namespace

template <typename V>
Bicg<V>::Bicg(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
              const ShadowParameters<V>& params)
    : EnableIterativeSolver<Bicg<V>, V, ShadowParameters<V>>(std::move(exec), std::move(system),
                                                             params),
      system_conj_transpose_(loom::conj_transpose(this->system_matrix()))
{
    if (this->preconditioner()) {
        preconditioner_conj_transpose_ = loom::conj_transpose(this->preconditioner());
    }
}

// Preconditioned BiCG: the shadow system runs with A^H and M^H from r2_0 = r_0.
template <typename V>
void Bicg<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto [st, A, M, space, s] = detail::begin_solve(
        *this, this->state(b.cols(), {this->preconditioner() ? 8 : 6, slot_count, 1}));
    const auto& AH = *system_conj_transpose_;
    const auto* MH = preconditioner_conj_transpose_.get();
    auto& r = st.vector(r_vec);
    auto& r2 = st.vector(r2_vec);
    auto& p = st.vector(p_vec);
    auto& p2 = st.vector(p2_vec);
    auto& q = st.vector(q_vec);
    auto& q2 = st.vector(q2_vec);
    auto& z = M ? st.vector(z_vec) : r;
    auto& z2 = M ? st.vector(z2_vec) : r2;
    const auto k = st.columns();
    const auto max_restarts = this->parameters().max_restarts;
    const auto rho = st.host_values();

    if (st.start(A, b, x, r)) return;
    space.copy(r, r2);
    if (M) {
        M->apply(r, z);
        MH->apply(r2, z2);
    }
    space.copy(z, p);
    space.copy(z2, p2);
    s.conj_dot(rho_slot, r2, z);
    s.fetch(rho_slot);
    for (size_type j = 0; j < k; ++j) {
        rho[j] = s.host(rho_slot, j);
        if (st.running(j)) st.usable_denominator(j, rho[j], "rho", 0);
        s.host(one_slot, j) = V{1};
    }
    if (st.all_stopped()) return;
    s.push(one_slot);

    for (size_type it = 1;; ++it) {
        A.apply(p, q);
        AH.apply(p2, q2);
        s.conj_dot(pq_slot, p2, q);
        s.fetch(pq_slot);
        for (size_type j = 0; j < k; ++j) {
            const V alpha = st.coefficient(j, rho[j], s.host(pq_slot, j), "alpha", "p2^H A p", it);
            s.host(alpha_slot, j) = alpha;
            s.host(neg_alpha_slot, j) = -alpha;
            s.host(neg_conj_alpha_slot, j) = -loom::conj(alpha);
        }
        if (st.all_stopped()) return;
        s.push(alpha_slot, 3);
        s.axpy(alpha_slot, p, x);
        s.axpy(neg_alpha_slot, q, r);
        s.axpy(neg_conj_alpha_slot, q2, r2);
        if (M) {
            M->apply(r, z);
            MH->apply(r2, z2);
        }
        s.conj_dot(rho_slot, r2, z);
        s.conj_dot(rr_slot, r, r);
        s.fetch(rho_slot, 2);
        st.set_norms_from_squares(rr_slot);
        if (st.check(it, &x)) return;

        bool restarted = false;
        for (size_type j = 0; j < k; ++j) {
            const V rho_new = s.host(rho_slot, j);
            V beta{0};
            if (st.restart_shadow(j, rho_new, max_restarts)) {
                // r2 = r; beta = 0 restarts p and p2 from z and z2; rho is recomputed below.
                detail::copy_column(space, r, r2, j);
                restarted = true;
            } else {
                beta = st.next_beta(j, rho_new, rho[j], rho_new, "rho", it);
            }
            s.host(beta_slot, j) = beta;
            s.host(conj_beta_slot, j) = loom::conj(beta);
        }
        if (st.all_stopped()) return;
        if (restarted) {
            // The other columns' z2 and rho come out as they were: the same inputs.
            if (M) MH->apply(r2, z2);
            s.conj_dot(rho_slot, r2, z);
            s.fetch(rho_slot);
            for (size_type j = 0; j < k; ++j) {
                rho[j] = s.host(rho_slot, j);
                if (st.running(j)) st.usable_denominator(j, rho[j], "rho", it);
            }
            if (st.all_stopped()) return;
        }
        s.push(beta_slot, 2);
        s.axpby(one_slot, z, beta_slot, p);
        s.axpby(one_slot, z2, conj_beta_slot, p2);
    }
}

#define LOOM_INSTANTIATE_BICG(V) template class Bicg<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BICG)

}  // namespace loom::solver
