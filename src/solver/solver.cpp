#include "loom/solver/solver.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "base/instantiate.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace detail {

// ---------------------------------------------------------------- Scalars

template <typename V>
Scalars<V>::Scalars(const VectorSpace<V>& space, int slots, size_type k)
    : space_(&space),
      exec_(space.executor()),
      k_(k),
      device_(space.create_scalars(slots * k)),
      pending_(static_cast<std::size_t>(slots))
{
    space.fill(device_, V{0});
    slots_.reserve(slots);
    for (int s = 0; s < slots; ++s) slots_.push_back(device_.columns(s * k, k));
    if (exec_->is_host()) {
        host_data_ = device_.data();
    } else {
        host_mirror_.assign(static_cast<std::size_t>(slots * k), V{0});
        host_data_ = host_mirror_.data();
    }
}

template <typename V>
void Scalars<V>::conj_dot(int s, const Vector& x, const Vector& y)
{
    space_->conj_dot(x, y, slots_[s]);
    pending_[s] = 1;
}

template <typename V>
void Scalars<V>::finish(int first, int count)
{
    // Each run of adjacent pending slots is completed by one call (one all-reduce).
    const int end = first + count;
    for (int s = first; s < end;) {
        if (!pending_[s]) {
            ++s;
            continue;
        }
        int run_end = s;
        while (run_end < end && pending_[run_end]) pending_[run_end++] = 0;
        auto partials = device_.columns(s * k_, (run_end - s) * k_);
        space_->finish_reductions(partials);
        s = run_end;
    }
}

template <typename V>
void Scalars<V>::check_finished(int first, int count) const
{
    for (int s = first; s < first + count; ++s) {
        if (pending_[s]) {
            throw std::logic_error("loom::solver: scalar slot " + std::to_string(s) +
                                   " used before its reduction was finished");
        }
    }
}

template <typename V>
void Scalars<V>::fetch(int first, int count)
{
    finish(first, count);
    if (exec_->is_host() || count == 0 || k_ == 0) return;
    const auto offset = first * k_;
    loom::detail::host_executor()->copy_from(*exec_, sizeof(V) * count * k_,
                                             device_.data() + offset, host_data_ + offset);
}

template <typename V>
void Scalars<V>::push(int first, int count)
{
    if (k_ > 1) store(first, count);
}

template <typename V>
void Scalars<V>::store(int first, int count)
{
    if (exec_->is_host() || count == 0 || k_ == 0) return;
    const auto offset = first * k_;
    exec_->copy_from(*loom::detail::host_executor(), sizeof(V) * count * k_,
                     host_data_ + offset, device_.data() + offset);
}

// ---------------------------------------------------------------- SolveState

template <typename V>
SolveState<V>::SolveState(const IterativeSolver<V>& solver, size_type k, const Workspace& sizes)
    : solver_(solver),
      space_(*solver.vector_space()),
      k_(k),
      sizes_(sizes),
      scalars_(space_, std::max(sizes.scalar_slots, 2), k),
      host_values_(static_cast<std::size_t>(sizes.host_values_per_column * k)),
      status_(k),
      norms_(k),
      rhs_norms_(k),
      initial_norms_(k),
      restarts_(k),
      frozen_(k)
{
    vectors_.reserve(sizes.vectors);
    for (int i = 0; i < sizes.vectors; ++i) vectors_.push_back(space_.create(k));
    if (k > 1) frozen_x_ = space_.create(k);
    context_.rhs_norms = rhs_norms_;
    context_.initial_residual_norms = initial_norms_;
}

template <typename V>
bool SolveState<V>::fits(size_type k, const Workspace& sizes) const noexcept
{
    return k == k_ && sizes.vectors == sizes_.vectors &&
           sizes.scalar_slots == sizes_.scalar_slots &&
           sizes.host_values_per_column == sizes_.host_values_per_column;
}

template <typename V>
void SolveState<V>::begin()
{
    std::fill(status_.begin(), status_.end(), stop::ColumnStatus{});
    std::fill(frozen_.begin(), frozen_.end(), char{0});
    std::fill(restarts_.begin(), restarts_.end(), size_type{0});
    iteration_ = 0;
    context_.start_time = std::chrono::steady_clock::now();
}

