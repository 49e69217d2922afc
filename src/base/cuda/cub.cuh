// CUB's two-call convention (size the temporary storage, then run) in one call.
#pragma once

#include <algorithm>
#include <cstddef>

#include "base/cuda/helpers.cuh"
#include "loom/base/array.hpp"

namespace loom::cuda {

/// Runs a CUB algorithm twice, first to size its temporary storage, which lives in a loom
/// array on the executor and is released in stream order. call(temp, bytes) returns the
/// cudaError_t of the CUB call.
template <typename Call>
void run_cub(const CudaExecutor& exec, const char* where, Call&& call)
{
    std::size_t bytes = 0;
    LOOM_CUDA_CHECK(call(nullptr, bytes), where);
    // Never a null pointer in the second call: CUB would take it for another size query.
    Array<char> temp(exec.shared_from_this(),
                     static_cast<size_type>(std::max<std::size_t>(bytes, 1)));
    LOOM_CUDA_CHECK(call(temp.data(), bytes), where);
}

}  // namespace loom::cuda
