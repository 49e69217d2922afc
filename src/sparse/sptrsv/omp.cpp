// OpenMP SpTRSV by level sets (omp_levels.hpp: one parallel region, thin levels chained);
// with one thread in row order, as the reference.
#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "sparse/sptrsv/host_row.hpp"
#include "sparse/sptrsv/kernels.hpp"
#include "sparse/sptrsv/omp_levels.hpp"
#include "sparse/sptrsv/supernodal.hpp"

namespace loom::sparse::omp {

template <typename V, typename I>
void sptrsv_level_set(const OmpExecutor& exec, const detail::TriangularRows<V, I>& rows,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    // One thread gains nothing from the levels: their order only scatters its accesses.
    if (exec.num_threads() == 1) {
        detail::solve_rows_in_order(rows, b, x);
        return;
    }
    detail::run_by_levels(exec, schedule, [&](I r) { detail::solve_row(rows, r, b, x); });
}

LOOM_DEFINE_SPTRSV_SUPERNODAL(OmpExecutor)

#define LOOM_INSTANTIATE(V, I) LOOM_INSTANTIATE_SPTRSV_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::omp
