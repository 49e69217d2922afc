// OpenMP halo gather (the unified kernel).
#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "distributed/halo/unified.hpp"

namespace loom::distributed::omp {

template <typename V, typename I>
void gather_rows(const OmpExecutor& exec, const matrix::Dense<V>& x, const Array<I>& rows,
                 matrix::Dense<V>& out)
{
    unified::gather_rows(exec, x, rows, out);
}

#define LOOM_INSTANTIATE_HALO_OMP(V, I) LOOM_INSTANTIATE_HALO_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_HALO_OMP)

}  // namespace loom::distributed::omp
