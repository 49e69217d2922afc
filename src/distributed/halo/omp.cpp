// OpenMP halo gather: the unified kernel on the OpenMP launchers.
#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "distributed/halo/unified.hpp"

namespace loom::distributed::unified {

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_HALO_KERNELS, OmpExecutor)

}  // namespace loom::distributed::unified
