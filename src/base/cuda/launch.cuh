// Unified launchers, CUDA side: a grid-stride loop running a device lambda over [0, n).
#pragma once

#include "base/cuda/helpers.cuh"

namespace loom::cuda {

constexpr int default_block_size = 256;

template <typename F>
__global__ void __launch_bounds__(default_block_size) parallel_for_kernel(long long n, F f)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        f(i);
    }
}

/// f(i) for i in [0, n) on the executor's stream; f must be a __device__ lambda.
template <typename F>
void parallel_for(const CudaExecutor& exec, long long n, F f, const char* where = "loom::cuda::parallel_for")
{
    if (n <= 0) return;
    const long long max_blocks = static_cast<long long>(exec.multiprocessor_count()) * 32;
    const long long blocks = std::min(ceildiv(n, default_block_size), max_blocks);
    parallel_for_kernel<<<static_cast<unsigned>(blocks), default_block_size, 0, stream_of(exec)>>>(n, f);
    check_launch(where);
}

}  // namespace loom::cuda
