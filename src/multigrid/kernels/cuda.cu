// CUDA multigrid setup kernels (the unified ones, multigrid/kernels/unified.hpp).
#include "base/cuda/parallel.cuh"
#include "base/cuda/parallel_reduce.cuh"
#include "base/instantiate.hpp"
#include "multigrid/kernels/kernels.hpp"
#include "multigrid/kernels/unified.hpp"

namespace loom::multigrid::unified {

LOOM_INSTANTIATE_MULTIGRID_ALL_KERNELS(CudaExecutor)

}  // namespace loom::multigrid::unified
