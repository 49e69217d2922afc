// How inverted blocks are stored, shared by the host backends and CUDA: the IEEE binary16
// conversions (written out so that every backend rounds bit-identically), reading one entry
// of a block in any storage format, and the layout arithmetic.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "loom/base/types.hpp"
#include "loom/sparse/block_diagonal.hpp"

#include "loom/launch/macros.hpp"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace loom::sparse::block_storage {

/// The code for a block whose inverse came out infinite or NaN, in place of the failing
/// elimination step: failure codes are block * failure_radix + step.
inline constexpr std::int64_t failure_radix = 64;
inline constexpr std::int64_t non_finite_step = failure_radix - 1;
inline constexpr std::int64_t no_failure = INT64_MAX;

LOOM_HOST_DEVICE inline std::uint32_t bits_of(float value)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(value);
#else
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
#endif
}

LOOM_HOST_DEVICE inline float float_of(std::uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
#endif
}

/// The binary16 nearest to value (ties to even), as bits.
LOOM_HOST_DEVICE inline std::uint16_t to_half(float value)
{
    constexpr std::uint32_t float_infinity = 0x7f800000u;
    constexpr std::uint32_t half_infinity = 0x7c00u;
    constexpr std::uint32_t half_quiet_nan = 0x7e00u;
    constexpr std::uint32_t overflows = 0x477ff000u;    // 65520: rounds to 2^16, past the max
    constexpr std::uint32_t smallest_normal = 0x38800000u;  // 2^-14
    constexpr std::uint32_t exponent_rebias = (127u - 15u) << 23;
    const std::uint32_t bits = bits_of(value);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    std::uint32_t half = 0;
    if (magnitude >= float_infinity) {
        half = magnitude > float_infinity ? half_quiet_nan : half_infinity;
    } else if (magnitude >= overflows) {
        half = half_infinity;
    } else if (magnitude < smallest_normal) {
        // Subnormal half: adding 0.5 leaves the value's count of 2^-24 steps (the half
        // subnormal unit, one ulp of 0.5) in the low mantissa bits, rounded to nearest even.
        half = bits_of(float_of(magnitude) + 0.5f) - bits_of(0.5f);
    } else {
        // Normal half: rebias the exponent and round away the 13 low mantissa bits to
        // nearest even (a carry into the exponent is the correct rounding up).
        const std::uint32_t odd = (magnitude >> 13) & 1u;
        half = (magnitude - exponent_rebias + 0x0fffu + odd) >> 13;
    }
    return static_cast<std::uint16_t>(sign | half);
}

/// The value of binary16 bits (exact).
LOOM_HOST_DEVICE inline float from_half(std::uint16_t half)
{
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(half));
#else
    const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
    const std::uint32_t magnitude = static_cast<std::uint32_t>(half & 0x7fffu) << 13;
    float value;
    if (magnitude >= (0x7c00u << 13)) {
        value = float_of(magnitude | 0x7f800000u);  // infinity or NaN
    } else {
        // Shifted into place the bits read as 2^-112 times the value, subnormals included.
        value = float_of(magnitude) * 0x1p112f;
    }
    return float_of(bits_of(value) | sign);
#endif
}

/// The real format of each precision: double, float and binary16 bits.
template <StoragePrecision P>
struct format;
template <>
struct format<StoragePrecision::float64> { using type = double; };
template <>
struct format<StoragePrecision::float32> { using type = float; };
template <>
struct format<StoragePrecision::float16> { using type = std::uint16_t; };
template <StoragePrecision P>
using format_t = typename format<P>::type;

/// One stored real as R.
template <typename R>
LOOM_HOST_DEVICE inline R load_real(double stored) { return static_cast<R>(stored); }
template <typename R>
LOOM_HOST_DEVICE inline R load_real(float stored) { return static_cast<R>(stored); }
template <typename R>
LOOM_HOST_DEVICE inline R load_real(std::uint16_t stored)
{
    return static_cast<R>(from_half(stored));
}

/// A real R stored in format S (rounded to nearest).
template <typename S, typename R>
LOOM_HOST_DEVICE inline S store_real(R value)
{
    if constexpr (sizeof(S) == 2) {
        return to_half(static_cast<float>(value));
    } else {
        return static_cast<S>(value);
    }
}

/// Bytes of one real in precision p (also the alignment a block stored in p needs).
constexpr std::int64_t real_bytes(StoragePrecision p)
{
    switch (p) {
    case StoragePrecision::float64: return 8;
    case StoragePrecision::float32: return 4;
    default: return 2;
    }
}

/// Bytes a block of V with `size` rows takes in precision p.
template <typename V>
constexpr std::int64_t block_bytes(std::int64_t size, StoragePrecision p)
{
    return size * size * (is_complex_v<V> ? 2 : 1) * real_bytes(p);
}

/// Where a block stored in precision p goes when `end` bytes are used: the next offset
/// aligned for its reals (blocks are packed; only a narrower block before a wider one pads).
constexpr std::int64_t aligned_offset(std::int64_t end, StoragePrecision p)
{
    const auto alignment = real_bytes(p);
    return (end + alignment - 1) / alignment * alignment;
}

}  // namespace loom::sparse::block_storage
