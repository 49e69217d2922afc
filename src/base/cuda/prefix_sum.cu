#include <cub/device/device_scan.cuh>

#include "base/cuda/helpers.cuh"
#include "base/prefix_sum.hpp"

namespace loom::cuda {

template <typename I>
void exclusive_prefix_sum(const CudaExecutor& exec, I* values, size_type n)
{
    constexpr const char* where = "loom::cuda::exclusive_prefix_sum";
    if (n <= 0) return;
    const auto stream = stream_of(exec);
    std::size_t temp_bytes = 0;
    LOOM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, values, n, stream), where);
    Array<char> temp(exec.shared_from_this(), static_cast<size_type>(temp_bytes));
    LOOM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, values, n, stream),
                    where);
}

template void exclusive_prefix_sum(const CudaExecutor&, int32*, size_type);
template void exclusive_prefix_sum(const CudaExecutor&, int64*, size_type);

}  // namespace loom::cuda
