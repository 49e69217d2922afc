// What every CUDA kernel file needs: error checking, the executor's stream, device-side
// value types (std::complex is not usable in device code; thrust::complex has its layout).
#pragma once

#include <complex>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>
#include <thrust/complex.h>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/launch/row_search.hpp"

namespace loom::cuda {

inline void check(cudaError_t status, const char* what, const char* where)
{
    if (status != cudaSuccess) {
        throw CudaError(where, std::string(what) + " failed: " + cudaGetErrorName(status) +
                                   " (" + cudaGetErrorString(status) + ")");
    }
}

/// Checks the last launch on this thread (call right after <<<...>>>).
inline void check_launch(const char* where)
{
    check(cudaGetLastError(), "kernel launch", where);
}

inline cudaStream_t stream_of(const CudaExecutor& exec)
{
    return static_cast<cudaStream_t>(exec.stream());
}

template <typename T>
struct device_type { using type = T; };
template <typename T>
struct device_type<std::complex<T>> { using type = thrust::complex<T>; };
template <typename T>
struct device_type<const T> { using type = const typename device_type<T>::type; };
template <typename T>
using device_type_t = typename device_type<T>::type;

/// A Loom value type as the CUDA libraries name it (cuSPARSE, cuSOLVER generic APIs).
template <typename V>
constexpr cudaDataType cuda_data_type()
{
    if constexpr (std::is_same_v<V, float>)
        return CUDA_R_32F;
    else if constexpr (std::is_same_v<V, double>)
        return CUDA_R_64F;
    else if constexpr (std::is_same_v<V, std::complex<float>>)
        return CUDA_C_32F;
    else
        return CUDA_C_64F;
}

/// Reinterprets a host-typed pointer (std::complex) as its device-typed equivalent.
template <typename T>
device_type_t<T>* as_device(T* ptr)
{
    return reinterpret_cast<device_type_t<T>*>(ptr);
}
template <typename T>
device_type_t<T> as_device(const T& value)
{
    return device_type_t<T>(value);
}

template <typename T>
__host__ __device__ inline T conj_dev(const T& x)
{
    return x;
}
template <typename T>
__host__ __device__ inline thrust::complex<T> conj_dev(const thrust::complex<T>& x)
{
    return thrust::conj(x);
}

__host__ __device__ constexpr long long ceildiv(long long a, long long b) { return (a + b - 1) / b; }

using ::loom::row_of_entry;  // loom/launch/row_search.hpp

}  // namespace loom::cuda

#define LOOM_CUDA_CHECK(call, where) ::loom::cuda::check((call), #call, where)
