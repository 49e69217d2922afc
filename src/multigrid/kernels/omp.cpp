// OpenMP multigrid setup kernels (the unified ones, multigrid/kernels/unified.hpp).
#include "base/omp/launch.hpp"
#include "base/instantiate.hpp"
#include "multigrid/kernels/kernels.hpp"
#include "multigrid/kernels/unified.hpp"

namespace loom::multigrid::omp {

LOOM_DEFINE_MULTIGRID_UNIFIED_KERNELS(OmpExecutor)

#define LOOM_INSTANTIATE_MULTIGRID_OMP(V, I) LOOM_INSTANTIATE_MULTIGRID_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_OMP)
#define LOOM_INSTANTIATE_MULTIGRID_OMP_VALUE(V) LOOM_INSTANTIATE_MULTIGRID_VALUE_KERNELS(OmpExecutor, V)
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_MULTIGRID_OMP_VALUE)
#define LOOM_INSTANTIATE_MULTIGRID_OMP_INDEX(I) LOOM_INSTANTIATE_MULTIGRID_INDEX_KERNELS(OmpExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_OMP_INDEX)

}  // namespace loom::multigrid::omp