template <typename V>
bool SolveState<V>::start(const LinOp<V>& A, const matrix::Dense<V>& b, matrix::Dense<V>& x,
                          matrix::Dense<V>& r)
{
    residual(space_, A, b, x, r);
    auto& s = scalars_;
    s.conj_dot(0, b, b);
    s.conj_dot(1, r, r);
    s.fetch(0, 2);
    for (size_type j = 0; j < k_; ++j) {
        rhs_norms_[j] = norm_from_square(s.host(0, j));
        initial_norms_[j] = norm_from_square(s.host(1, j));
        if (rhs_norms_[j] == 0) {
            // A x = 0 is solved by x = 0, whatever the initial guess.
            auto xj = x.column(j);
            auto rj = r.column(j);
            space_.fill(xj, V{0});
            space_.fill(rj, V{0});
            initial_norms_[j] = 0;
            status_[j] = {stop::Reason::converged, 0, "zero right-hand side"};
        }
        norms_[j] = initial_norms_[j];
    }
    if (solver_.has_loggers()) {
        const log::SolveStartEvent event{&solver_, solver_.name(), solver_.size(), k_,
                                         rhs_norms_, initial_norms_};
        for (const auto& logger : solver_.loggers()) logger->on_solve_started(event);
    }
    return check(0, &x);
}

template <typename V>
void SolveState<V>::set_norms_from_squares(int s)
{
    for (size_type j = 0; j < k_; ++j) {
        if (!status_[j].stopped()) norms_[j] = norm_from_square(scalars_.host(s, j));
    }
}

template <typename V>
void SolveState<V>::screen_norms(size_type iteration)
{
    for (size_type j = 0; j < k_; ++j) {
        if (status_[j].stopped()) continue;
        if (!std::isfinite(norms_[j])) {
            status_[j] = {stop::Reason::not_finite, iteration, "residual norm"};
        } else if (norms_[j] == 0) {
            status_[j] = {stop::Reason::converged, iteration, "zero residual"};
        }
    }
}

template <typename V>
bool SolveState<V>::check_residual(size_type iteration, int rr_slot, const matrix::Dense<V>& r,
                                   matrix::Dense<V>& x)
{
    scalars_.conj_dot(rr_slot, r, r);
    scalars_.fetch(rr_slot);
    set_norms_from_squares(rr_slot);
    return check(iteration, &x);
}

template <typename V>
bool SolveState<V>::check(size_type iteration, matrix::Dense<V>* x)
{
    iteration_ = iteration;
    screen_norms(iteration);
    solver_.criteria()->check(context_, {iteration, norms_}, status_);
    if (x) freeze(*x);
    if (solver_.has_loggers()) log_iteration(iteration);
    return all_stopped();
}

template <typename V>
void SolveState<V>::stop(size_type j, stop::Reason reason, const char* detail,
                         size_type iteration)
{
    if (!status_[j].stopped()) status_[j] = {reason, iteration, detail};
}

template <typename V>
bool SolveState<V>::usable_denominator(size_type j, const V& d, const char* what,
                                       size_type iteration)
{
    if (!is_finite(d)) {
        stop(j, stop::Reason::not_finite, what, iteration);
        return false;
    }
    if (d == V{0}) {
        stop(j, stop::Reason::breakdown, what, iteration);
        return false;
    }
    return true;
}

template <typename V>
bool SolveState<V>::finite_or_stop(size_type j, const V& v, const char* what,
                                   size_type iteration)
{
    if (is_finite(v)) return true;
    stop(j, stop::Reason::not_finite, what, iteration);
    return false;
}

template <typename V>
V SolveState<V>::coefficient(size_type j, const V& num, const V& den, const char* what,
                             const char* den_name, size_type iteration)
{
    if (!running(j) || !usable_denominator(j, den, den_name, iteration)) return V{0};
    const V q = num / den;
    return finite_or_stop(j, q, what, iteration) ? q : V{0};
}

template <typename V>
V SolveState<V>::next_beta(size_type j, const V& num, V& rho_old, const V& rho_new,
                           const char* rho_name, size_type iteration)
{
    if (!running(j)) return V{0};
    V beta{0};
    if (usable_denominator(j, rho_new, rho_name, iteration)) {
        beta = num / rho_old;
        if (!finite_or_stop(j, beta, "beta", iteration)) beta = V{0};
    }
    rho_old = rho_new;
    return beta;
}

template <typename V>
bool SolveState<V>::restart_shadow(size_type j, const V& rho, size_type max_restarts)
{
    if (!running(j) || rho != V{0} || restarts_[j] >= max_restarts) return false;
    ++restarts_[j];
    return true;
}

template <typename V>
bool SolveState<V>::all_stopped() const noexcept
{
    return std::all_of(status_.begin(), status_.end(),
                       [](const stop::ColumnStatus& s) { return s.stopped(); });
}

template <typename V>
void SolveState<V>::freeze(matrix::Dense<V>& x)
{
    if (k_ <= 1) return;
    for (size_type j = 0; j < k_; ++j) {
        if (!status_[j].stopped() || frozen_[j]) continue;
        const auto xj = x.column(j);
        auto saved = frozen_x_.column(j);
        space_.copy(xj, saved);
        frozen_[j] = 1;
    }
}

