// Page-locked host memory for the staged halo (pinned.hpp).
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

}  // namespace loom::distributed::detail
