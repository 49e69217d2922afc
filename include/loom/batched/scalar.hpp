// Scalar arithmetic that compiles for every value type of the batched routines, on the host and
// in CUDA device code: float and double, complex numbers (std::complex on the host,
// thrust::complex or cuda::std::complex on the device — anything with real() and imag()), and
// SIMD packs (batched/simd.hpp adds their overloads). Routines call these instead of std::,
// which is neither device-callable nor defined for packs.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "loom/launch/macros.hpp"

namespace loom::batched {

/// A complex number type: not arithmetic, with real() and imag().
template <typename T>
concept ComplexLike = !std::is_arithmetic_v<T> && requires(const T& x) {
    x.real();
    x.imag();
};

template <typename T>
struct is_simd : std::false_type {};
template <typename T>
inline constexpr bool is_simd_v = is_simd<T>::value;

/// The real type behind a value type: double for complex<double>, the pack itself for a pack.
template <typename T>
struct real_type {
    using type = T;
};
template <ComplexLike T>
struct real_type<T> {
    using type = std::decay_t<decltype(std::declval<const T&>().real())>;
};
template <typename T>
using real_type_t = typename real_type<T>::type;

/// What routines with a failure code return: an int, or one int per lane for a pack.
template <typename T>
struct info_type {
    using type = int;
};
template <typename T>
using info_type_t = typename info_type<T>::type;

namespace math {

LOOM_HOST_DEVICE LOOM_INLINE float sqrt(float x) { return ::sqrtf(x); }
LOOM_HOST_DEVICE LOOM_INLINE double sqrt(double x) { return ::sqrt(x); }
LOOM_HOST_DEVICE LOOM_INLINE float abs(float x) { return ::fabsf(x); }
LOOM_HOST_DEVICE LOOM_INLINE double abs(double x) { return ::fabs(x); }
LOOM_HOST_DEVICE LOOM_INLINE float hypot(float x, float y) { return ::hypotf(x, y); }
LOOM_HOST_DEVICE LOOM_INLINE double hypot(double x, double y) { return ::hypot(x, y); }
/// |magnitude| with the sign of sign.
LOOM_HOST_DEVICE LOOM_INLINE float copysign(float magnitude, float sign)
{
    return ::copysignf(magnitude, sign);
}
LOOM_HOST_DEVICE LOOM_INLINE double copysign(double magnitude, double sign)
{
    return ::copysign(magnitude, sign);
}

template <typename T>
    requires std::is_arithmetic_v<T>
LOOM_HOST_DEVICE LOOM_INLINE T real(const T& x)
{
    return x;
}
template <typename T>
    requires std::is_arithmetic_v<T>
LOOM_HOST_DEVICE LOOM_INLINE T imag(const T&)
{
    return T(0);
}
template <typename T>
    requires std::is_arithmetic_v<T>
LOOM_HOST_DEVICE LOOM_INLINE T conj(const T& x)
{
    return x;
}
/// |x|²
template <typename T>
    requires std::is_arithmetic_v<T>
LOOM_HOST_DEVICE LOOM_INLINE T abs2(const T& x)
{
    return x * x;
}
/// |Re x| + |Im x|: the cheap magnitude LAPACK uses to choose pivots.
template <typename T>
    requires std::is_arithmetic_v<T>
LOOM_HOST_DEVICE LOOM_INLINE T abs1(const T& x)
{
    return math::abs(x);
}

template <ComplexLike T>
LOOM_HOST_DEVICE LOOM_INLINE real_type_t<T> real(const T& x)
{
    return x.real();
}
template <ComplexLike T>
LOOM_HOST_DEVICE LOOM_INLINE real_type_t<T> imag(const T& x)
{
    return x.imag();
}
template <ComplexLike T>
LOOM_HOST_DEVICE LOOM_INLINE T conj(const T& x)
{
    return T(x.real(), -x.imag());
}
template <ComplexLike T>
LOOM_HOST_DEVICE LOOM_INLINE real_type_t<T> abs(const T& x)
{
    return math::hypot(x.real(), x.imag());
}
template <ComplexLike T>
LOOM_HOST_DEVICE LOOM_INLINE real_type_t<T> abs2(const T& x)
{
    return x.real() * x.real() + x.imag() * x.imag();
}
template <ComplexLike T>
LOOM_HOST_DEVICE LOOM_INLINE real_type_t<T> abs1(const T& x)
{
    return math::abs(x.real()) + math::abs(x.imag());
}

/// x == 0 (a per-lane mask for packs).
template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE auto is_zero(const T& x)
{
    if constexpr (ComplexLike<T>) {
        return x.real() == real_type_t<T>(0) && x.imag() == real_type_t<T>(0);
    } else {
        return x == T(0);
    }
}

/// Scalar conditions: packs overload these with per-lane masks.
LOOM_HOST_DEVICE LOOM_INLINE bool any(bool condition) { return condition; }
LOOM_HOST_DEVICE LOOM_INLINE bool all(bool condition) { return condition; }
template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE T select(bool condition, const T& if_true, const T& if_false)
{
    return condition ? if_true : if_false;
}

/// Machine epsilon of the real type behind T.
template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE constexpr auto epsilon()
{
    using R = real_type_t<T>;
    if constexpr (is_simd_v<R>) {
        return std::numeric_limits<typename R::value_type>::epsilon();
    } else {
        return std::numeric_limits<R>::epsilon();
    }
}

}  // namespace math

/// Keeps the first failure: info becomes k + 1 (LAPACK's 1-based convention) where failed
/// holds and no earlier failure was recorded.
LOOM_HOST_DEVICE LOOM_INLINE void record_info(int& info, bool failed, int k)
{
    if (failed && info == 0) info = k + 1;
}

}  // namespace loom::batched
