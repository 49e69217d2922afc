// Plain host memory for the staged halo where Loom has no CUDA (pinned.cu otherwise).
#include "distributed/halo/pinned.hpp"

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

}  // namespace loom::distributed::detail
#endif
