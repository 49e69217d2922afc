// Per-backend entry points of the precision conversions (include/loom/matrix/precision.hpp),
// and the rounding of one value they all share. precision.cpp allocates and dispatches.
#pragma once

#include "base/instantiate_storage.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/half.hpp"
#include "loom/launch/macros.hpp"

namespace loom::matrix {
namespace precision {

/// d rounded to float toward zero, its last bit set when inexact ("round to odd"): rounding
/// that to 16 bits (which keep 14 bits fewer) is then the correct rounding of d itself,
/// where d -> float -> 16 bits would round twice and miss ties by an ulp.
LOOM_HOST_DEVICE inline float rounded_to_odd(double d)
{
    const float f = static_cast<float>(d);
    const double back = f;
    if (back == d || !(d - d == 0.0)) return f;  // exact, NaN or Inf
    std::uint32_t bits = loom::detail::bits_of(f);
    const bool away_from_zero = d < 0 ? back < d : back > d;  // Inf included
    if (away_from_zero) --bits;
    return loom::detail::float_of(bits | 1u);
}

/// x as a To: 16-bit targets round to nearest even, wider ones are exact.
template <typename To, typename From>
LOOM_HOST_DEVICE LOOM_INLINE To converted(From x)
{
    if constexpr (std::is_same_v<To, From>) {
        return x;
    } else if constexpr (is_storage_only_v<To> && std::is_same_v<From, double>) {
        return To(rounded_to_odd(x));
    } else if constexpr (is_storage_only_v<To>) {
        return To(static_cast<float>(x));
    } else {
        return static_cast<To>(static_cast<float>(x));
    }
}

}  // namespace precision

#define LOOM_INSTANTIATE_PRECISION_KERNELS(Exec, To, From)                                       \
    template void convert_values(const Exec&, size_type, size_type, const From*, size_type, To*, \
                                 size_type)

namespace reference {
/// out(i, j) = in(i, j) converted, for a rows x cols block of each with its own stride.
template <typename To, typename From>
void convert_values(const ReferenceExecutor& exec, size_type rows, size_type cols, const From* in,
                    size_type in_stride, To* out, size_type out_stride);
}  // namespace reference

/// The same for OpenMP and CUDA, written once (unified.hpp; omp.cpp and cuda.cu instantiate
/// it for their executor).
namespace unified {
template <typename Exec, typename To, typename From>
void convert_values(const Exec& exec, size_type rows, size_type cols, const From* in,
                    size_type in_stride, To* out, size_type out_stride);
}  // namespace unified
namespace omp {
using unified::convert_values;
}
namespace cuda {
using unified::convert_values;
}

}  // namespace loom::matrix

/// M(To, From) for every conversion pair: both directions between each built real type and
/// each storage type, and each storage type to itself (Dense's strided copy).
#define LOOM_PRECISION_PAIRS_WITH_(M, V) \
    M(::loom::half, V) M(V, ::loom::half) M(::loom::bfloat16, V) M(V, ::loom::bfloat16)
// clang-format off
#define LOOM_FOR_EACH_PRECISION_PAIR(M)                                    \
    LOOM_EXPAND_IF(LOOM_HAS_FLOAT)(LOOM_PRECISION_PAIRS_WITH_(M, float))   \
    LOOM_EXPAND_IF(LOOM_HAS_DOUBLE)(LOOM_PRECISION_PAIRS_WITH_(M, double)) \
    M(::loom::half, ::loom::half) M(::loom::bfloat16, ::loom::bfloat16)
// clang-format on
