#include "loom/log/loggers.hpp"

#include <algorithm>
#include <ios>
#include <ostream>

#include "log/demangle.hpp"
#include "loom/base/error.hpp"

namespace loom::log {
namespace {

/// Prints norms in a short scientific form, restoring the stream's format afterwards.
void print_norms(std::ostream& out, std::span<const double> norms)
{
    const auto flags = out.flags();
    const auto precision = out.precision();
    out << std::scientific;
    out.precision(3);
    for (std::size_t j = 0; j < norms.size(); ++j) out << (j ? " " : "") << norms[j];
    out.flags(flags);
    out.precision(precision);
}

std::vector<double> copy_of(std::span<const double> s) { return {s.begin(), s.end()}; }
std::vector<stop::ColumnStatus> copy_of(std::span<const stop::ColumnStatus> s)
{
    return {s.begin(), s.end()};
}

Record record_of(EventKind kind, const ApplyEvent& e)
{
    return {.kind = kind, .source = e.op, .size = e.size, .columns = e.columns};
}

}  // namespace

const char* to_string(EventKind kind) noexcept
{
    switch (kind) {
    case EventKind::apply_started: return "apply started";
    case EventKind::apply_finished: return "apply finished";
    case EventKind::solve_started: return "solve started";
    case EventKind::iteration: return "iteration";
    case EventKind::solve_finished: return "solve finished";
    case EventKind::criterion_checked: return "criterion checked";
    }
    return "unknown";
}

// ---------------------------------------------------------------- StreamLogger

StreamLogger::StreamLogger(std::ostream& stream, unsigned events)
    : stream_(stream), events_(events)
{}

void StreamLogger::on_apply_started(const ApplyEvent& e)
{
    if (!(events_ & applies)) return;
    stream_ << "[loom] apply started: " << detail::demangle(*e.type) << " ("
            << loom::to_string(e.size) << ") on " << e.columns << " column(s)\n";
}

void StreamLogger::on_apply_finished(const ApplyEvent& e)
{
    if (!(events_ & applies)) return;
    stream_ << "[loom] apply finished: " << detail::demangle(*e.type) << " ("
            << loom::to_string(e.size) << ")\n";
}

void StreamLogger::on_solve_started(const SolveStartEvent& e)
{
    if (!(events_ & solves)) return;
    stream_ << "[loom] " << e.name << ": solving a " << loom::to_string(e.size) << " system for "
            << e.columns << " right-hand side(s), ||b|| = ";
    print_norms(stream_, e.rhs_norms);
    stream_ << ", ||r0|| = ";
    print_norms(stream_, e.initial_residual_norms);
    stream_ << '\n';
}

void StreamLogger::on_iteration(const IterationEvent& e)
{
    if (!(events_ & iterations)) return;
    stream_ << "[loom] " << e.name << ": iteration " << e.iteration << ": residual norm"
            << (e.residual_norms.size() > 1 ? "s " : " ");
    print_norms(stream_, e.residual_norms);
    stream_ << '\n';
}

void StreamLogger::on_solve_finished(const SolveEndEvent& e)
{
    if (!(events_ & solves)) return;
    stream_ << "[loom] " << e.name << ": " << e.result->message() << '\n';
}

void StreamLogger::on_criterion_checked(const CriterionCheckEvent& e)
{
    if (!(events_ & criteria) || !e.stopped_any) return;
    stream_ << "[loom] criterion '" << e.description << "' holds at iteration "
            << e.iteration << " for column(s)";
    for (std::size_t j = 0; j < e.status.size(); ++j) {
        if (e.status[j].stopped() && e.status[j].iteration == e.iteration) stream_ << ' ' << j;
    }
    stream_ << '\n';
}

void StreamLogger::on_hierarchy_built(const HierarchyEvent& e)
{
    if (!(events_ & hierarchies)) return;
    const auto flags = stream_.flags();
    const auto precision = stream_.precision();
    stream_ << std::fixed;
    for (std::size_t k = 0; k < e.levels.size(); ++k) {
        const auto& level = e.levels[k];
        stream_.precision(3);
        stream_ << "[loom] " << e.name << ": level " << k << ": " << level.rows << " rows, "
                << level.nnz << " nonzeros, rho(D^-1 A) " << level.spectral_radius;
        stream_.precision(4);
        stream_ << ", setup " << level.setup_seconds << " s\n";
    }
    stream_.precision(3);
    stream_ << "[loom] " << e.name << ": " << (e.numeric_only ? "numeric re-setup" : "setup")
            << " of " << e.levels.size() << " level(s), operator complexity "
            << e.operator_complexity << ", grid complexity " << e.grid_complexity;
    stream_.precision(4);
    stream_ << ", " << e.setup_seconds << " s\n";
    stream_.flags(flags);
    stream_.precision(precision);
}

// ---------------------------------------------------------------- RecordLogger

RecordLogger::RecordLogger(std::size_t max_records) : max_records_(max_records) {}

std::size_t RecordLogger::count(EventKind kind) const
{
    return static_cast<std::size_t>(std::count_if(
        records_.begin(), records_.end(), [&](const Record& r) { return r.kind == kind; }));
}

void RecordLogger::push(Record record)
{
    if (max_records_ == 0) return;
    if (records_.size() == max_records_) records_.pop_front();
    records_.push_back(std::move(record));
}

void RecordLogger::on_apply_started(const ApplyEvent& e)
{
    push(record_of(EventKind::apply_started, e));
}

void RecordLogger::on_apply_finished(const ApplyEvent& e)
{
    push(record_of(EventKind::apply_finished, e));
}

void RecordLogger::on_solve_started(const SolveStartEvent& e)
{
    push({.kind = EventKind::solve_started, .source = e.solver, .name = e.name, .size = e.size,
          .columns = e.columns, .residual_norms = copy_of(e.initial_residual_norms)});
}

void RecordLogger::on_iteration(const IterationEvent& e)
{
    push({.kind = EventKind::iteration, .source = e.solver, .name = e.name,
          .iteration = e.iteration, .residual_norms = copy_of(e.residual_norms),
          .status = copy_of(e.status)});
}

void RecordLogger::on_solve_finished(const SolveEndEvent& e)
{
    push({.kind = EventKind::solve_finished, .source = e.solver, .name = e.name,
          .iteration = e.result->iterations, .result = *e.result});
}

void RecordLogger::on_criterion_checked(const CriterionCheckEvent& e)
{
    push({.kind = EventKind::criterion_checked, .source = e.criterion, .iteration = e.iteration,
          .stopped_any = e.stopped_any, .residual_norms = copy_of(e.residual_norms),
          .status = copy_of(e.status)});
}

// ---------------------------------------------------------------- ConvergenceLogger

std::vector<double> ConvergenceLogger::final_residual_norms() const
{
    return result_ ? result_->residual_norms : std::vector<double>{};
}

void ConvergenceLogger::clear()
{
    watching_ = nullptr;
    history_.clear();
    result_.reset();
}

void ConvergenceLogger::on_solve_started(const SolveStartEvent& e)
{
    if (watching_) return;  // a nested solve inside the one being watched
    watching_ = e.solver;
    history_.clear();
    result_.reset();
}

void ConvergenceLogger::on_iteration(const IterationEvent& e)
{
    if (e.solver != watching_) return;
    history_.push_back(copy_of(e.residual_norms));
}

void ConvergenceLogger::on_solve_finished(const SolveEndEvent& e)
{
    if (e.solver != watching_) return;
    watching_ = nullptr;
    result_ = *e.result;
}

}  // namespace loom::log
