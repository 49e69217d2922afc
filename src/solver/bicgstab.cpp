// Right-preconditioned BiCGSTAB (Templates for the Solution of Linear Systems, fig. 2.10).
//
// An iteration is three fused steps of the vector space around the operator applies, every
// coefficient formed on the executor: p = r + beta (p - omega v) (or p = r~ = r on a
// shadow-residual restart), v = A M p and r~^H v; s = r - alpha v; t = A M s, t^H t and
// t^H s; x += alpha M p + omega M s and r = s - omega t with r~^H r and r^H r in one pass.
// The steps also decide on the executor which columns go on and which restart
// (blas/krylov/bicgstab_step.hpp), so on a device a block of iterations runs without the host
// as CG's does (solver/run_ahead.hpp): the scalars land in a ring, one row per iteration,
// read back with one copy per block and replayed through the host logic below, which gives
// the criteria, the loggers, the restart counts and the result exactly the iterations of
// checking every one. A column that stops inside a block is left untouched by the steps after
// it; one that restarts did so on the executor, at the iteration the replay restarts it.
#include "loom/solver/bicgstab.hpp"

#include "base/instantiate.hpp"
#include "solver/run_ahead.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

// The scalars of iteration `it` are the row it % ring_rows; the fields a step reduces
// together are adjacent (one all-reduce when distributed). Row 0 holds the start: gate_half
// (the running columns) and rho (r~^H r).
enum Field : int {
    gate_field,
    rho_old_field,
    restarts_field,
    sigma_field,
    gate_half_field,
    tt_field,
    ts_field,
    rho_field,
    rr_field,
    field_count
};
constexpr int ring_rows = static_cast<int>(detail::BlockPlanner::max_block) + 1;
constexpr int threshold_slot = ring_rows * field_count;
constexpr int slot_count = threshold_slot + 1;
// s lives in r: r - alpha v overwrites r, then r - omega t gives the next residual.
enum Vector : int { r_vec, r_tld_vec, p_vec, v_vec, t_vec, p_hat_vec, s_hat_vec };
enum Host : int { rho_old_h, alpha_h, omega_h, host_count };

int slot(size_type it, int field)
{
    return static_cast<int>(it % ring_rows) * field_count + field;
}

template <typename V>
class BicgstabRun {
public:
    BicgstabRun(const Bicgstab<V>& solver, detail::SolveState<V>& st)
        : A_(*solver.system_matrix()),
          M_(solver.preconditioner().get()),
          criteria_(*solver.criteria()),
          max_restarts_(solver.parameters().max_restarts),
          st_(st),
          space_(st.space()),
          s_(st.scalars()),
          r_(st.vector(r_vec)),
          r_tld_(st.vector(r_tld_vec)),
          p_(st.vector(p_vec)),
          v_(st.vector(v_vec)),
          t_(st.vector(t_vec)),
          p_hat_(M_ ? st.vector(p_hat_vec) : p_),
          s_hat_(M_ ? st.vector(s_hat_vec) : r_),
          k_(st.columns()),
          host_(st.host_values())
    {}

    void run(const matrix::Dense<V>& b, matrix::Dense<V>& x)
    {
        if (st_.start(A_, b, x, r_)) return;
        space_.copy(r_, r_tld_);
        s_.conj_dot(slot(0, rho_field), r_tld_, r_);
        s_.fetch(slot(0, rho_field));

        const auto device = detail::device_criteria(criteria_, st_);
        exact_ = device.exact;
        for (size_type j = 0; j < k_; ++j) {
            for (int f = 0; f < field_count; ++f) {
                if (f != rho_field) s_.host(slot(0, f), j) = V{0};
            }
            s_.host(slot(0, gate_half_field), j) = st_.running(j) ? V{1} : V{0};
        }
        s_.store(slot(0, 0), field_count);
        detail::store_thresholds(s_, threshold_slot, device);
        detail::run_blocks(
            device, st_, ring_rows * field_count, [&](size_type it) { iterate(it, x); },
            [&](size_type it) { return replay(it, x); });
    }

private:
    V& at(size_type j, Host h) { return host_[j * host_count + h]; }

    /// The rows of iteration it and it - 1 that the steps read or write.
    blas::BicgstabStepScalars<V> step_scalars(size_type it)
    {
        blas::BicgstabStepScalars<V> c;
        c.first = it == 1;
        c.max_restarts = static_cast<double>(max_restarts_);
        c.gate_prev = &s_[slot(it - 1, gate_half_field)];
        c.rho_prev = &s_[slot(it - 1, rho_field)];
        c.rr_prev = &s_[slot(it - 1, rr_field)];
        c.rho_old_prev = &s_[slot(it - 1, rho_old_field)];
        c.sigma_prev = &s_[slot(it - 1, sigma_field)];
        c.tt_prev = &s_[slot(it - 1, tt_field)];
        c.ts_prev = &s_[slot(it - 1, ts_field)];
        c.restarts_prev = &s_[slot(it - 1, restarts_field)];
        c.threshold = &s_[threshold_slot];
        c.gate = &s_.out(slot(it, gate_field));
        c.rho_old = &s_.out(slot(it, rho_old_field));
        c.restarts = &s_.out(slot(it, restarts_field));
        c.gate_half = &s_.out(slot(it, gate_half_field));
        return c;
    }

