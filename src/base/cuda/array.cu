#include <complex>
#include <cstdint>

#include "base/array_kernels.hpp"
#include "base/cuda/parallel.cuh"
#include "loom/base/half.hpp"

namespace loom::cuda {

template <typename T>
void fill(const CudaExecutor& exec, T* data, size_type n, T value)
{
    array_kernels::fill(exec, data, n, value);
}

#define LOOM_INSTANTIATE_FILL(T) template void fill<T>(const CudaExecutor&, T*, size_type, T)
LOOM_INSTANTIATE_FILL(int32);
LOOM_INSTANTIATE_FILL(int64);
LOOM_INSTANTIATE_FILL(std::uint32_t);
LOOM_INSTANTIATE_FILL(std::uint64_t);
LOOM_INSTANTIATE_FILL(float);
LOOM_INSTANTIATE_FILL(double);
LOOM_INSTANTIATE_FILL(std::complex<float>);
LOOM_INSTANTIATE_FILL(std::complex<double>);
LOOM_INSTANTIATE_FILL(half);
LOOM_INSTANTIATE_FILL(bfloat16);

}  // namespace loom::cuda
