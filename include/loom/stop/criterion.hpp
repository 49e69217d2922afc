// Stopping criteria decide, per right-hand side, when an iterative solver stops. They are
// immutable descriptions, shared by every solver built from one factory; whatever a check
// needs from the solve in progress (its start time, ||b||, the initial residual) comes in a
// Context, so one criterion serves many solves at once.
//
//     auto stop = stop::max_iterations(500) | stop::relative_residual(1e-8);
//
// Combined criteria: the first that holds for a column stops it and gives the reason (on a
// tie, convergence). Residual norms are the solver's recurrence estimates of ||b - A x||.
#pragma once

#include <chrono>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "loom/base/types.hpp"
#include "loom/log/logger.hpp"
#include "loom/log/outcome.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::stop {

/// Fixed for one solve, one entry per right-hand side.
struct Context {
    std::chrono::steady_clock::time_point start_time;
    std::span<const double> rhs_norms;               ///< ||b_j||
    std::span<const double> initial_residual_norms;  ///< ||b_j - A x0_j||
};

/// One check, after `iteration` iterations (0: before the first).
struct Progress {
    size_type iteration = 0;
    std::span<const double> residual_norms;  ///< ||r_j||, one per right-hand side
};

class Criterion : public log::Loggable {
public:
    virtual ~Criterion() = default;

    /// Stops the running columns of `status` for which this criterion holds (reason,
    /// iteration and detail set); returns whether it stopped any. Columns already stopped
    /// are left alone. `status`, the norms and the context have one entry per column.
    bool check(const Context& context, const Progress& progress,
               std::span<ColumnStatus> status) const;

    /// Human-readable form, e.g. "iterations >= 100" or "||r|| <= 1e-08 ||b||".
    virtual std::string description() const = 0;

protected:
    virtual bool check_impl(const Context& context, const Progress& progress,
                            std::span<ColumnStatus> status) const = 0;
};

/// Stops every column once `limit` iterations are done (reason iteration_limit).
class MaxIterations final : public Criterion {
public:
    explicit MaxIterations(size_type limit);
    size_type limit() const noexcept { return limit_; }
    std::string description() const override;

protected:
    bool check_impl(const Context&, const Progress&, std::span<ColumnStatus>) const override;

private:
    size_type limit_;
};

/// What a residual tolerance is relative to.
enum class Baseline {
    absolute,          ///< ||r|| <= tol
    rhs_norm,          ///< ||r|| <= tol * ||b||
    initial_residual,  ///< ||r|| <= tol * ||b - A x0||
};
const char* to_string(Baseline baseline) noexcept;

/// Stops a column whose residual norm falls to the tolerance (reason converged). A column
/// whose residual norm is NaN is not stopped here: the solver reports not_finite.
class ResidualNorm final : public Criterion {
public:
    /// BadInput when tolerance is negative or not finite.
    ResidualNorm(double tolerance, Baseline baseline);
    double tolerance() const noexcept { return tolerance_; }
    Baseline baseline() const noexcept { return baseline_; }
    std::string description() const override;

protected:
    bool check_impl(const Context&, const Progress&, std::span<ColumnStatus>) const override;

private:
    double tolerance_;
    Baseline baseline_;
};

/// Stops every column once the solve has run for `limit` (reason time_limit).
class TimeLimit final : public Criterion {
public:
    explicit TimeLimit(std::chrono::nanoseconds limit);
    std::chrono::nanoseconds limit() const noexcept { return limit_; }
    std::string description() const override;

protected:
    bool check_impl(const Context&, const Progress&, std::span<ColumnStatus>) const override;

private:
    std::chrono::nanoseconds limit_;
};

/// The first of several criteria that holds stops a column. When several hold at the same
/// check, residual criteria win (the column is reported converged): they are kept first.
class AnyOf final : public Criterion {
public:
    /// BadInput when empty or when one is null.
    explicit AnyOf(std::vector<std::shared_ptr<const Criterion>> criteria);
    const std::vector<std::shared_ptr<const Criterion>>& criteria() const noexcept
    {
        return criteria_;
    }
    std::string description() const override;

protected:
    bool check_impl(const Context&, const Progress&, std::span<ColumnStatus>) const override;

private:
    std::vector<std::shared_ptr<const Criterion>> criteria_;
};

std::shared_ptr<MaxIterations> max_iterations(size_type limit);
/// ||r|| <= tolerance * ||b||
std::shared_ptr<ResidualNorm> relative_residual(double tolerance);
/// ||r|| <= tolerance
std::shared_ptr<ResidualNorm> absolute_residual(double tolerance);
/// ||r|| <= tolerance * ||r0||
std::shared_ptr<ResidualNorm> residual_reduction(double tolerance);
std::shared_ptr<TimeLimit> time_limit(std::chrono::nanoseconds limit);
/// Flattens nested AnyOf combinations.
std::shared_ptr<AnyOf> any_of(std::vector<std::shared_ptr<const Criterion>> criteria);
std::shared_ptr<AnyOf> operator|(std::shared_ptr<const Criterion> first,
                                 std::shared_ptr<const Criterion> second);

}  // namespace loom::stop

LOOM_PUBLIC_END
