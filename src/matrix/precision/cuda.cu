// CUDA precision conversions (matrix/precision/unified.hpp): a grid-stride loop, one element
// per thread, the hardware's cvt instructions doing the rounding (loom/base/half.hpp).
#include "base/cuda/parallel.cuh"
#include "matrix/precision/unified.hpp"

namespace loom::matrix::cuda {

template <typename To, typename From>
void convert_values(const CudaExecutor& exec, size_type rows, size_type cols, const From* in,
                    size_type in_stride, To* out, size_type out_stride)
{
    unified::convert_values(exec, rows, cols, in, in_stride, out, out_stride);
}

#define LOOM_INSTANTIATE_PRECISION_CUDA(To, From) \
    LOOM_INSTANTIATE_PRECISION_KERNELS(CudaExecutor, To, From);
LOOM_FOR_EACH_PRECISION_PAIR(LOOM_INSTANTIATE_PRECISION_CUDA)

}  // namespace loom::matrix::cuda
