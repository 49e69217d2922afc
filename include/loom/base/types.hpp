// Scalar, index and size types shared by every layer.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

/// Sizes and counts: signed, so that differences and reverse loops are safe.
using size_type = std::int64_t;
using int32 = std::int32_t;
using int64 = std::int64_t;

/// Rows and columns of a matrix or operator.
struct dim2 {
    size_type rows = 0;
    size_type cols = 0;
    constexpr bool operator==(const dim2&) const = default;
    constexpr size_type count() const { return rows * cols; }
    constexpr dim2 transposed() const { return {cols, rows}; }
};

template <typename T>
struct is_complex : std::false_type {};
template <typename T>
struct is_complex<std::complex<T>> : std::true_type {};
template <typename T>
inline constexpr bool is_complex_v = is_complex<T>::value;

/// The real type underlying a value type (double for complex<double>).
template <typename T>
struct remove_complex { using type = T; };
template <typename T>
struct remove_complex<std::complex<T>> { using type = T; };
template <typename T>
using remove_complex_t = typename remove_complex<T>::type;

/// conj that stays real for real types (std::conj would return a complex).
template <typename T>
constexpr T conj(const T& x)
{
    if constexpr (is_complex_v<T>) {
        return std::conj(x);
    } else {
        return x;
    }
}

/// |x|^2 without the square root, real-typed.
template <typename T>
constexpr remove_complex_t<T> squared_norm(const T& x)
{
    if constexpr (is_complex_v<T>) {
        return std::norm(x);
    } else {
        return x * x;
    }
}

/// Short printable name of a value or index type ("double", "complex<float>", "int32").
template <typename T>
constexpr const char* type_name()
{
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, std::complex<float>>) return "complex<float>";
    else if constexpr (std::is_same_v<T, std::complex<double>>) return "complex<double>";
    else if constexpr (std::is_same_v<T, int32>) return "int32";
    else if constexpr (std::is_same_v<T, int64>) return "int64";
    else return "unknown";
}

}  // namespace loom

LOOM_PUBLIC_END
