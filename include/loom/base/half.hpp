// 16-bit storage types: loom::half (IEEE binary16) and loom::bfloat16 (the top half of a
// binary32). They store values; arithmetic happens in float (compute_type_t), so each
// converts implicitly to float and explicitly from it, rounding to nearest even, keeping NaN
// (quiet) and Inf, and overflowing to Inf. Both have the size, alignment and bit layout of
// CUDA's __half and __nv_bfloat16, so device code may reinterpret them; the conversions are
// host-and-device functions (the hardware cvt instructions inside CUDA kernels).
//
//     loom::half h{3.14159f};   float f = h;   // 3.140625
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "loom/launch/macros.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {
namespace detail {

LOOM_HOST_DEVICE LOOM_INLINE std::uint32_t bits_of(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
#endif
}

LOOM_HOST_DEVICE LOOM_INLINE float float_of(std::uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

/// binary32 -> binary16 bits, round to nearest even.
LOOM_HOST_DEVICE inline std::uint16_t half_bits_of(float f)
{
#if defined(__CUDA_ARCH__)
    std::uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    const std::uint32_t x = bits_of(f);
    const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    const std::uint32_t magnitude = x & 0x7fffffffu;
    if (magnitude > 0x7f800000u) {  // NaN: quiet, the top of the payload kept
        return static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    }
    if (magnitude >= 0x47800000u) return sign | 0x7c00u;  // 2^16 and above (and Inf): Inf
    if (magnitude < 0x38800000u) {
        // Below 2^-14: a subnormal half, an integer multiple of 2^-24. The scaling is exact
        // and rint rounds to nearest even; 1024 is the bit pattern of the smallest normal.
        const float scaled = float_of(magnitude) * 16777216.0f;
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::rint(scaled)));
    }
    std::uint32_t h = ((magnitude >> 23) - 112u) << 10 | ((magnitude >> 13) & 0x3ffu);
    const std::uint32_t rest = magnitude & 0x1fffu;
    // A carry out of the mantissa steps the exponent, up to Inf past 65504.
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
#endif
}

/// binary16 bits -> binary32 (exact).
LOOM_HOST_DEVICE inline float float_of_half(std::uint16_t h)
{
#if defined(__CUDA_ARCH__)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    // Branch-free, so that loops widening arrays vectorize: the exponent and mantissa bits
    // moved to float's places read as 2^-112 times the value (subnormals included, exactly),
    // and Inf / NaN get float's all-ones exponent.
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t magnitude = static_cast<std::uint32_t>(h & 0x7fffu) << 13;
    const std::uint32_t finite = bits_of(float_of(magnitude) * 0x1p112f);
    const std::uint32_t special = magnitude | 0x7f800000u;
    return float_of(sign | (magnitude >= (0x7c00u << 13) ? special : finite));
#endif
}

/// binary32 -> bfloat16 bits, round to nearest even.
LOOM_HOST_DEVICE inline std::uint16_t bfloat16_bits_of(float f)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    std::uint16_t b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return b;
#else
    const std::uint32_t x = bits_of(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: quiet, the top of the payload kept
        return static_cast<std::uint16_t>((x >> 16) | 0x0040u);
    }
    // Adding just under half an ulp (plus one when the kept part is odd) rounds to nearest
    // even; a carry steps the exponent, up to Inf.
    return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
#endif
}

}  // namespace detail

/// IEEE 754 binary16: 1 sign bit, 5 exponent bits, 10 mantissa bits (max 65504).
struct half {
    std::uint16_t bits;

    half() = default;
    LOOM_HOST_DEVICE explicit half(float value) : bits(detail::half_bits_of(value)) {}
    LOOM_HOST_DEVICE operator float() const { return detail::float_of_half(bits); }
    LOOM_HOST_DEVICE static constexpr half from_bits(std::uint16_t b)
    {
        half h{};
        h.bits = b;
        return h;
    }
};

/// bfloat16: binary32's sign and 8 exponent bits, 7 mantissa bits.
struct bfloat16 {
    std::uint16_t bits;

    bfloat16() = default;
    LOOM_HOST_DEVICE explicit bfloat16(float value) : bits(detail::bfloat16_bits_of(value)) {}
    LOOM_HOST_DEVICE operator float() const
    {
        return detail::float_of(static_cast<std::uint32_t>(bits) << 16);
    }
    LOOM_HOST_DEVICE static constexpr bfloat16 from_bits(std::uint16_t b)
    {
        bfloat16 h{};
        h.bits = b;
        return h;
    }
};

static_assert(sizeof(half) == 2 && alignof(half) == 2 && std::is_trivially_copyable_v<half>);
static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2 &&
              std::is_trivially_copyable_v<bfloat16>);

/// A 16-bit storage type: values kept in it, computed with in float.
template <typename T>
inline constexpr bool is_storage_only_v =
    std::is_same_v<std::remove_cv_t<T>, half> || std::is_same_v<std::remove_cv_t<T>, bfloat16>;

/// The type arithmetic on values of T happens in (and scalars such as alpha are given in):
/// float for the 16-bit storage types, T itself otherwise.
template <typename T>
struct compute_type {
    using type = T;
};
template <>
struct compute_type<half> {
    using type = float;
};
template <>
struct compute_type<bfloat16> {
    using type = float;
};
template <typename T>
using compute_type_t = typename compute_type<T>::type;

/// Machine epsilon of the storage: 2^-10 for half, 2^-7 for bfloat16.
template <typename T>
constexpr double storage_epsilon()
{
    if constexpr (std::is_same_v<T, half>) {
        return 1.0 / 1024;
    } else if constexpr (std::is_same_v<T, bfloat16>) {
        return 1.0 / 128;
    } else {
        return static_cast<double>(std::numeric_limits<T>::epsilon());
    }
}

}  // namespace loom

LOOM_PUBLIC_END
