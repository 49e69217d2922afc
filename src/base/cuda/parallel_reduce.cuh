// Unified launchers, CUDA side: parallel_reduce (base/parallel.hpp) on CUB's device-wide
// reduction over the body's values, read back to the host.
#pragma once

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_reduce.cuh>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/parallel.hpp"
#include "base/prefix_sum.hpp"

namespace loom::detail {

template <typename T, typename F, typename Op>
T parallel_reduce(const CudaExecutor& exec, size_type n, F f, T init, Op op, const char* where)
{
    if (n <= 0) return init;
    const auto in =
        thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), f);
    Array<T> result(exec.shared_from_this(), 1);
    cuda::run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Reduce(temp, bytes, in, result.data(), n, op, init,
                                         cuda::stream_of(exec));
    });
    return load_element(result, 0);
}

}  // namespace loom::detail