template <typename V>
void SolveState<V>::log_iteration(size_type iteration) const
{
    const log::IterationEvent event{&solver_, solver_.name(), iteration, norms_, status_};
    for (const auto& logger : solver_.loggers()) logger->on_iteration(event);
}

template <typename V>
SolveResult SolveState<V>::finish(matrix::Dense<V>& x)
{
    // Masked updates keep a stopped column's x in exact arithmetic; restoring the saved
    // copy also guards it against NaNs that the other columns' steps may multiply by zero.
    for (size_type j = 0; k_ > 1 && j < k_; ++j) {
        if (!frozen_[j]) continue;
        const auto saved = frozen_x_.column(j);
        auto xj = x.column(j);
        space_.copy(saved, xj);
    }
    SolveResult result;
    result.reason = stop::Reason::converged;
    for (const auto& s : status_) {
        result.iterations = std::max(result.iterations, s.iteration);
        if (result.reason == stop::Reason::converged && !s.converged()) {
            result.reason = s.reason;
            result.detail = s.detail;
        }
    }
    result.columns = status_;
    result.residual_norms = norms_;
    result.initial_residual_norms = initial_norms_;
    result.rhs_norms = rhs_norms_;
    result.restarts = restarts_;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                   context_.start_time)
                         .count();
    if (solver_.has_loggers()) {
        const log::SolveEndEvent event{&solver_, solver_.name(), &result};
        for (const auto& logger : solver_.loggers()) logger->on_solve_finished(event);
    }
    return result;
}

}  // namespace detail

// ---------------------------------------------------------------- IterativeSolver

template <typename V>
IterativeSolver<V>::IterativeSolver(std::shared_ptr<const Executor> exec,
                                    std::shared_ptr<const LinOp<V>> system,
                                    const CommonParameters<V>& params, const char* name)
    : system_(std::move(system)),
      preconditioner_(params.preconditioner),
      criteria_(params.criteria),
      initial_guess_(params.initial_guess),
      throw_on_failure_(params.throw_on_failure)
{
    const auto where = std::string("loom::solver::") + name;
    if (!exec) throw BadInput(where, "the executor is null");
    if (!system_) throw BadInput(where, "the system matrix is null");
    const auto size = system_->size();
    if (size.rows != size.cols) {
        throw DimensionMismatch(where, "the system matrix is " + to_string(size) +
                                           "; an iterative solver needs a square one");
    }
    if (!criteria_) {
        throw BadInput(where,
                       "no stopping criterion given (use with_criteria, e.g. "
                       "stop::max_iterations(1000) | stop::relative_residual(1e-8))");
    }
    if (params.preconditioner_factory) {
        preconditioner_ = params.preconditioner_factory->generate(system_);
    }
    if (preconditioner_ && preconditioner_->size() != size) {
        throw DimensionMismatch(where, "the preconditioner", preconditioner_->size(),
                                "the system matrix", size,
                                "a preconditioner must have the system's size");
    }
    space_ = vector_space_of(*system_, exec);
    this->set_executor(std::move(exec));
    this->set_size(size);
    for (const auto& logger : params.loggers) this->add_logger(logger);
}

template <typename V>
IterativeSolver<V>::~IterativeSolver() = default;

template <typename V>
void IterativeSolver<V>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    if (initial_guess_ == InitialGuess::zero) space_->fill(x, V{0});
    solve(b, x);
    result_ = state_->finish(x);
    if (throw_on_failure_ && !result_.converged()) {
        throw NumericalError(std::string("loom::solver::") + name() + "::apply", result_.message());
    }
}

template <typename V>
detail::SolveState<V>& IterativeSolver<V>::state(size_type columns,
                                                 const detail::Workspace& sizes) const
{
    if (!state_ || !state_->fits(columns, sizes)) {
        state_.reset();  // release the old workspace before allocating the new one
        state_ = std::make_unique<detail::SolveState<V>>(*this, columns, sizes);
    }
    state_->begin();
    return *state_;
}

template <typename V>
void IterativeSolver<V>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                                    matrix::Dense<V>& x) const
{
    if (scaled_.size() != x.size() || !scaled_.executor()) {
        scaled_ = space_->create(x.cols());
    }
    if (initial_guess_ == InitialGuess::provided) space_->copy(x, scaled_);
    apply_impl(b, scaled_);
    space_->axpby(alpha, scaled_, beta, x);
}

#define LOOM_INSTANTIATE_SOLVER_BASE(V)   \
    template class detail::Scalars<V>;    \
    template class detail::SolveState<V>; \
    template class IterativeSolver<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_SOLVER_BASE)

}  // namespace loom::solver
