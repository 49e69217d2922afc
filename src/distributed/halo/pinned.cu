// Page-locked host memory for the staged halo (pinned.hpp).
#include <cstring>

#include "base/cuda/helpers.cuh"
#include "distributed/halo/pinned.hpp"

namespace loom::distributed::detail {

std::shared_ptr<void> pinned_host_bytes(std::size_t bytes)
{
    void* memory = nullptr;
    LOOM_CUDA_CHECK(cudaHostAlloc(&memory, bytes, cudaHostAllocDefault),
                    "loom::distributed::Matrix");
    return {memory, [](void* p) { cudaFreeHost(p); }};
}

void copy_to_executor_async(const Executor& exec, const void* src, void* dst, std::size_t bytes)
{
    if (bytes == 0) return;
    if (exec.is_host()) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const auto& cuda = static_cast<const CudaExecutor&>(exec);
    const CudaExecutor::DeviceScope scope(cuda.device_id());
    LOOM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                                    loom::cuda::stream_of(cuda)),
                    "loom::distributed::Matrix");
}

}  // namespace loom::distributed::detail
