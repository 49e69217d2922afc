#include "solver/run_ahead.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace loom::solver::detail {
namespace {

void collect(const stop::Criterion& criterion, const stop::Context& context,
             bool thresholds_exact, DeviceCriteria& out)
{
    if (const auto* limit = dynamic_cast<const stop::MaxIterations*>(&criterion)) {
        out.iteration_limit = std::min(out.iteration_limit, limit->limit());
    } else if (const auto* residual = dynamic_cast<const stop::ResidualNorm*>(&criterion)) {
        if (!thresholds_exact) {
            out.exact = false;
            return;
        }
        for (std::size_t j = 0; j < out.thresholds.size(); ++j) {
            // The products of ResidualNorm's check, so that the executor compares with the
            // same numbers; a NaN threshold never holds there nor here.
            double threshold = residual->tolerance();
            if (residual->baseline() == stop::Baseline::rhs_norm) {
                threshold = residual->tolerance() * context.rhs_norms[j];
            } else if (residual->baseline() == stop::Baseline::initial_residual) {
                threshold = residual->tolerance() * context.initial_residual_norms[j];
            }
            if (threshold > out.thresholds[j]) out.thresholds[j] = threshold;
        }
    } else if (const auto* any = dynamic_cast<const stop::AnyOf*>(&criterion)) {
        for (const auto& c : any->criteria()) collect(*c, context, thresholds_exact, out);
    } else {
        out.exact = false;
    }
}

}  // namespace

bool DeviceCriteria::has_thresholds() const noexcept
{
    return std::any_of(thresholds.begin(), thresholds.end(),
                       [](double t) { return t > -std::numeric_limits<double>::infinity(); });
}

DeviceCriteria device_criteria(const stop::Criterion& criteria, const stop::Context& context,
                               size_type k, bool thresholds_exact)
{
    DeviceCriteria out;
    out.thresholds.assign(static_cast<std::size_t>(k), -std::numeric_limits<double>::infinity());
    collect(criteria, context, thresholds_exact, out);
    if (!out.exact) {
        // Only the host decides: the executor must not stop a column on its own.
        std::fill(out.thresholds.begin(), out.thresholds.end(),
                  -std::numeric_limits<double>::infinity());
    }
    return out;
}

BlockPlanner::BlockPlanner(const DeviceCriteria& criteria, bool runs_ahead)
    : criteria_(criteria), one_at_a_time_(!runs_ahead || !criteria.exact)
{}

size_type BlockPlanner::next(size_type done, std::span<const double> norms,
                             std::span<const char> running)
{
    if (one_at_a_time_) return 1;
    const size_type room = criteria_.iteration_limit > done
                               ? criteria_.iteration_limit - done
                               : size_type{1};
    size_type block = max_block;
    if (criteria_.has_thresholds()) {
        // Iterations still needed by the slowest column at the rate of the last block; a
        // block at most twice the last, so that a wrong guess wastes little.
        double needed = last_ == 0 ? 1 : 0;
        for (std::size_t j = 0; last_ > 0 && j < norms.size(); ++j) {
            if (!running[j]) continue;
            const double threshold = criteria_.thresholds[j];
            const double rate = std::log(last_norms_[j] / norms[j]) / double(last_);
            if (!(threshold > 0) || !(rate > 0)) {
                needed = double(max_block);
                break;
            }
            needed = std::max(needed, std::log(norms[j] / threshold) / rate);
        }
        const auto cap = std::max<size_type>(1, 2 * last_);
        const double wanted = std::ceil(std::min(needed, double(max_block)));
        block = std::clamp<size_type>(static_cast<size_type>(wanted), 1, std::min(cap, max_block));
    }
    block = std::min(block, room);
    last_ = block;
    last_norms_.assign(norms.begin(), norms.end());
    return block;
}

void executor_disagrees(const char* solver, size_type j, size_type it)
{
    throw std::logic_error(std::string(solver) + ": the executor's decision on column " +
                           std::to_string(j) + " at iteration " + std::to_string(it) +
                           " differs from the host's");
}

}  // namespace loom::solver::detail
