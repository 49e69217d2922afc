// The precision in which values are stored compressed (CB-GMRES's basis).
#pragma once

#include <complex>

namespace loom {

/// The next lower precision that every build has, for values stored compressed: float for
/// double, complex<float> for complex<double>; float types are their own (no half type).
template <typename T>
struct lower_precision { using type = T; };
template <>
struct lower_precision<double> { using type = float; };
template <>
struct lower_precision<std::complex<double>> { using type = std::complex<float>; };
template <typename T>
using lower_precision_t = typename lower_precision<T>::type;

}  // namespace loom
