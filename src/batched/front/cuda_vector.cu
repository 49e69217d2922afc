// CUDA front-level trsv, syr, axpy, scale, dot and nrm2 (the launches: cuda_driver.cuh).
#include "batched/front/cuda_driver.cuh"
#include "batched/front/families.hpp"

namespace loom::batched::cuda {

using Exec = CudaExecutor;
using Driver = cuda_front::Driver;

LOOM_BATCHED_FRONT_VECTOR
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT_VECTOR)

}  // namespace loom::batched::cuda
