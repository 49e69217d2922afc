// Internal machinery of the iterative solvers: the per-solve state (work vectors, per-column
// scalars, stopping status, logging) and the scalar buffer through which a method computes
// its step coefficients. Every vector is allocated, reduced and updated through the solver's
// VectorSpace (solver/vector_space.hpp); nothing here calls a kernel.
//
// Scalars: the reductions of an iteration (dots, norms) land in one 1 x (slots * k) row on
// the solver's executor as partial results; finish() completes them, one
// finish_reductions call per run of pending slots, so that the reductions an iteration
// fetches together (kept in adjacent slots) cost one all-reduce when distributed. The method
// fetches the slots it needs with ONE copy to the host (none on host executors, where the
// buffer is host memory), computes its coefficients per column there — masking stopped
// columns and catching breakdowns before they poison the vectors — and pushes them back with
// one copy when k > 1 (with k == 1 the host value is passed to the update directly, so
// nothing is pushed).
#pragma once

#include <chrono>
#include <cmath>
#include <complex>
#include <span>
#include <vector>

#include "loom/matrix/dense.hpp"
#include "loom/solver/solver.hpp"
#include "loom/solver/vector_space.hpp"
#include "loom/stop/criterion.hpp"

namespace loom::solver::detail {

template <typename V>
bool is_finite(const V& v)
{
    if constexpr (is_complex_v<V>) {
        return std::isfinite(v.real()) && std::isfinite(v.imag());
    } else {
        return std::isfinite(v);
    }
}

/// sqrt(real(v)) as a double: the norm from a squared norm computed by conj_dot.
template <typename V>
double norm_from_square(const V& v)
{
    return std::sqrt(static_cast<double>(std::real(v)));
}

/// r = b - A x.
template <typename V>
void residual(const VectorSpace<V>& space, const LinOp<V>& A, const matrix::Dense<V>& b,
              const matrix::Dense<V>& x, matrix::Dense<V>& r)
{
    space.copy(b, r);
    A.apply(V{-1}, x, V{1}, r);
}

/// y(:, j) = x(:, j).
template <typename V>
void copy_column(const VectorSpace<V>& space, matrix::Dense<V>& x, matrix::Dense<V>& y,
                 size_type j)
{
    const auto xj = x.column(j);
    auto yj = y.column(j);
    space.copy(xj, yj);
}

template <typename V>
class Scalars {
public:
    using Vector = matrix::Dense<V>;

    Scalars() = default;
    Scalars(const VectorSpace<V>& space, int slots, size_type k);

    size_type columns() const noexcept { return k_; }

    /// Slot s on the executor (1 x k), as an argument of an update: its reduction finished.
    const Vector& operator[](int s) const
    {
        check_finished(s, 1);
        return slots_[s];
    }
    /// Slots [first, first + count) on the executor as one 1 x (count * k) row (finished).
    Vector range(int first, int count)
    {
        check_finished(first, count);
        return device_.columns(first * k_, count * k_);
    }
    /// Host value of slot s, column j (valid after fetch, or as written before push).
    V& host(int s, size_type j) noexcept { return host_data_[s * k_ + j]; }

    /// Slot s = x^H y per column: a partial result until finished.
    void conj_dot(int s, const Vector& x, const Vector& y);
    /// Slots s1 = x1^H y1 and s2 = x2^H y2 per column, in one pass (partial until finished).
    void conj_dot2(int s1, const Vector& x1, const Vector& y1, int s2, const Vector& x2,
                   const Vector& y2)
    {
        space_->conj_dot2(x1, y1, partial(s1), x2, y2, partial(s2));
    }
    /// Slots first + i = x_i^H y per column for every x_i, in one pass over y for a group
    /// of them (partial until finished).
    void multi_conj_dot(int first, std::span<const Vector* const> x, const Vector& y)
    {
        const auto count = static_cast<int>(x.size());
        for (int i = 0; i < count; ++i) pending_[first + i] = 1;
        auto out = device_.columns(first * k_, count * k_);
        space_->multi_conj_dot(x, y, out);
    }
    /// y += sum_i c_i x_i per column, c_i in slot first + i (finished): one pass over y for
    /// a group of x_i.
    void multi_axpy(int first, std::span<const Vector* const> x, Vector& y)
    {
        const auto coefficients = range(first, static_cast<int>(x.size()));
        space_->multi_axpy(coefficients, x, y);
    }
    /// Slot s on the executor, for a fused step of the space to write a partial reduction
    /// into: pending until finished.
    Vector& partial(int s)
    {
        pending_[s] = 1;
        return slots_[s];
    }
    /// Slot s on the executor, for a step of the space to write (not a reduction).
    Vector& out(int s) noexcept { return slots_[s]; }
    /// Completes the pending reductions in slots [first, first + count).
    void finish(int first, int count = 1);
    /// Finishes slots [first, first + count) and copies them to the host: one copy, none on
    /// a host executor.
    void fetch(int first, int count = 1);
    /// Slots [first, first + count) to the executor: one copy, none on a host executor or
    /// when k == 1 (the updates below then pass host values).
    void push(int first, int count = 1);
    /// Slots [first, first + count) to the executor whatever k: one copy, none on a host
    /// executor (for scalars that fused steps read on the executor).
    void store(int first, int count = 1);

