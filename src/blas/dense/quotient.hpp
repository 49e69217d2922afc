// The guarded quotient of axpy_quotient on the host backends (cuda.cu has its device twin).
#pragma once

#include <cmath>

#include "loom/base/types.hpp"

namespace loom::blas::detail {

/// num / den, or 0 where den is 0 or the quotient is not finite.
template <typename V>
V guarded_quotient(const V& num, const V& den)
{
    if (den == V{0}) return V{0};
    const V q = num / den;
    if constexpr (is_complex_v<V>) {
        return std::isfinite(q.real()) && std::isfinite(q.imag()) ? q : V{0};
    } else {
        return std::isfinite(q) ? q : V{0};
    }
}

}  // namespace loom::blas::detail
