// CG and FCG: one recurrence, FCG's beta differing (Polak-Ribiere instead of Fletcher-Reeves).
#include "loom/solver/cg.hpp"

#include "base/instantiate.hpp"
#include "loom/solver/fcg.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

// The slots fetched together each iteration come first, contiguous.
enum Slot : int { pq_slot, rho_slot, rr_slot, qz_slot, alpha_slot, beta_slot, one_slot, slot_count };
enum Vector : int { r_vec, p_vec, q_vec, z_vec };

detail::Workspace cg_workspace(bool preconditioned)
{
    return {preconditioned ? 4 : 3, slot_count, 1};
}

/// Preconditioned CG; with `flexible`, beta = z_new^H (r_new - r_old) / rho_old (FCG), which
/// is -conj(alpha) q^H z_new / rho_old since r_new - r_old = -alpha q.
template <typename V>
void run_cg(const IterativeSolver<V>& solver, bool flexible, const matrix::Dense<V>& b,
            matrix::Dense<V>& x, detail::SolveState<V>& st)
{
    const auto& A = *solver.system_matrix();
    const auto* M = solver.preconditioner().get();
    const auto& space = st.space();
    auto& s = st.scalars();
    auto& r = st.vector(r_vec);
    auto& p = st.vector(p_vec);
    auto& q = st.vector(q_vec);
    auto& z = M ? st.vector(z_vec) : r;
    const auto k = st.columns();
    const auto rho = st.host_values();  // rho_old per column
    const char* rho_name = M ? "r^H M r" : "r^H r";

    detail::residual(space, A, b, x, r);
    if (st.start(b, x, r)) return;
    if (M) M->apply(r, z);
    space.copy(z, p);
    s.conj_dot(rho_slot, r, z);
    s.fetch(rho_slot);
    for (size_type j = 0; j < k; ++j) {
        rho[j] = s.host(rho_slot, j);
        if (st.running(j)) st.usable_denominator(j, rho[j], rho_name, 0);
        s.host(one_slot, j) = V{1};
    }
    if (st.all_stopped()) return;
    s.push(one_slot);

    for (size_type it = 1;; ++it) {
        A.apply(p, q);
        s.conj_dot(pq_slot, p, q);
        s.finish(pq_slot);
        // alpha = rho / p^H q is formed on the executor (0 where it would break down), so the
        // iteration goes on without waiting for the host; the host sees p^H q with the next
        // dots, one copy per iteration, and stops a column that broke down then (its x and r
        // unchanged, alpha having been 0).
        space.axpy_quotient(s[rho_slot], s[pq_slot], p, x, false);
        space.axpy_quotient(s[rho_slot], s[pq_slot], q, r, true);
        if (M) M->apply(r, z);

        s.conj_dot(rho_slot, r, z);
        int last = rho_slot;
        if (M) {
            s.conj_dot(rr_slot, r, r);
            last = rr_slot;
        }
        if (flexible) {
            s.conj_dot(qz_slot, q, z);
            last = qz_slot;
        }
        s.fetch(pq_slot, last - pq_slot + 1);
        for (size_type j = 0; j < k; ++j) {
            s.host(alpha_slot, j) =
                st.coefficient(j, rho[j], s.host(pq_slot, j), "alpha", "p^H A p", it);
        }
        if (st.all_stopped()) return;
        st.set_norms_from_squares(M ? rr_slot : rho_slot);
        if (st.check(it, &x)) return;

        for (size_type j = 0; j < k; ++j) {
            const V rho_new = s.host(rho_slot, j);
            const V numerator =
                flexible ? -loom::conj(s.host(alpha_slot, j)) * s.host(qz_slot, j) : rho_new;
            s.host(beta_slot, j) = st.next_beta(j, numerator, rho[j], rho_new, rho_name, it);
        }
        if (st.all_stopped()) return;
        s.push(beta_slot);
        s.axpby(one_slot, z, beta_slot, p);
    }
}

}  // namespace

template <typename V>
void Cg<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto& st = this->state(b.cols(), cg_workspace(this->preconditioner() != nullptr));
    run_cg(*this, false, b, x, st);
}

template <typename V>
void Fcg<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto& st = this->state(b.cols(), cg_workspace(this->preconditioner() != nullptr));
    run_cg(*this, true, b, x, st);
}

#define LOOM_INSTANTIATE_CG(V) \
    template class Cg<V>;      \
    template class Fcg<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_CG)

}  // namespace loom::solver
