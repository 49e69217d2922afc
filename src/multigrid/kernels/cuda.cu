// CUDA multigrid setup kernels (the unified ones, multigrid/kernels/unified.hpp).
#include "base/cuda/parallel.cuh"
#include "base/cuda/parallel_reduce.cuh"
#include "base/instantiate.hpp"
#include "multigrid/kernels/kernels.hpp"
#include "multigrid/kernels/unified.hpp"

namespace loom::multigrid::cuda {

LOOM_DEFINE_MULTIGRID_UNIFIED_KERNELS(CudaExecutor)

#define LOOM_INSTANTIATE_MULTIGRID_CUDA(V, I) LOOM_INSTANTIATE_MULTIGRID_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_CUDA)
#define LOOM_INSTANTIATE_MULTIGRID_CUDA_VALUE(V) LOOM_INSTANTIATE_MULTIGRID_VALUE_KERNELS(CudaExecutor, V)
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_MULTIGRID_CUDA_VALUE)
#define LOOM_INSTANTIATE_MULTIGRID_CUDA_INDEX(I) LOOM_INSTANTIATE_MULTIGRID_INDEX_KERNELS(CudaExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_CUDA_INDEX)

}  // namespace loom::multigrid::cuda
