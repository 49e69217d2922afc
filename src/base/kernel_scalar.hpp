// Scalar helpers for kernel bodies written once for every backend. The value type is the one
// a kernel body sees (std::complex on the host, thrust::complex on CUDA: base/parallel.hpp's
// kernel_type), so only real(), imag() and arithmetic are used.
#pragma once

#include <cmath>
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

/// |re| + |im| (LAPACK's cabs1), in the real type: the pivot measure of partial pivoting,
/// cheaper than |z|, and |x| for real values. Each part is rounded to the real type before
/// the sum, so float gives the same bits on the host and the device.
template <typename T>
LOOM_HOST_DEVICE auto abs1(const T& x)
{
    if constexpr (std::is_arithmetic_v<T>) {
        return static_cast<T>(::fabs(x));
    } else {
        using R = std::remove_cv_t<decltype(x.real())>;
        return static_cast<R>(::fabs(x.real())) + static_cast<R>(::fabs(x.imag()));
    }
}

}  // namespace loom::detail
