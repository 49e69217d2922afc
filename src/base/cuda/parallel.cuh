// Unified launchers, CUDA side (base/parallel.hpp): the bodies written once for OpenMP and
// CUDA run in the grid-stride loop of launch.cuh, one element per thread per step
// (parallel_reduce: parallel_reduce.cuh, apart for its CUB include).
#pragma once

#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/parallel.hpp"

namespace loom::detail {

template <typename T>
struct kernel_type<CudaExecutor, T> {
    using type = cuda::device_type_t<T>;
};

/// f(i, j) for the row-major index idx of a block of `cols` columns.
template <typename F>
struct RowMajorElement {
    long long cols;
    F f;
    __device__ void operator()(long long idx) const
    {
        if (cols == 1) {
            f(idx, 0);
        } else {
            f(idx / cols, idx % cols);
        }
    }
};

template <typename F>
void parallel_for(const CudaExecutor& exec, size_type n, F f, const char* where)
{
    cuda::parallel_for(exec, n, f, where);
}

template <typename F>
void parallel_for_uneven(const CudaExecutor& exec, size_type n, F f, const char* where)
{
    cuda::parallel_for(exec, n, f, where);
}

template <typename F>
void parallel_for(const CudaExecutor& exec, size_type rows, size_type cols, F f, const char* where)
{
    cuda::parallel_for(exec, rows * cols, RowMajorElement<F>{cols, f}, where);
}

}  // namespace loom::detail
