// Host-visible entry points of the CUDA memory layer (defined in executor.cu, or by the
// stub when CUDA is not compiled in).
#pragma once

#include <cstddef>

#include "loom/base/executor.hpp"

namespace loom::detail {

/// Copies between two executors of which at least one is a CUDA executor.
void cuda_copy(const Executor& dst_exec, const Executor& src_exec, std::size_t bytes,
               const void* src, void* dst);

}  // namespace loom::detail
