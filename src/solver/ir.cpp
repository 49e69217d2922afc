#include "loom/solver/ir.hpp"

#include "base/instantiate.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { rr_slot, omega_slot, slot_count };
enum Vector : int { r_vec, d_vec };

}  // namespace

template <typename V>
detail::Workspace Ir<V>::workspace() const
{
    return {inner_solver() ? 2 : 1, slot_count, 0};
}

template <typename V>
void Ir<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x, detail::SolveState<V>& st) const
{
    const auto& A = *this->system_matrix();
    const auto* S = inner_solver().get();
    const auto& space = st.space();
    auto& s = st.scalars();
    auto& r = st.vector(r_vec);
    auto& d = S ? st.vector(d_vec) : r;
    const auto k = st.columns();

    detail::residual(space, A, b, x, r);
    if (st.start(b, x, r)) return;
    for (size_type it = 1;; ++it) {
        if (S) {
            space.fill(d, V{0});
            S->apply(r, d);
        }
        for (size_type j = 0; j < k; ++j) {
            s.host(omega_slot, j) = st.running(j) ? this->parameters().relaxation_factor : V{0};
        }
        s.push(omega_slot);
        s.axpy(omega_slot, d, x);
        detail::residual(space, A, b, x, r);
        s.conj_dot(rr_slot, r, r);
        s.fetch(rr_slot);
        st.set_norms_from_squares(rr_slot);
        if (st.check(it, &x)) return;
    }
}

#define LOOM_INSTANTIATE_IR(V) template class Ir<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_IR)

}  // namespace loom::solver
