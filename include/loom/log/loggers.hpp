// The loggers Loom ships: a stream logger (human-readable lines), a record logger (the event
// history, for tests and post-mortems) and a convergence logger (residual history and the
// outcome of a solve, for plots and the command line).
#pragma once

#include <cstddef>
#include <deque>
#include <iosfwd>
#include <limits>
#include <optional>
#include <vector>

#include "loom/log/logger.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::log {

/// Writes one line per event to a stream: "[loom] cg: iteration 12: residual norm 1.2e-05".
class StreamLogger : public Logger {
public:
    /// Event classes to print, combined with |.
    enum Events : unsigned {
        applies = 1u,     ///< LinOp::apply started/finished
        solves = 2u,      ///< solve started/finished (with the outcome)
        iterations = 4u,  ///< every criteria check
        criteria = 8u,    ///< criteria checks that stopped a column
        hierarchies = 16u,  ///< a multigrid setup: one line per level
        all = 31u,
    };

    /// The stream must outlive the logger.
    explicit StreamLogger(std::ostream& stream, unsigned events = solves | iterations);

    void on_apply_started(const ApplyEvent& e) override;
    void on_apply_finished(const ApplyEvent& e) override;
    void on_solve_started(const SolveStartEvent& e) override;
    void on_iteration(const IterationEvent& e) override;
    void on_solve_finished(const SolveEndEvent& e) override;
    void on_criterion_checked(const CriterionCheckEvent& e) override;
    void on_hierarchy_built(const HierarchyEvent& e) override;

private:
    std::ostream& stream_;
    unsigned events_;
};

enum class EventKind {
    apply_started,
    apply_finished,
    solve_started,
    iteration,
    solve_finished,
    criterion_checked,
};
const char* to_string(EventKind kind) noexcept;

/// An event copied into owning storage.
struct Record {
    EventKind kind{};
    /// The operator, solver or criterion that emitted it (identity only; it may be gone).
    const void* source = nullptr;
    const char* name = "";      ///< solver name for solver events
    dim2 size{};                ///< apply and solve-start events
    size_type columns = 0;      ///< apply and solve-start events
    size_type iteration = 0;    ///< iteration and criterion events
    bool stopped_any = false;   ///< criterion events
    std::vector<double> residual_norms{};        ///< iteration and criterion events
    std::vector<stop::ColumnStatus> status{};    ///< iteration and criterion events
    std::optional<solver::SolveResult> result{}; ///< solve-finished events
};

/// Keeps every event (or the most recent `max_records`) in order.
class RecordLogger : public Logger {
public:
    explicit RecordLogger(std::size_t max_records = std::numeric_limits<std::size_t>::max());

    const std::deque<Record>& records() const noexcept { return records_; }
    /// Number of recorded events of one kind.
    std::size_t count(EventKind kind) const;
    void clear() { records_.clear(); }

    void on_apply_started(const ApplyEvent& e) override;
    void on_apply_finished(const ApplyEvent& e) override;
    void on_solve_started(const SolveStartEvent& e) override;
    void on_iteration(const IterationEvent& e) override;
    void on_solve_finished(const SolveEndEvent& e) override;
    void on_criterion_checked(const CriterionCheckEvent& e) override;

private:
    void push(Record record);

    std::size_t max_records_;
    std::deque<Record> records_;
};

/// The residual history and outcome of the most recent solve it watched. When solvers are
/// nested (an inner solver sharing the logger), it follows the outermost one.
class ConvergenceLogger : public Logger {
public:
    /// Residual norms per check: [0] is the initial residual, [i] the one after iteration i
    /// (GMRES restarts add no entry); each entry holds one norm per right-hand side.
    const std::vector<std::vector<double>>& residual_history() const noexcept
    {
        return history_;
    }
    /// Iterations of the last finished solve (0 before any).
    size_type iterations() const noexcept { return result_ ? result_->iterations : 0; }
    /// Final residual norm per right-hand side of the last finished solve (empty before any).
    std::vector<double> final_residual_norms() const;
    /// The last finished solve's result, if any.
    const std::optional<solver::SolveResult>& result() const noexcept { return result_; }
    void clear();

    void on_solve_started(const SolveStartEvent& e) override;
    void on_iteration(const IterationEvent& e) override;
    void on_solve_finished(const SolveEndEvent& e) override;

private:
    const void* watching_ = nullptr;
    std::vector<std::vector<double>> history_;
    std::optional<solver::SolveResult> result_;
};

}  // namespace loom::log

LOOM_PUBLIC_END
