// CUDA front-level utv (the launches: cuda_driver.cuh).
#include "batched/front/cuda_driver.cuh"
#include "batched/front/families.hpp"

namespace loom::batched::cuda {

using Exec = CudaExecutor;
using Driver = cuda_front::Driver;

LOOM_BATCHED_FRONT_UTV
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT_UTV)

}  // namespace loom::batched::cuda
