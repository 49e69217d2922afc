#include "loom/solver/pipe_cg.hpp"

#include <string>

#include "base/instantiate.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

// The slots of the reduction phase come first, contiguous: one finish, one fetch.
enum Slot : int { gamma_slot, delta_slot, rr_slot, alpha_slot, minus_alpha_slot, beta_slot,
                  one_slot, slot_count };
// Without a preconditioner u = r, m = w and q = s: the last three are not allocated.
enum Vector : int { r_vec, w_vec, n_vec, z_vec, s_vec, p_vec, u_vec, m_vec, q_vec };
// Host values per column: gamma and alpha of the previous iteration.
enum Host : int { gamma_old, alpha_old, host_count };

}  // namespace

template <typename V>
PipeCg<V>::PipeCg(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
                  const PipeCgParameters<V>& params)
    : EnableIterativeSolver<PipeCg<V>, V, PipeCgParameters<V>>(std::move(exec),
                                                               std::move(system), params)
{
    if (params.replacement_interval < 0) {
        throw BadInput("loom::solver::pipe-cg",
                       "replacement_interval must not be negative, got " +
                           std::to_string(params.replacement_interval));
    }
}

template <typename V>
void PipeCg<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    // References, not a structured binding: the lambdas below use them, and clang 14 (the
    // fuzz build) cannot capture a binding.
    const auto parts = detail::begin_solve(
        *this, this->state(b.cols(), {this->preconditioner() ? 9 : 6, slot_count, host_count}));
    auto& st = parts.st;
    [[maybe_unused]] const auto& A = parts.A;
    [[maybe_unused]] const auto* M = parts.M;
    [[maybe_unused]] const auto& space = parts.space;
    [[maybe_unused]] auto& s = parts.s;
    auto& r = st.vector(r_vec);
    auto& w = st.vector(w_vec);
    auto& n = st.vector(n_vec);
    auto& z = st.vector(z_vec);
    auto& sv = st.vector(s_vec);
    auto& p = st.vector(p_vec);
    auto& u = M ? st.vector(u_vec) : r;
    auto& m = M ? st.vector(m_vec) : w;
    auto& q = M ? st.vector(q_vec) : sv;
    const auto k = st.columns();
    const auto host = [&](size_type j, Host h) -> V& { return st.host_values()[j * host_count + h]; };
    const char* gamma_name = M ? "r^H M r" : "r^H r";
    const auto interval = this->parameters().replacement_interval;

    if (st.start(A, b, x, r)) return;
    if (M) M->apply(r, u);
    A.apply(u, w);
    for (size_type j = 0; j < k; ++j) s.host(one_slot, j) = V{1};
    s.push(one_slot);

    for (size_type it = 0;; ++it) {
        if (interval > 0 && it > 0 && it % interval == 0) {
            // Residual replacement: r, u, w from x; s, q, z from p (as the recurrences
            // define them), dropping the rounding errors the recurrences accumulated.
            detail::residual(space, A, b, x, r);
            if (M) M->apply(r, u);
            A.apply(u, w);
            A.apply(p, sv);
            if (M) M->apply(sv, q);
            A.apply(q, z);
        }
        // The one reduction phase, overlapped with m = M w and n = A m.
        s.conj_dot(gamma_slot, r, u);
        s.conj_dot(delta_slot, u, w);
        if (M) s.conj_dot(rr_slot, r, r);
        if (M) M->apply(w, m);
        A.apply(m, n);
        s.fetch(gamma_slot, M ? 3 : 2);

        if (it > 0) {
            st.set_norms_from_squares(M ? rr_slot : gamma_slot);
            if (st.check(it, &x)) return;
        }
        for (size_type j = 0; j < k; ++j) {
            const V gamma = s.host(gamma_slot, j);
            const V delta = s.host(delta_slot, j);
            V beta{0};
            V denominator = delta;
            if (it == 0) {
                if (st.running(j)) st.usable_denominator(j, gamma, gamma_name, it);
                host(j, gamma_old) = gamma;
            } else {
                beta = st.next_beta(j, gamma, host(j, gamma_old), gamma, gamma_name, it);
                if (st.running(j)) denominator = delta - beta * gamma / host(j, alpha_old);
            }
            const V alpha =
                st.coefficient(j, gamma, denominator, "alpha", "u^H A u - beta gamma / alpha", it);
            host(j, alpha_old) = alpha;
            s.host(alpha_slot, j) = alpha;
            s.host(minus_alpha_slot, j) = -alpha;
            s.host(beta_slot, j) = beta;
        }
        if (st.all_stopped()) {
            st.freeze(x);
            return;
        }
        s.push(alpha_slot, 3);
        // beta = 0 in the first iteration: the recurrences' old values are not read.
        s.axpby(one_slot, n, beta_slot, z);
        if (M) s.axpby(one_slot, m, beta_slot, q);
        s.axpby(one_slot, w, beta_slot, sv);
        s.axpby(one_slot, u, beta_slot, p);
        s.axpy(alpha_slot, p, x);
        s.axpy(minus_alpha_slot, sv, r);
        if (M) s.axpy(minus_alpha_slot, q, u);
        s.axpy(minus_alpha_slot, z, w);
    }
}

#define LOOM_INSTANTIATE_PIPE_CG(V) template class PipeCg<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_PIPE_CG)

}  // namespace loom::solver
