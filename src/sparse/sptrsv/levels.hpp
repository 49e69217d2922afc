// Level scheduling of the rows of a triangular dependency pattern, shared by SpTRSV and the
// incomplete factorizations (whose row i waits on the rows of its strictly lower entries).
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "loom/base/types.hpp"
#include "sparse/sptrsv/kernels.hpp"

namespace loom::sparse::detail {

/// Every row's level in op(T) (0 for a row that depends on none), rows in dependency order.
template <typename I>
std::vector<I> row_levels(size_type n, const std::vector<I>& ptrs, const std::vector<I>& cols,
                          bool lower)
{
    std::vector<I> level(n, 0);
    for (size_type i = 0; i < n; ++i) {
        const auto r = lower ? i : n - 1 - i;
        I l = 0;
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (cols[k] != r) l = std::max<I>(l, level[cols[k]] + 1);
        }
        level[r] = l;
    }
    return level;
}

/// The stages of a schedule whose host_level_ptrs are set: a run of consecutive levels
/// narrower than `thin_width` forms one chained stage, every other level a stage of its own.
template <typename I>
void group_stages(LevelSchedule<I>& schedule, size_type thin_width)
{
    const auto& ptrs = schedule.host_level_ptrs;
    schedule.stage_ptrs.clear();
    schedule.chained.clear();
    for (size_type l = 0; l < schedule.levels(); ++l) {
        const bool thin = static_cast<size_type>(ptrs[l + 1] - ptrs[l]) < thin_width;
        if (thin && !schedule.chained.empty() && schedule.chained.back()) {
            ++schedule.stage_ptrs.back();
            continue;
        }
        if (schedule.stage_ptrs.empty()) schedule.stage_ptrs.push_back(0);
        schedule.stage_ptrs.push_back(l + 1);
        schedule.chained.push_back(thin);
    }
    if (schedule.stage_ptrs.empty()) schedule.stage_ptrs.push_back(0);
}

/// Rows sorted by level (counting sort, rows ascending within a level), and the stages: a
/// run of consecutive levels narrower than `thin_width` forms one chained stage.
template <typename I>
LevelSchedule<I> level_schedule(const std::vector<I>& level, size_type thin_width)
{
    LevelSchedule<I> schedule;
    const auto levels = level.empty() ? 0 : *std::max_element(level.begin(), level.end()) + 1;
    auto& ptrs = schedule.host_level_ptrs;
    ptrs.assign(levels + 1, 0);
    for (const auto l : level) ++ptrs[l + 1];
    for (I l = 0; l < levels; ++l) ptrs[l + 1] += ptrs[l];
    std::vector<I> order(level.size());
    auto next = ptrs;
    for (size_type r = 0; r < static_cast<size_type>(level.size()); ++r) {
        order[next[level[r]]++] = static_cast<I>(r);
    }
    schedule.host_order = std::move(order);
    group_stages(schedule, thin_width);
    return schedule;
}

}  // namespace loom::sparse::detail
