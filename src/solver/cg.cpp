// CG and FCG: one recurrence, FCG's beta differing (Polak-Ribiere instead of Fletcher-Reeves).
//
// An iteration is q = A p, p^H q, then two fused steps of the vector space: r -= alpha q
// with r^H r in one pass, and x += alpha p with p = z + beta p in another, every coefficient
// formed on the executor. The steps also decide there which columns go on (the solver's own
// tests, blas::cg_direction_step), so on a device a block of iterations runs without the
// host (solver/run_ahead.hpp): their scalars are written once each, to one row per
// iteration of a ring, read back with one copy per block and replayed through the host
// logic below, which gives the criteria, the loggers and the result exactly the iterations
// the unfused method would have. A column that stopped inside a block is left untouched by
// the steps after it.
#include "loom/solver/cg.hpp"

#include "base/instantiate.hpp"
#include "loom/solver/fcg.hpp"
#include "solver/run_ahead.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

// The scalars of iteration `it` are the row it % ring_rows; the fields a step reduces
// together are adjacent (one all-reduce when distributed).
enum Field : int { pq_field, rr_field, rho_field, qz_field, gate_field, field_count };
constexpr int ring_rows = static_cast<int>(detail::BlockPlanner::max_block) + 1;
constexpr int threshold_slot = ring_rows * field_count;
constexpr int slot_count = threshold_slot + 1;
enum Vector : int { r_vec, p_vec, q_vec, z_vec };
enum Host : int { rho_old_h, alpha_h, host_count };

int slot(size_type it, int field)
{
    return static_cast<int>(it % ring_rows) * field_count + field;
}

detail::Workspace cg_workspace(bool preconditioned)
{
    return {preconditioned ? 4 : 3, slot_count, host_count};
}

/// Preconditioned CG; with `flexible`, beta = z_new^H (r_new - r_old) / rho_old (FCG), which
/// is -conj(alpha) q^H z_new / rho_old since r_new - r_old = -alpha q.
template <typename V>
class CgRun {
public:
    CgRun(const IterativeSolver<V>& solver, bool flexible, detail::SolveState<V>& st)
        : A_(*solver.system_matrix()),
          M_(solver.preconditioner().get()),
          criteria_(*solver.criteria()),
          flexible_(flexible),
          st_(st),
          space_(st.space()),
          s_(st.scalars()),
          r_(st.vector(r_vec)),
          p_(st.vector(p_vec)),
          q_(st.vector(q_vec)),
          z_(M_ ? st.vector(z_vec) : r_),
          k_(st.columns()),
          host_(st.host_values()),
          rho_(M_ ? rho_field : rr_field),
          rho_name_(M_ ? "r^H M r" : "r^H r")
    {}

    void run(const matrix::Dense<V>& b, matrix::Dense<V>& x)
    {
        if (st_.start(A_, b, x, r_)) return;
        if (M_) M_->apply(r_, z_);
        space_.copy(z_, p_);
        s_.conj_dot(slot(0, rho_), r_, z_);
        s_.fetch(slot(0, rho_));
        for (size_type j = 0; j < k_; ++j) {
            rho_old(j) = s_.host(slot(0, rho_), j);
            if (st_.running(j)) st_.usable_denominator(j, rho_old(j), rho_name_, 0);
        }
        if (st_.all_stopped()) return;

        const auto device = detail::device_criteria(criteria_, st_);
        exact_ = device.exact;
        for (size_type j = 0; j < k_; ++j) {
            s_.host(slot(0, gate_field), j) = st_.running(j) ? V{1} : V{0};
        }
        s_.store(slot(0, gate_field));
        detail::store_thresholds(s_, threshold_slot, device);
        detail::run_blocks(
            device, st_, ring_rows * field_count, [&](size_type it) { iterate(it, x); },
            [&](size_type it) { return replay(it, x); });
    }

private:
    V& rho_old(size_type j) { return host_[j * host_count + rho_old_h]; }
    V& alpha(size_type j) { return host_[j * host_count + alpha_h]; }