    /// One iteration on the executor, no value read by the host.
    void iterate(size_type it, matrix::Dense<V>& x)
    {
        auto c = step_scalars(it);
        space_.bicgstab_direction_step(c, r_, v_, p_, r_tld_);
        if (M_) M_->apply(p_, p_hat_);
        A_.apply(p_hat_, v_);
        s_.conj_dot(slot(it, sigma_field), r_tld_, v_);
        s_.finish(slot(it, sigma_field));
        c.sigma = &s_[slot(it, sigma_field)];
        space_.bicgstab_half_step(c, v_, r_);
        if (M_) M_->apply(r_, s_hat_);
        A_.apply(s_hat_, t_);
        s_.conj_dot2(slot(it, tt_field), t_, t_, slot(it, ts_field), t_, r_);
        s_.finish(slot(it, tt_field), 2);
        c.tt = &s_[slot(it, tt_field)];
        c.ts = &s_[slot(it, ts_field)];
        c.rho = &s_.partial(slot(it, rho_field));
        c.rr = &s_.partial(slot(it, rr_field));
        space_.bicgstab_final_step(c, p_hat_, s_hat_, t_, r_tld_, r_, x);
        s_.finish(slot(it, rho_field), 2);
    }

    /// The host's decisions on iteration it's scalars (fetched), in the order of the
    /// textbook iteration; true when every column stopped.
    bool replay(size_type it, matrix::Dense<V>& x)
    {
        start_iteration(it);
        if (st_.all_stopped() || !agrees(it, gate_field)) return true;
        for (size_type j = 0; j < k_; ++j) {
            at(j, alpha_h) = st_.coefficient(j, at(j, rho_old_h), s_.host(slot(it, sigma_field), j),
                                             "alpha", "r~^H A p", it);
        }
        if (st_.all_stopped() || !agrees(it, gate_half_field)) return true;
        // omega = 0 (t = 0 or t orthogonal to s) keeps the half step x + alpha p_hat with
        // residual s. The next beta would divide by omega, so such a column breaks down
        // after this step unless s, hence the new residual, is zero (it converged).
        for (size_type j = 0; j < k_; ++j) {
            V omega{0};
            if (st_.running(j)) {
                const V tt = s_.host(slot(it, tt_field), j);
                if (st_.finite_or_stop(j, tt, "t^H t", it) && tt != V{0}) {
                    omega = s_.host(slot(it, ts_field), j) / tt;
                    if (!st_.finite_or_stop(j, omega, "omega", it)) omega = V{0};
                }
            }
            at(j, omega_h) = omega;
        }
        st_.set_norms_from_squares(slot(it, rr_field));
        if (st_.check(it, &x)) return true;
        for (size_type j = 0; j < k_; ++j) {
            if (st_.running(j) && at(j, omega_h) == V{0}) {
                st_.stop(j, stop::Reason::breakdown, "omega", it);
            }
        }
        return st_.all_stopped();
    }

    /// rho = r~^H r of the last iteration: a restart where it is zero (r~ = r makes rho =
    /// r^H r; the executor set r~ and p), else beta.
    void start_iteration(size_type it)
    {
        for (size_type j = 0; j < k_; ++j) {
            V rho = s_.host(slot(it - 1, rho_field), j);
            if (it > 1 && st_.restart_shadow(j, rho, max_restarts_)) {
                rho = s_.host(slot(it - 1, rr_field), j);
            } else if (st_.running(j) && st_.usable_denominator(j, rho, "rho", it - 1) &&
                       it > 1) {
                const V beta = (rho / at(j, rho_old_h)) * (at(j, alpha_h) / at(j, omega_h));
                st_.finite_or_stop(j, beta, "beta", it - 1);
            }
            at(j, rho_old_h) = rho;
        }
    }

    /// Checks that the executor's gate `field` of iteration it runs the columns the host
    /// runs; returns true.
    bool agrees(size_type it, int field) const
    {
        if (exact_) detail::check_gates("loom::solver::bicgstab", st_, slot(it, field), it);
        return true;
    }

    const LinOp<V>& A_;
    const LinOp<V>* M_;
    const stop::Criterion& criteria_;
    size_type max_restarts_;
    detail::SolveState<V>& st_;
    const VectorSpace<V>& space_;
    detail::Scalars<V>& s_;
    matrix::Dense<V>& r_;
    matrix::Dense<V>& r_tld_;
    matrix::Dense<V>& p_;
    matrix::Dense<V>& v_;
    matrix::Dense<V>& t_;
    matrix::Dense<V>& p_hat_;
    matrix::Dense<V>& s_hat_;
    size_type k_;
    std::span<V> host_;
    bool exact_ = false;
};

}  // namespace

template <typename V>
void Bicgstab<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto& st =
        this->state(b.cols(), {this->preconditioner() ? 7 : 5, slot_count, host_count});
    BicgstabRun<V>(*this, st).run(b, x);
}

#define LOOM_INSTANTIATE_BICGSTAB(V) template class Bicgstab<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BICGSTAB)

}  // namespace loom::solver
