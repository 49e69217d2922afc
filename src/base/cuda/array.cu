#include "base/array_kernels.hpp"
#include "base/cuda/parallel.cuh"

namespace loom::cuda {

template <typename T>
void fill(const CudaExecutor& exec, T* data, size_type n, T value)
{
    array_kernels::fill(exec, data, n, value);
}

#define LOOM_INSTANTIATE_FILL(T) template void fill<T>(const CudaExecutor&, T*, size_type, T)
LOOM_FOR_EACH_ARRAY_TYPE(LOOM_INSTANTIATE_FILL);

}  // namespace loom::cuda
