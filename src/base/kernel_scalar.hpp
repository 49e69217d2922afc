// Scalar helpers for kernel bodies written once for every backend. The value type is the one
// a kernel body sees (std::complex on the host, thrust::complex on CUDA: base/parallel.hpp's
// kernel_type), so only real(), imag() and arithmetic are used.
#pragma once

#include <type_traits>

#include "loom/launch/macros.hpp"

namespace loom::detail {

/// conj(x), real for real types.
template <typename T>
LOOM_HOST_DEVICE T conjugate(const T& x)
{
    if constexpr (std::is_arithmetic_v<T>) {
        return x;
    } else {
        return T(x.real(), -x.imag());
    }
}

/// The real part, in double.
template <typename T>
LOOM_HOST_DEVICE double real_part(const T& x)
{
    if constexpr (std::is_arithmetic_v<T>) {
        return static_cast<double>(x);
    } else {
        return static_cast<double>(x.real());
    }
}

}  // namespace loom::detail