    /// Slots [first, first + count) = -slots, on the executor (finished slots only).
    void negate(int first, int count = 1)
    {
        auto values = range(first, count);
        space_->scal(V{-1}, values);
    }
    /// y += c x, per column, c in slot s.
    void axpy(int s, const Vector& x, Vector& y) const
    {
        if (k_ == 1) {
            space_->axpy(host_data_[s], x, y);
        } else {
            space_->axpy(slots_[s], x, y);
        }
    }
    /// y = a x + b y, per column, a in slot sa and b in slot sb (y not read where b is 0).
    void axpby(int sa, const Vector& x, int sb, Vector& y) const
    {
        if (k_ == 1) {
            space_->axpby(host_data_[sa], x, host_data_[sb], y);
        } else {
            space_->axpby(slots_[sa], x, slots_[sb], y);
        }
    }
    /// x *= c, per column, c in slot s.
    void scal(int s, Vector& x) const
    {
        if (k_ == 1) {
            space_->scal(host_data_[s], x);
        } else {
            space_->scal(slots_[s], x);
        }
    }

private:
    /// Throws std::logic_error when a slot of the range still holds a partial result: a
    /// method that reads one before finish() would be right on one process only.
    void check_finished(int first, int count) const;

    const VectorSpace<V>* space_ = nullptr;
    std::shared_ptr<const Executor> exec_;
    size_type k_ = 0;
    Vector device_;
    std::vector<Vector> slots_;
    std::vector<char> pending_;
    std::vector<V> host_mirror_;  ///< only for device executors
    V* host_data_ = nullptr;
};

template <typename V>
class SolveState {
public:
    SolveState(const IterativeSolver<V>& solver, size_type k, const Workspace& sizes);
    // The context holds spans into this object's vectors.
    SolveState(const SolveState&) = delete;
    SolveState& operator=(const SolveState&) = delete;

    /// Whether this state fits a solve of k columns with these sizes.
    bool fits(size_type k, const Workspace& sizes) const noexcept;

    size_type columns() const noexcept { return k_; }
    const VectorSpace<V>& space() const noexcept { return space_; }
    matrix::Dense<V>& vector(int i) noexcept { return vectors_[i]; }
    Scalars<V>& scalars() noexcept { return scalars_; }
    std::span<V> host_values() noexcept { return host_values_; }

