#include "loom/solver/gcr.hpp"

#include "base/instantiate.hpp"
#include "loom/solver/gmres.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { dot_slot, qq_slot, qr_slot, rr_slot, inv_norm_slot, alpha_slot,
                  neg_alpha_slot, slot_count };
// Then P_0..P_{m-1}, Q_0..Q_{m-1}.
enum Vector : int { r_vec, basis_vec };

}  // namespace

template <typename V>
void Gcr<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    const auto m = this->krylov_dim();
    auto [st, A, M, space, s] = detail::begin_solve(
        *this, this->state(b.cols(), {static_cast<int>(basis_vec + 2 * m), slot_count, 0}));
    auto& r = st.vector(r_vec);
    // A structured binding is named through an init-capture: clang 14 (the fuzz build)
    // cannot capture one directly.
    auto P = [&state = st](size_type i) -> matrix::Dense<V>& {
        return state.vector(static_cast<int>(basis_vec + i));
    };
    auto Q = [&state = st, m](size_type i) -> matrix::Dense<V>& {
        return state.vector(static_cast<int>(basis_vec + m + i));
    };
    const auto k = st.columns();

    if (st.start(A, b, x, r)) return;
    for (size_type it = 1;; ++it) {
        const auto i = (it - 1) % m;  // a new cycle forgets the old directions
        auto& p = P(i);
        auto& q = Q(i);
        if (M) {
            M->apply(r, p);
        } else {
            space.copy(r, p);
        }
        A.apply(p, q);
        // Modified Gram-Schmidt of q against the orthonormal Q_l, p following along.
        for (size_type l = 0; l < i; ++l) {
            s.conj_dot(dot_slot, Q(l), q);
            s.finish(dot_slot);
            s.negate(dot_slot);
            space.axpy(s[dot_slot], Q(l), q);
            space.axpy(s[dot_slot], P(l), p);
        }
        s.conj_dot(qq_slot, q, q);
        s.conj_dot(qr_slot, q, r);
        s.fetch(qq_slot, 2);
        for (size_type j = 0; j < k; ++j) {
            const V qq = s.host(qq_slot, j);
            const V alpha = st.coefficient(j, s.host(qr_slot, j), qq, "alpha", "(A p)^H A p", it);
            s.host(alpha_slot, j) = alpha;
            s.host(neg_alpha_slot, j) = -alpha;
            // A stopped column's p and q are never used again: any finite scale does.
            s.host(inv_norm_slot, j) =
                st.running(j) ? static_cast<V>(1 / detail::norm_from_square(qq)) : V{1};
        }
        if (st.all_stopped()) return;
        s.push(inv_norm_slot, 3);
        s.axpy(alpha_slot, p, x);
        s.axpy(neg_alpha_slot, q, r);
        s.scal(inv_norm_slot, p);
        s.scal(inv_norm_slot, q);
        if (st.check_residual(it, rr_slot, r, x)) return;
    }
}

#define LOOM_INSTANTIATE_GCR(V) template class Gcr<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_GCR)

}  // namespace loom::solver
