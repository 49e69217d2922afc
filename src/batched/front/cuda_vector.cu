// CUDA front-level trsv, syr, axpy, scale, dot and nrm2 (the launches: cuda_driver.cuh).
#include "batched/front/cuda_driver.cuh"
#include "batched/front/families.hpp"

namespace loom::batched::backend {

using Exec = CudaExecutor;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT_VECTOR)

}  // namespace loom::batched::backend
