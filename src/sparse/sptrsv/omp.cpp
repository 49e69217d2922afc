// OpenMP SpTRSV by level sets, in one parallel region: a fat level is a parallel loop over
// its rows (ended by the loop's barrier); a stage of chained thin levels is run by one
// thread, level after level, which is an order every dependency respects, so the whole
// stage costs one barrier instead of one per level.
#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "sparse/sptrsv/host_row.hpp"
#include "sparse/sptrsv/kernels.hpp"
#include "sparse/sptrsv/supernodal.hpp"

namespace loom::sparse::omp {

template <typename V, typename I>
void sptrsv_level_set(const OmpExecutor& exec, const detail::TriangularRows<V, I>& rows,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    const auto* order = schedule.order.const_data();
    const auto& level_ptrs = schedule.host_level_ptrs;
#pragma omp parallel num_threads(exec.num_threads())
    for (size_type s = 0; s < schedule.stages(); ++s) {
        const I begin = level_ptrs[schedule.stage_ptrs[s]];
        const I end = level_ptrs[schedule.stage_ptrs[s + 1]];
        if (schedule.chained[s]) {
#pragma omp single
            for (I i = begin; i < end; ++i) detail::solve_row(rows, order[i], b, x);
        } else {
#pragma omp for schedule(static)
            for (I i = begin; i < end; ++i) detail::solve_row(rows, order[i], b, x);
        }
    }
}

LOOM_DEFINE_SPTRSV_SUPERNODAL(OmpExecutor)

#define LOOM_INSTANTIATE(V, I) LOOM_INSTANTIATE_SPTRSV_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::omp
