// The 16-bit storage types (loom/base/half.hpp) in CUDA kernels and libraries: loads through
// the read-only cache (the overload of arithmetic.cuh's load_cached), and their cudaDataType
// beside helpers.cuh's cuda_data_type. Their conversions are host-and-device functions.
#pragma once

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "loom/base/half.hpp"

namespace loom::cuda {

/// *p through the read-only cache, as its 16 bits.
__device__ __forceinline__ half load_cached(const half* p)
{
    return half::from_bits(__ldg(reinterpret_cast<const unsigned short*>(p)));
}
__device__ __forceinline__ bfloat16 load_cached(const bfloat16* p)
{
    return bfloat16::from_bits(__ldg(reinterpret_cast<const unsigned short*>(p)));
}

/// cuda_data_type, with CUDA_R_16F and CUDA_R_16BF for the storage types.
template <typename V>
constexpr cudaDataType storage_data_type()
{
    if constexpr (std::is_same_v<V, half>) {
        return CUDA_R_16F;
    } else if constexpr (std::is_same_v<V, bfloat16>) {
        return CUDA_R_16BF;
    } else {
        return cuda_data_type<V>();
    }
}

}  // namespace loom::cuda
