// CUDA halo gather: the unified kernel on the CUDA launchers.
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "distributed/halo/unified.hpp"

namespace loom::distributed::unified {

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_HALO_KERNELS, CudaExecutor)

}  // namespace loom::distributed::unified
