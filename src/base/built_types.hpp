// Whether a value type is among the built ones (LOOM_VALUE_TYPES): the kernels of an
// unbuilt type do not link, so code that uses one sits in an `if constexpr` on this.
#pragma once

#include <complex>
#include <type_traits>

#include "loom/config.hpp"

namespace loom::detail {

template <typename V>
constexpr bool is_built_value_type()
{
    if constexpr (std::is_same_v<V, float>) return LOOM_HAS_FLOAT;
    if constexpr (std::is_same_v<V, double>) return LOOM_HAS_DOUBLE;
    if constexpr (std::is_same_v<V, std::complex<float>>) return LOOM_HAS_COMPLEX_FLOAT_;
    if constexpr (std::is_same_v<V, std::complex<double>>) return LOOM_HAS_COMPLEX_DOUBLE_;
    return false;
}

}  // namespace loom::detail
