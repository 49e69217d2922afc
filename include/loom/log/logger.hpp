// Loggers observe operators, solvers and stopping criteria. Attach one with add_logger() on a
// LinOp (every matrix, solver, preconditioner), on a stop::Criterion, or on every solver a
// factory generates (with_loggers in a solver builder). An object with no logger attached
// pays one emptiness check per event and nothing else.
//
// Executors take no loggers: allocation and copies live in the backends, which this layer
// does not touch.
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "loom/base/types.hpp"
#include "loom/log/outcome.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::stop {
class Criterion;
}

namespace loom::log {

/// A LinOp::apply call. `op` identifies the operator; `type` is its dynamic type.
struct ApplyEvent {
    const void* op = nullptr;
    const std::type_info* type = nullptr;
    dim2 size{};
    size_type columns = 0;
};

struct SolveStartEvent {
    const void* solver = nullptr;
    const char* name = "";  ///< "cg", "gmres", ...
    dim2 size{};
    size_type columns = 0;
    std::span<const double> rhs_norms;
    std::span<const double> initial_residual_norms;
};

/// After each check of the stopping criteria: iteration 0 is the initial residual.
struct IterationEvent {
    const void* solver = nullptr;
    const char* name = "";
    size_type iteration = 0;
    /// Recurrence residual norm per column (a stopped column keeps its last value).
    std::span<const double> residual_norms;
    std::span<const stop::ColumnStatus> status;
};

struct SolveEndEvent {
    const void* solver = nullptr;
    const char* name = "";
    const solver::SolveResult* result = nullptr;
};

struct CriterionCheckEvent {
    const stop::Criterion* criterion = nullptr;  ///< identity only
    std::string description;                    ///< criterion->description()
    size_type iteration = 0;
    std::span<const double> residual_norms;
    std::span<const stop::ColumnStatus> status;
    /// Whether this check stopped at least one column.
    bool stopped_any = false;
};

/// One level of a multigrid hierarchy as its setup built it.
struct HierarchyLevel {
    size_type rows = 0;
    size_type nnz = 0;
    /// rho(D^-1 A) as the power iteration estimated it (0 on the coarsest level).
    double spectral_radius = 0;
    /// Wall time of this level's setup (or of its last numeric re-setup).
    double setup_seconds = 0;
};

/// A multigrid hierarchy finished its setup or a numeric re-setup.
struct HierarchyEvent {
    const void* op = nullptr;
    const char* name = "";                   ///< "multigrid"
    std::span<const HierarchyLevel> levels;  ///< finest first
    /// Sums of the levels' nonzeros and rows over the finest level's.
    double operator_complexity = 0;
    double grid_complexity = 0;
    double setup_seconds = 0;
    bool numeric_only = false;  ///< a re-setup with new values on the same pattern
};

/// Receives events; override the ones of interest. Called on the thread that runs the
/// operation, synchronously.
class Logger {
public:
    virtual ~Logger() = default;

    virtual void on_apply_started(const ApplyEvent&) {}
    virtual void on_apply_finished(const ApplyEvent&) {}
    virtual void on_solve_started(const SolveStartEvent&) {}
    virtual void on_iteration(const IterationEvent&) {}
    virtual void on_solve_finished(const SolveEndEvent&) {}
    virtual void on_criterion_checked(const CriterionCheckEvent&) {}
    virtual void on_hierarchy_built(const HierarchyEvent&) {}
};

/// The list of loggers an object notifies. Loggers are shared: one logger may watch many
/// objects, and stays alive as long as one of them holds it.
class Loggable {
public:
    void add_logger(std::shared_ptr<Logger> logger)
    {
        if (logger) loggers_.push_back(std::move(logger));
    }
    void remove_logger(const Logger* logger)
    {
        std::erase_if(loggers_, [&](const auto& l) { return l.get() == logger; });
    }
    const std::vector<std::shared_ptr<Logger>>& loggers() const noexcept { return loggers_; }
    bool has_loggers() const noexcept { return !loggers_.empty(); }

protected:
    /// Calls `event(logger)` for every attached logger.
    template <typename F>
    void notify(F&& event) const
    {
        for (const auto& logger : loggers_) event(*logger);
    }

private:
    std::vector<std::shared_ptr<Logger>> loggers_;
};

}  // namespace loom::log

LOOM_PUBLIC_END
