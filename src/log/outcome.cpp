#include "loom/log/outcome.hpp"

#include <algorithm>
#include <sstream>

namespace loom::stop {

const char* to_string(Reason reason) noexcept
{
    switch (reason) {
    case Reason::running: return "running";
    case Reason::converged: return "converged";
    case Reason::iteration_limit: return "iteration limit";
    case Reason::time_limit: return "time limit";
    case Reason::breakdown: return "breakdown";
    case Reason::not_finite: return "not finite";
    }
    return "unknown";
}

}  // namespace loom::stop

namespace loom::solver {
namespace {

void append_restarts_of(std::ostream& out, size_type restarts)
{
    if (restarts > 0) out << ", " << restarts << " restart" << (restarts == 1 ? "" : "s");
}

}  // namespace

double SolveResult::relative_residual_norm(size_type j) const
{
    if (j < 0 || j >= static_cast<size_type>(residual_norms.size())) return 0;
    const double rhs = j < static_cast<size_type>(rhs_norms.size()) ? rhs_norms[j] : 0;
    return rhs > 0 ? residual_norms[j] / rhs : residual_norms[j];
}

size_type SolveResult::total_restarts() const noexcept
{
    size_type total = 0;
    for (const auto n : restarts) total += n;
    return total;
}

std::string SolveResult::message() const
{
    std::ostringstream out;
    out.precision(3);
    if (columns.empty()) return "not solved yet";
    if (converged()) {
        double worst = 0;
        for (std::size_t j = 0; j < columns.size(); ++j) {
            worst = std::max(worst, relative_residual_norm(static_cast<size_type>(j)));
        }
        out << "converged after " << iterations << " iteration" << (iterations == 1 ? "" : "s")
            << " (relative residual " << std::scientific << worst << ")";
        append_restarts_of(out, total_restarts());
        return out.str();
    }
    for (std::size_t j = 0; j < columns.size(); ++j) {
        const auto& c = columns[j];
        if (c.converged()) continue;
        if (columns.size() > 1) out << "column " << j << ": ";
        out << stop::to_string(c.reason);
        if (c.reason == stop::Reason::breakdown || c.reason == stop::Reason::not_finite) {
            out << " (" << c.detail << ")";
        }
        out << " at iteration " << c.iteration << " (relative residual " << std::scientific
            << relative_residual_norm(static_cast<size_type>(j)) << ")";
        break;
    }
    append_restarts_of(out, total_restarts());
    return out.str();
}

}  // namespace loom::solver
