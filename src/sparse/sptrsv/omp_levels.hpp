// OpenMP: rows run by a level schedule (levels.hpp) in one parallel region, for every kernel
// whose row waits on rows of earlier levels (SpTRSV, the IKJ incomplete factorization). A fat
// level is a parallel loop over its rows (ended by the loop's barrier); a stage of chained
// thin levels is run by one thread, level after level, which is an order every dependency
// respects, so the whole stage costs one barrier instead of one per level. Include from
// omp.cpp files only (they are compiled with OpenMP).
#pragma once

#include "loom/base/executor.hpp"
#include "sparse/sptrsv/kernels.hpp"

namespace loom::sparse::detail {

/// row(r) for every row of the schedule, each after the rows of earlier levels.
template <typename I, typename Row>
void run_by_levels(const OmpExecutor& exec, const LevelSchedule<I>& schedule, const Row& row)
{
    const auto* order = schedule.host_order.data();
    const auto& level_ptrs = schedule.host_level_ptrs;
#pragma omp parallel num_threads(exec.num_threads())
    for (size_type s = 0; s < schedule.stages(); ++s) {
        const I begin = level_ptrs[schedule.stage_ptrs[s]];
        const I end = level_ptrs[schedule.stage_ptrs[s + 1]];
        if (schedule.chained[s]) {
#pragma omp single
            for (I i = begin; i < end; ++i) row(order[i]);
        } else {
#pragma omp for schedule(static)
            for (I i = begin; i < end; ++i) row(order[i]);
        }
    }
}

}  // namespace loom::sparse::detail
