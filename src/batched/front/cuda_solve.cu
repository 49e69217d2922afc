// CUDA front-level inverse_lu, gbtrf and gbtrs (the launches: cuda_driver.cuh).
#include "batched/front/cuda_driver.cuh"
#include "batched/front/families.hpp"

namespace loom::batched::backend {

using Exec = CudaExecutor;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT_SOLVE)

}  // namespace loom::batched::backend
