// Host arithmetic for the OpenMP kernels.
#pragma once

#include "loom/base/types.hpp"

namespace loom::omp {

/// a * b, for complex types without the C99 Annex G infinity recovery (a library call per
/// product in GCC's std::complex), which makes complex kernels several times slower.
template <typename V>
inline V mul(const V& a, const V& b)
{
    if constexpr (is_complex_v<V>) {
        return V(a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real());
    } else {
        return a * b;
    }
}

}  // namespace loom::omp
