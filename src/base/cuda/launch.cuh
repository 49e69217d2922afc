// Launch shapes for every CUDA family, and the unified launcher's grid-stride loop running a
// device lambda over [0, n). grid_for sizes the grid of a kernel that loops (grid-stride) over
// its work; exact_grid the grid of one that does not. Used by the kernels of base, blas,
// lapack, batched, convert, csr_utils, spmv, spmv_stencil, spgemm, spadd and block_diagonal.
#pragma once

#include <algorithm>
#include <string>

#include "base/cuda/helpers.cuh"

namespace loom::cuda {

constexpr int default_block_size = 256;
/// The largest grid.x a launch may ask for.
constexpr long long max_grid_blocks = 0x7fffffffLL;

/// Blocks for `items` work items, `per_block` of them a block: at least one (a launch over no
/// work stays valid), at most max_blocks; the kernel loops over what the grid does not cover.
/// 64-bit counts throughout, so no item count overflows before the cap.
inline unsigned grid_for(long long items, long long per_block,
                         long long max_blocks = max_grid_blocks)
{
    const long long cap = std::max(1LL, std::min(max_blocks, max_grid_blocks));
    return static_cast<unsigned>(std::clamp(ceildiv(items, per_block), 1LL, cap));
}

/// grid_for capped at `blocks_per_sm` blocks per multiprocessor of exec's device: enough to
/// fill the device, and few enough that a large n costs no block scheduling.
inline unsigned grid_for(const CudaExecutor& exec, long long items, long long per_block,
                         int blocks_per_sm)
{
    return grid_for(items, per_block,
                    static_cast<long long>(exec.multiprocessor_count()) * blocks_per_sm);
}

/// Blocks for a kernel that takes exactly one block per `per_block` items (no grid-stride
/// loop); too many for one launch is a NotSupported error of `where`.
inline unsigned exact_grid(long long items, long long per_block, const char* where)
{
    const long long blocks = ceildiv(items, per_block);
    if (blocks > max_grid_blocks) {
        throw NotSupported(where, "too many blocks for one launch: " + std::to_string(blocks));
    }
    return static_cast<unsigned>(blocks);
}

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
    parallel_for_kernel<<<grid_for(exec, n, default_block_size, 32), default_block_size, 0,
                          stream_of(exec)>>>(n, f);
    check_launch(where);
}

}  // namespace loom::cuda
