// CUDA precision conversions: the unified kernel on the CUDA launchers, a grid-stride loop,
// one element per thread, the hardware's cvt instructions doing the rounding
// (loom/base/half.hpp).
#include "base/cuda/parallel.cuh"
#include "matrix/precision/unified.hpp"

namespace loom::matrix::unified {

#define LOOM_INSTANTIATE_PRECISION_CUDA(To, From) \
    LOOM_INSTANTIATE_PRECISION_KERNELS(CudaExecutor, To, From);
LOOM_FOR_EACH_PRECISION_PAIR(LOOM_INSTANTIATE_PRECISION_CUDA)

}  // namespace loom::matrix::unified
