#include "loom/solver/ir.hpp"

#include <string>
#include <vector>

#include "base/built_types.hpp"
#include "base/instantiate.hpp"
#include "loom/matrix/csr.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { rr_slot, omega_slot, slot_count };
enum Vector : int { r_vec, d_vec };

constexpr const char* where = "loom::solver::ir";

/// A rounded to the lower precision, when it is a Csr with index type I (else nullptr).
/// Rounded on the host: this runs once, at generation.
template <typename V, typename I>
std::shared_ptr<const LinOp<lower_precision_t<V>>> rounded_csr(const LinOp<V>& A)
{
    using S = lower_precision_t<V>;
    const auto* csr = dynamic_cast<const matrix::Csr<V, I>*>(&A);
    if (!csr) return nullptr;
    const auto exec = csr->executor();
    const auto values = csr->values().to_host();
    const std::vector<S> rounded(values.begin(), values.end());
    return std::make_shared<matrix::Csr<S, I>>(exec, csr->size(), Array<I>(exec, csr->row_ptrs()),
                                               Array<I>(exec, csr->col_idxs()),
                                               Array<S>(exec, rounded));
}

}  // namespace

template <typename V>
Ir<V>::Ir(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
          const IrParameters<V>& params)
    : EnableIterativeSolver<Ir<V>, V, IrParameters<V>>(std::move(exec), std::move(system), params)
{
    using S = lower_precision_t<V>;
    if (!params.lower_precision_solver) return;
    if constexpr (std::is_same_v<S, V>) {
        throw BadInput(where, "a lower-precision inner solver needs a value type with a lower "
                              "precision (double or complex<double>)");
    } else if constexpr (!loom::detail::is_built_value_type<S>()) {
        throw BadInput(where, "the lower precision's value type is not built (add it to "
                              "LOOM_VALUE_TYPES)");
    } else {
        const auto& A = *this->system_matrix();
        std::shared_ptr<const LinOp<S>> rounded;
        if constexpr (LOOM_HAS_INT32) rounded = rounded_csr<V, int32>(A);
        if constexpr (LOOM_HAS_INT64) {
            if (!rounded) rounded = rounded_csr<V, int64>(A);
        }
        if (!rounded) {
            throw BadInput(where, "a lower-precision inner solver needs a matrix::Csr system");
        }
        lower_solver_ = params.lower_precision_solver->generate(rounded);
    }
}

template <typename V>
void Ir<V>::solve_in_lower_precision(detail::SolveState<V>& st, const matrix::Dense<V>& r,
                                     matrix::Dense<V>& d) const
{
    using S = lower_precision_t<V>;
    if constexpr (!std::is_same_v<S, V> && loom::detail::is_built_value_type<S>()) {
        const auto& space = st.space();
        const auto k = st.columns();
        if (lower_r_.size() != space.rows() * k) {
            lower_r_ = space.create_compressed(k);
            lower_d_ = space.create_compressed(k);
        }
        const auto exec = space.executor();
        auto r_low = matrix::Dense<S>::view(exec, {space.rows(), k}, k, lower_r_.data());
        auto d_low = matrix::Dense<S>::view(exec, {space.rows(), k}, k, lower_d_.data());
        space.compress(r, lower_r_);
        d_low.fill(S{0});
        lower_solver_->apply(r_low, d_low);
        space.decompress(lower_d_, d);
    }
}

template <typename V>
void Ir<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto& st = this->state(b.cols(), {inner_solver() || lower_solver_ ? 2 : 1, slot_count, 0});
    const auto& A = *this->system_matrix();
    const auto* S = inner_solver().get();
    const auto& space = st.space();
    auto& s = st.scalars();
    auto& r = st.vector(r_vec);
    auto& d = S || lower_solver_ ? st.vector(d_vec) : r;
    const auto k = st.columns();

    if (st.start(A, b, x, r)) return;
    for (size_type it = 1;; ++it) {
        if (lower_solver_) {
            solve_in_lower_precision(st, r, d);
        } else if (S) {
            space.fill(d, V{0});
            S->apply(r, d);
        }
        for (size_type j = 0; j < k; ++j) {
            s.host(omega_slot, j) = st.running(j) ? this->parameters().relaxation_factor : V{0};
        }
        s.push(omega_slot);
        s.axpy(omega_slot, d, x);
        detail::residual(space, A, b, x, r);
        if (st.check_residual(it, rr_slot, r, x)) return;
    }
}

#define LOOM_INSTANTIATE_IR(V) template class Ir<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_IR)

}  // namespace loom::solver
