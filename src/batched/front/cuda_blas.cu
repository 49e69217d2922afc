// CUDA front-level gemm, gemv, trsm and trmm (the launches: cuda_driver.cuh).
#include "batched/front/cuda_driver.cuh"
#include "batched/front/families.hpp"

namespace loom::batched::backend {

using Exec = CudaExecutor;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT_BLAS)

}  // namespace loom::batched::backend