    /// One iteration on the executor, no value read by the host.
    void iterate(size_type it, matrix::Dense<V>& x)
    {
        A_.apply(p_, q_);
        s_.conj_dot(slot(it, pq_field), p_, q_);
        s_.finish(slot(it, pq_field));
        blas::CgStepScalars<V> c;
        c.gate = &s_[slot(it - 1, gate_field)];
        c.rho_old = &s_[slot(it - 1, rho_)];
        c.pq = &s_[slot(it, pq_field)];
        c.rr = &s_.partial(slot(it, rr_field));
        space_.cg_residual_step(c, q_, r_);
        if (M_) M_->apply(r_, z_);
        if (M_ && flexible_) {
            space_.conj_dot2(r_, z_, s_.partial(slot(it, rho_field)), q_, z_,
                             s_.partial(slot(it, qz_field)));
        } else if (M_) {
            s_.conj_dot(slot(it, rho_field), r_, z_);
        } else if (flexible_) {
            s_.conj_dot(slot(it, qz_field), q_, z_);
        }
        s_.finish(slot(it, rr_field), 3);
        c.rho_new = &s_[slot(it, rho_)];
        c.qz = flexible_ ? &s_[slot(it, qz_field)] : nullptr;
        c.threshold = &s_[threshold_slot];
        c.gate_new = &s_.out(slot(it, gate_field));
        space_.cg_direction_step(c, z_, p_, x);
    }

    /// The host's decisions on iteration it's scalars (fetched); true when every column
    /// stopped.
    bool replay(size_type it, matrix::Dense<V>& x)
    {
        for (size_type j = 0; j < k_; ++j) {
            alpha(j) = st_.coefficient(j, rho_old(j), s_.host(slot(it, pq_field), j), "alpha",
                                       "p^H A p", it);
        }
        if (st_.all_stopped()) return agrees(it);
        st_.set_norms_from_squares(slot(it, rr_field));
        if (st_.check(it, &x)) return agrees(it);
        for (size_type j = 0; j < k_; ++j) {
            const V rho_new = s_.host(slot(it, rho_), j);
            const V numerator =
                flexible_ ? -loom::conj(alpha(j)) * s_.host(slot(it, qz_field), j) : rho_new;
            st_.next_beta(j, numerator, rho_old(j), rho_new, rho_name_, it);
        }
        return agrees(it) && st_.all_stopped();
    }

    /// Checks that the executor stopped at iteration it the columns the host stopped (but
    /// for the iteration limit, which ends the solve there); returns true.
    bool agrees(size_type it) const
    {
        if (exact_) detail::check_gates("loom::solver::cg", st_, slot(it, gate_field), it);
        return true;
    }

    const LinOp<V>& A_;
    const LinOp<V>* M_;
    const stop::Criterion& criteria_;
    bool flexible_;
    detail::SolveState<V>& st_;
    const VectorSpace<V>& space_;
    detail::Scalars<V>& s_;
    matrix::Dense<V>& r_;
    matrix::Dense<V>& p_;
    matrix::Dense<V>& q_;
    matrix::Dense<V>& z_;
    size_type k_;
    std::span<V> host_;
    int rho_;
    const char* rho_name_;
    bool exact_ = false;
};

}  // namespace

template <typename V>
void Cg<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto& st = this->state(b.cols(), cg_workspace(this->preconditioner() != nullptr));
    CgRun<V>(*this, false, st).run(b, x);
}

template <typename V>
void Fcg<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto& st = this->state(b.cols(), cg_workspace(this->preconditioner() != nullptr));
    CgRun<V>(*this, true, st).run(b, x);
}

#define LOOM_INSTANTIATE_CG(V) \
    template class Cg<V>;      \
    template class Fcg<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_CG)

}  // namespace loom::solver
