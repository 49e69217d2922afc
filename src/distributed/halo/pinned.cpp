// Plain host memory for the staged halo where Loom has no CUDA (pinned.cu otherwise).
#include "distributed/halo/pinned.hpp"

#include <cstring>

#include "loom/config.hpp"

#if !LOOM_HAS_CUDA
#include <cstdlib>
#include <new>

namespace loom::distributed::detail {

std::shared_ptr<void> pinned_host_bytes(std::size_t bytes)
{
    void* memory = std::malloc(bytes);
    if (memory == nullptr) throw std::bad_alloc();
    return {memory, [](void* p) { std::free(p); }};
}

void copy_to_executor_async(const Executor&, const void* src, void* dst, std::size_t bytes)
{
    if (bytes > 0) std::memcpy(dst, src, bytes);  // host executors only without CUDA
}

}  // namespace loom::distributed::detail
#endif
