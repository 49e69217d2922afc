#include "loom/solver/minres.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "base/instantiate.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { alfa_slot, beta_slot, rr_slot, inv_beta_slot, zero_slot, neg_ratio_slot,
                  neg_alfa_slot, denom_slot, neg_eps_slot, neg_delta_slot, phi_slot,
                  neg_phi_slot, slot_count };
// r1, r2 and y rotate, as do w_a and w_b (w_{k-1}, w_{k-2}) and their images under A.
enum Vector : int { r1_vec, r2_vec, y_vec, v_vec, wa_vec, wb_vec, res_vec, av_vec, awa_vec,
                    awb_vec };

/// The Lanczos and rotation scalars of one column (Paige and Saunders' names).
template <typename R>
struct Recurrence {
    R oldb = 0;
    R beta = 0;
    R alfa = 0;
    R dbar = 0;
    R epsln = 0;
    R phibar = 0;
    R cs = -1;
    R sn = 0;
};

}  // namespace

template <typename V>
void Minres<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    // References, not a structured binding: the lambdas below use them, and clang 14 (the
    // fuzz build) cannot capture a binding.
    const auto parts = detail::begin_solve(
        *this,
        this->state(b.cols(), {this->preconditioner() ? awb_vec + 1 : res_vec, slot_count, 0}));
    auto& st = parts.st;
    [[maybe_unused]] const auto& A = parts.A;
    [[maybe_unused]] const auto* M = parts.M;
    [[maybe_unused]] const auto& space = parts.space;
    [[maybe_unused]] auto& s = parts.s;
    using R = remove_complex_t<V>;
    int r1 = r1_vec, r2 = r2_vec, y = y_vec, wa = wa_vec, wb = wb_vec, awa = awa_vec,
        awb = awb_vec;
    auto vec = [&](int i) -> matrix::Dense<V>& { return st.vector(i); };
    auto& v = vec(v_vec);
    const auto k = st.columns();
    std::vector<Recurrence<R>> rec(static_cast<std::size_t>(k));

    if (st.start(A, b, x, vec(r1))) return;
    if (M) {
        M->apply(vec(r1), vec(y));
        space.copy(vec(r1), vec(res_vec));
        space.fill(vec(awa), V{0});
        space.fill(vec(awb), V{0});
    } else {
        space.copy(vec(r1), vec(y));
    }
    space.copy(vec(r1), vec(r2));
    space.fill(vec(wa), V{0});
    space.fill(vec(wb), V{0});
    s.conj_dot(beta_slot, vec(r1), vec(y));
    s.fetch(beta_slot);
    for (size_type j = 0; j < k; ++j) {
        const R rmr = std::real(s.host(beta_slot, j));
        if (st.running(j) && st.finite_or_stop(j, s.host(beta_slot, j), "r^H M r", 0) &&
            !(rmr > 0)) {
            st.stop(j, stop::Reason::breakdown, "r^H M r", 0);
        }
        rec[j].beta = rec[j].phibar = st.running(j) ? std::sqrt(rmr) : R{0};
    }
    if (st.all_stopped()) return;

    for (size_type it = 1;; ++it) {
        // v = y / beta, y = A v - (beta / oldb) r1.
        for (size_type j = 0; j < k; ++j) {
            const auto& c = rec[j];
            const bool run = st.running(j);
            s.host(inv_beta_slot, j) = run ? V{1 / c.beta} : V{0};
            s.host(zero_slot, j) = V{0};
            s.host(neg_ratio_slot, j) = run && it > 1 ? V{-c.beta / c.oldb} : V{0};
        }
        s.push(inv_beta_slot, 3);
        s.axpby(inv_beta_slot, vec(y), zero_slot, v);
        A.apply(v, vec(y));
        if (M) space.copy(vec(y), vec(av_vec));
        if (it > 1) s.axpy(neg_ratio_slot, vec(r1), vec(y));
        s.conj_dot(alfa_slot, v, vec(y));
        s.fetch(alfa_slot);
        for (size_type j = 0; j < k; ++j) {
            auto& c = rec[j];
            V neg{0};
            if (st.running(j) && st.finite_or_stop(j, s.host(alfa_slot, j), "v^H A v", it)) {
                c.alfa = std::real(s.host(alfa_slot, j));  // real for a Hermitian A
                neg = V{-c.alfa / c.beta};
            }
            s.host(neg_alfa_slot, j) = neg;
        }
        if (st.all_stopped()) return;
        s.push(neg_alfa_slot);
        s.axpy(neg_alfa_slot, vec(r2), vec(y));
        // r1 <- r2 <- y; the old r1 is free for the next y = M r2.
        std::swap(r1, r2);
        std::swap(r2, y);
        if (M) {
            M->apply(vec(r2), vec(y));
        } else {
            space.copy(vec(r2), vec(y));
        }
        s.conj_dot(beta_slot, vec(r2), vec(y));
        s.fetch(beta_slot);

        for (size_type j = 0; j < k; ++j) {
            auto& c = rec[j];
            R denom = 0, oldeps = 0, delta = 0, phi = 0;
            if (st.running(j) && st.finite_or_stop(j, s.host(beta_slot, j), "r^H M r", it)) {
                const R rmr = std::real(s.host(beta_slot, j));
                if (rmr < 0) {
                    st.stop(j, stop::Reason::breakdown, "r^H M r", it);
                } else {
                    c.oldb = c.beta;
                    c.beta = std::sqrt(rmr);
                    oldeps = c.epsln;
                    delta = c.cs * c.dbar + c.sn * c.alfa;
                    const R gbar = c.sn * c.dbar - c.cs * c.alfa;
                    c.epsln = c.sn * c.beta;
                    c.dbar = -c.cs * c.beta;
                    const R gamma = std::hypot(gbar, c.beta);
                    if (gamma == 0) {
                        st.stop(j, stop::Reason::breakdown, "gamma", it);
                    } else {
                        c.cs = gbar / gamma;
                        c.sn = c.beta / gamma;
                        phi = c.cs * c.phibar;
                        c.phibar = c.sn * c.phibar;
                        denom = 1 / gamma;
                    }
                }
            }
            s.host(denom_slot, j) = V{denom};
            s.host(neg_eps_slot, j) = V{-oldeps * denom};
            s.host(neg_delta_slot, j) = V{-delta * denom};
            s.host(phi_slot, j) = V{phi};
            s.host(neg_phi_slot, j) = V{-phi};
        }
        if (st.all_stopped()) return;
        s.push(denom_slot, 5);
        // w_k = (v - oldeps w_{k-2} - delta w_{k-1}) / gamma, into w_{k-2}'s storage.
        s.axpby(denom_slot, v, neg_eps_slot, vec(wb));
        s.axpy(neg_delta_slot, vec(wa), vec(wb));
        std::swap(wa, wb);
        s.axpy(phi_slot, vec(wa), x);
        if (M) {
            s.axpby(denom_slot, vec(av_vec), neg_eps_slot, vec(awb));
            s.axpy(neg_delta_slot, vec(awa), vec(awb));
            std::swap(awa, awb);
            s.axpy(neg_phi_slot, vec(awa), vec(res_vec));
            s.conj_dot(rr_slot, vec(res_vec), vec(res_vec));
            s.fetch(rr_slot);
            st.set_norms_from_squares(rr_slot);
        } else {
            for (size_type j = 0; j < k; ++j) st.set_norm(j, std::abs(double(rec[j].phibar)));
        }
        // beta = 0: the Krylov space is invariant and holds the solution.
        for (size_type j = 0; j < k; ++j) {
            if (rec[j].beta == 0) st.set_norm(j, 0.0);
        }
        if (st.check(it, &x)) return;
    }
}

#define LOOM_INSTANTIATE_MINRES(V) template class Minres<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_MINRES)

}  // namespace loom::solver
