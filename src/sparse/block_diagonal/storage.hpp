// How inverted blocks are stored, shared by the host backends and CUDA: the IEEE binary16
// conversions (loom::half's, which round to nearest even on every backend), reading one entry
// of a block in any storage format, and the layout arithmetic.
#pragma once

#include <cmath>
#include <cstdint>

#include "loom/base/half.hpp"
#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"
#include "loom/sparse/block_diagonal.hpp"

namespace loom::sparse::block_storage {

/// The code for a block whose inverse came out infinite or NaN, in place of the failing
/// elimination step: failure codes are block * failure_radix + step.
inline constexpr std::int64_t failure_radix = 64;
inline constexpr std::int64_t non_finite_step = failure_radix - 1;
inline constexpr std::int64_t no_failure = INT64_MAX;

/// The binary16 nearest to value (ties to even), as bits; and the exact value of such bits.
/// One copy of the conversions: loom::half's (loom/base/half.hpp).
LOOM_HOST_DEVICE inline std::uint16_t to_half(float value)
{
    return loom::detail::half_bits_of(value);
}
LOOM_HOST_DEVICE inline float from_half(std::uint16_t half)
{
    return loom::detail::float_of_half(half);
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