    // ---- one solve
    /// Resets the status and starts the clock.
    void begin();
    /// Computes r = b - A x, takes ||b|| and ||r|| (slots 0 and 1 are used), sets x and r of
    /// zero right-hand sides to zero, marks columns with a zero residual converged, checks
    /// the criteria at iteration 0 and logs the start. Returns true when every column
    /// already stopped.
    bool start(const LinOp<V>& A, const matrix::Dense<V>& b, matrix::Dense<V>& x,
               matrix::Dense<V>& r);
    /// Residual norms of the running columns from squared norms in slot s (fetched).
    void set_norms_from_squares(int s);
    /// Residual norm of a running column.
    void set_norm(size_type j, double norm) noexcept
    {
        if (!status_[j].stopped()) norms_[j] = norm;
    }
    /// The current residual norm of column j.
    double norm(size_type j) const noexcept { return norms_[j]; }
    /// Stops running columns whose norm is NaN/Inf (not_finite) or zero (converged),
    /// without consulting the criteria.
    void screen_norms(size_type iteration);
    /// Checks the criteria after `iteration` iterations with the norms set; a NaN/Inf norm
    /// stops its column (not_finite), a zero one converges it. When x is given, columns that
    /// stopped are frozen (their x saved); pass nullptr when x is not final yet and call
    /// freeze(x) once it is. Logs the iteration. Returns whether every column stopped.
    bool check(size_type iteration, matrix::Dense<V>* x);
    /// The residual norms ||r|| (r^H r into scalar slot rr_slot, fetched), then
    /// check(iteration, &x): the step of the methods that keep the true residual.
    bool check_residual(size_type iteration, int rr_slot, const matrix::Dense<V>& r,
                        matrix::Dense<V>& x);
    /// Stops a running column for a reason the method detected (breakdown, not_finite).
    void stop(size_type j, stop::Reason reason, const char* detail, size_type iteration);
    /// Classifies a denominator: stops column j and returns false when it is zero
    /// (breakdown, naming `what`) or not finite.
    bool usable_denominator(size_type j, const V& d, const char* what, size_type iteration);
    /// Stops column j when v is not finite; returns whether it is.
    bool finite_or_stop(size_type j, const V& v, const char* what, size_type iteration);
    /// A step coefficient num / den of column j (`what` names it): 0 for a stopped column,
    /// and 0 with the column stopped when den is zero or not finite (naming `den_name`) or
    /// the quotient is not finite.
    V coefficient(size_type j, const V& num, const V& den, const char* what, const char* den_name,
                  size_type iteration);
    /// beta = num / rho_old of a recurrence on rho (r^H z, or the shadow residual's), which
    /// becomes rho_new: 0 for a stopped column, and 0 with the column stopped when rho_new
    /// is zero or not finite (the next step would divide by it) or beta is not finite.
    V next_beta(size_type j, const V& num, V& rho_old, const V& rho_new, const char* rho_name,
                size_type iteration);

    /// Whether running column j, whose rho = r~^H r is exactly zero, restarts with a fresh
    /// shadow residual (solver/shadow_restart.hpp): true, and counted, while it made fewer
    /// than max_restarts. The method then sets r~(:, j) = r(:, j) and restarts its
    /// directions; otherwise the usual denominator check stops the column.
    bool restart_shadow(size_type j, const V& rho, size_type max_restarts);

    bool running(size_type j) const noexcept { return !status_[j].stopped(); }
    const stop::ColumnStatus& status(size_type j) const noexcept { return status_[j]; }
    /// ||b|| and ||r0|| per column (set by start) and the start time.
    const stop::Context& context() const noexcept { return context_; }
    bool all_stopped() const noexcept;
    /// Saves the x of columns that stopped since the last freeze (only when k > 1: with one
    /// column, the solve ends as soon as it stops).
    void freeze(matrix::Dense<V>& x);
    /// Restores frozen columns of x, builds the result and logs the end.
    SolveResult finish(matrix::Dense<V>& x);

private:
    void log_iteration(size_type iteration) const;

    const IterativeSolver<V>& solver_;
    const VectorSpace<V>& space_;
    size_type k_;
    Workspace sizes_;
    std::vector<matrix::Dense<V>> vectors_;
    Scalars<V> scalars_;
    std::vector<V> host_values_;

    std::vector<stop::ColumnStatus> status_;
    std::vector<double> norms_;
    std::vector<double> rhs_norms_;
    std::vector<double> initial_norms_;
    std::vector<size_type> restarts_;
    std::vector<char> pending_freeze_;
    std::vector<char> frozen_;
    matrix::Dense<V> frozen_x_;
    stop::Context context_;
    size_type iteration_ = 0;
};

/// What a method's solve works on: this apply's state, the system A, the preconditioner M
/// (nullptr: the identity), the vector space and the scalar buffer. Every method starts
/// `auto [st, A, M, space, s] = detail::begin_solve(*this, this->state(...));`.
template <typename V>
struct SolveParts {
    SolveState<V>& st;
    const LinOp<V>& A;
    const LinOp<V>* M;
    const VectorSpace<V>& space;
    Scalars<V>& s;
};

template <typename V>
SolveParts<V> begin_solve(const IterativeSolver<V>& solver, SolveState<V>& st)
{
    return {st, *solver.system_matrix(), solver.preconditioner().get(), st.space(),
            st.scalars()};
}

}  // namespace loom::solver::detail
