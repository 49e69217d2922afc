// Host memory for the halo messages of a device-resident matrix when MPI cannot take device
// pointers: page-locked (cudaHostAlloc) where CUDA is built, so the copies to and from the
// device run at full bandwidth; plain host memory otherwise.
#pragma once

#include <cstddef>
#include <memory>

#include "loom/base/executor.hpp"

namespace loom::distributed::detail {

/// `bytes` of host memory, page-locked when Loom has CUDA; freed with the pointer.
std::shared_ptr<void> pinned_host_bytes(std::size_t bytes);

/// Queues the copy of `bytes` from host memory `src` (pinned_host_bytes) to `dst` in exec's
/// memory, without waiting: on a CUDA executor an asynchronous copy on its stream (src must
/// stay untouched until the stream passes it: the next stream synchronization), a plain copy
/// on the host. Saves a stream synchronization per message where two processes share a GPU.
void copy_to_executor_async(const Executor& exec, const void* src, void* dst, std::size_t bytes);

/// n values of T in pinned_host_bytes.
template <typename T>
class PinnedBuffer {
public:
    void resize(std::size_t n)
    {
        if (n == size_) return;
        memory_ = n > 0 ? pinned_host_bytes(n * sizeof(T)) : nullptr;
        size_ = n;
    }
    T* data() noexcept { return static_cast<T*>(memory_.get()); }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

private:
    std::shared_ptr<void> memory_;
    std::size_t size_ = 0;
};

}  // namespace loom::distributed::detail
