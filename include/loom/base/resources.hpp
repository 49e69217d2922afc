// Limits on the resources Loom asks for, and the error it raises when one runs out: the most
// threads an OpenMP executor takes, and OutOfMemory with the bytes needed and free.
#pragma once

#include <cstddef>
#include <string>

#include "loom/base/error.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

/// The most threads OmpExecutor::create accepts: far beyond any host's cores, far below the
/// counts that crash the OpenMP runtime (100000 did). The command line checks --threads
/// against it too.
inline constexpr int max_omp_threads = 1024;

/// An allocation larger than the free memory of its executor: says how many bytes it needed
/// and how many were free (on the device for CUDA, of the machine for the host).
class OutOfMemory : public AllocationError {
public:
    /// `memory` names where: "memory on cuda:0", "host memory".
    OutOfMemory(const std::string& where, const std::string& memory, std::size_t needed,
                std::size_t free);
    std::size_t needed_bytes() const noexcept { return needed_; }
    std::size_t free_bytes() const noexcept { return free_; }

private:
    std::size_t needed_;
    std::size_t free_;
};

/// "1.5 GB", "640 kB", "12 B": a byte count for messages.
std::string bytes_text(std::size_t bytes);

}  // namespace loom

LOOM_PUBLIC_END
