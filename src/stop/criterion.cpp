#include "loom/stop/criterion.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "loom/base/error.hpp"

namespace loom::stop {
namespace {

std::string format_number(double value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

/// Stops the running columns for which holds(j) is true.
template <typename Holds>
bool stop_where(std::span<ColumnStatus> status, size_type iteration, Reason reason,
                const char* detail, Holds&& holds)
{
    bool any = false;
    for (std::size_t j = 0; j < status.size(); ++j) {
        if (status[j].stopped() || !holds(j)) continue;
        status[j] = {reason, iteration, detail};
        any = true;
    }
    return any;
}

}  // namespace

const char* to_string(Baseline baseline) noexcept
{
    switch (baseline) {
    case Baseline::absolute: return "absolute";
    case Baseline::rhs_norm: return "relative to ||b||";
    case Baseline::initial_residual: return "relative to the initial residual";
    }
    return "unknown";
}

bool Criterion::check(const Context& context, const Progress& progress,
                      std::span<ColumnStatus> status) const
{
    const bool stopped_any = check_impl(context, progress, status);
    if (has_loggers()) {
        const log::CriterionCheckEvent event{this, description(), progress.iteration,
                                             progress.residual_norms, status, stopped_any};
        notify([&](log::Logger& logger) { logger.on_criterion_checked(event); });
    }
    return stopped_any;
}

// ---------------------------------------------------------------- MaxIterations

MaxIterations::MaxIterations(size_type limit) : limit_(limit)
{
    if (limit < 0) {
        throw BadInput("loom::stop::MaxIterations",
                       "negative iteration limit " + std::to_string(limit));
    }
}

std::string MaxIterations::description() const
{
    return "iterations >= " + std::to_string(limit_);
}

bool MaxIterations::check_impl(const Context&, const Progress& progress,
                               std::span<ColumnStatus> status) const
{
    if (progress.iteration < limit_) return false;
    return stop_where(status, progress.iteration, Reason::iteration_limit, "iteration limit",
                      [](std::size_t) { return true; });
}

// ---------------------------------------------------------------- ResidualNorm

ResidualNorm::ResidualNorm(double tolerance, Baseline baseline)
    : tolerance_(tolerance), baseline_(baseline)
{
    if (!(tolerance >= 0) || !std::isfinite(tolerance)) {
        throw BadInput("loom::stop::ResidualNorm",
                       "the tolerance must be finite and non-negative, got " +
                           format_number(tolerance));
    }
}

std::string ResidualNorm::description() const
{
    const auto tol = format_number(tolerance_);
    switch (baseline_) {
    case Baseline::absolute: return "||r|| <= " + tol;
    case Baseline::rhs_norm: return "||r|| <= " + tol + " ||b||";
    case Baseline::initial_residual: return "||r|| <= " + tol + " ||r0||";
    }
    return "||r|| <= " + tol;
}

bool ResidualNorm::check_impl(const Context& context, const Progress& progress,
                              std::span<ColumnStatus> status) const
{
    const auto norms = progress.residual_norms;
    if (norms.size() < status.size()) return false;
    auto threshold = [&](std::size_t j) {
        switch (baseline_) {
        case Baseline::rhs_norm: return tolerance_ * context.rhs_norms[j];
        case Baseline::initial_residual: return tolerance_ * context.initial_residual_norms[j];
        default: return tolerance_;
        }
    };
    const char* detail = baseline_ == Baseline::absolute   ? "absolute residual norm"
                         : baseline_ == Baseline::rhs_norm ? "relative residual norm"
                                                           : "residual reduction";
    // NaN compares false: a NaN residual is left to the solver's not_finite status.
    return stop_where(status, progress.iteration, Reason::converged, detail,
                      [&](std::size_t j) { return norms[j] <= threshold(j); });
}

// ---------------------------------------------------------------- TimeLimit

TimeLimit::TimeLimit(std::chrono::nanoseconds limit) : limit_(limit)
{
    if (limit.count() < 0) {
        throw BadInput("loom::stop::TimeLimit", "negative time limit");
    }
}

std::string TimeLimit::description() const
{
    return "time >= " + format_number(std::chrono::duration<double>(limit_).count()) + " s";
}

bool TimeLimit::check_impl(const Context& context, const Progress& progress,
                           std::span<ColumnStatus> status) const
{
    if (std::chrono::steady_clock::now() - context.start_time < limit_) return false;
    return stop_where(status, progress.iteration, Reason::time_limit, "time limit",
                      [](std::size_t) { return true; });
}

// ---------------------------------------------------------------- AnyOf

AnyOf::AnyOf(std::vector<std::shared_ptr<const Criterion>> criteria)
    : criteria_(std::move(criteria))
{
    if (criteria_.empty()) throw BadInput("loom::stop::AnyOf", "no criteria given");
    for (std::size_t i = 0; i < criteria_.size(); ++i) {
        if (!criteria_[i]) {
            throw BadInput("loom::stop::AnyOf", "criterion " + std::to_string(i) + " is null");
        }
    }
    // When a residual criterion and a limit hold at the same check, report convergence.
    std::stable_partition(criteria_.begin(), criteria_.end(), [](const auto& c) {
        return dynamic_cast<const ResidualNorm*>(c.get()) != nullptr;
    });
}

std::string AnyOf::description() const
{
    std::string text;
    for (const auto& c : criteria_) {
        if (!text.empty()) text += " or ";
        text += c->description();
    }
    return text;
}

bool AnyOf::check_impl(const Context& context, const Progress& progress,
                       std::span<ColumnStatus> status) const
{
    bool any = false;
    for (const auto& c : criteria_) any = c->check(context, progress, status) || any;
    return any;
}

// ---------------------------------------------------------------- factories

std::shared_ptr<MaxIterations> max_iterations(size_type limit)
{
    return std::make_shared<MaxIterations>(limit);
}

std::shared_ptr<ResidualNorm> relative_residual(double tolerance)
{
    return std::make_shared<ResidualNorm>(tolerance, Baseline::rhs_norm);
}

std::shared_ptr<ResidualNorm> absolute_residual(double tolerance)
{
    return std::make_shared<ResidualNorm>(tolerance, Baseline::absolute);
}

std::shared_ptr<ResidualNorm> residual_reduction(double tolerance)
{
    return std::make_shared<ResidualNorm>(tolerance, Baseline::initial_residual);
}

std::shared_ptr<TimeLimit> time_limit(std::chrono::nanoseconds limit)
{
    return std::make_shared<TimeLimit>(limit);
}

std::shared_ptr<AnyOf> any_of(std::vector<std::shared_ptr<const Criterion>> criteria)
{
    std::vector<std::shared_ptr<const Criterion>> flat;
    for (auto& c : criteria) {
        // A combination with loggers of its own stays one unit so that they keep firing.
        const auto* nested = dynamic_cast<const AnyOf*>(c.get());
        if (nested && !nested->has_loggers()) {
            flat.insert(flat.end(), nested->criteria().begin(), nested->criteria().end());
        } else {
            flat.push_back(std::move(c));
        }
    }
    return std::make_shared<AnyOf>(std::move(flat));
}

std::shared_ptr<AnyOf> operator|(std::shared_ptr<const Criterion> first,
                                 std::shared_ptr<const Criterion> second)
{
    return any_of({std::move(first), std::move(second)});
}

}  // namespace loom::stop
