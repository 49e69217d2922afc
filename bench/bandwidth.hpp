// The memory bandwidth a streaming kernel can hope for, measured in the same run as the
// kernel: a large copy on the executor's memory, counting bytes read plus bytes written.
#pragma once

#include <cstddef>
#include <memory>

#include "loom/base/executor.hpp"

namespace loom::bench {

struct CopyBandwidth {
    double bytes_per_second = 0;
    std::size_t bytes = 0;  ///< size of the copied buffer
    int threads = 1;        ///< host threads that copied (1 on the GPU: one copy engine call)
};

/// Copies a `bytes`-sized buffer repeatedly and reports (read + written bytes) / median time.
/// On CUDA a device-to-device copy; on the host a parallel memcpy over the executor's
/// OpenMP threads (one thread for the reference executor). Pick `bytes` well beyond the last
/// level cache.
CopyBandwidth measure_copy_bandwidth(const std::shared_ptr<const Executor>& exec,
                                     std::size_t bytes = std::size_t{1} << 30);

}  // namespace loom::bench
