#include <complex>
#include <cstdint>

#include "base/array_kernels.hpp"
#include "base/cuda/launch.cuh"

namespace loom::cuda {

template <typename T>
void fill(const CudaExecutor& exec, T* data, size_type n, T value)
{
    auto d = as_device(data);
    const auto v = as_device(value);
    parallel_for(exec, n, [=] __device__(long long i) { d[i] = v; }, "loom::Array::fill");
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

}  // namespace loom::cuda
