// The start vectors of spectral estimates (Chebyshev's Lanczos steps, multigrid's power
// iteration): a fixed pseudo-random sequence, so that runs repeat, with every frequency in it.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/types.hpp"

namespace loom::solver::detail {

/// n values in [low, low + width), the same sequence at every call (a 64-bit LCG).
template <typename V>
std::vector<V> pseudo_random_values(size_type n, double low, double width)
{
    std::vector<V> values(static_cast<std::size_t>(n));
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    for (auto& v : values) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<V>(low + width * (static_cast<double>(state >> 11) * 0x1p-53));
    }
    return values;
}

}  // namespace loom::solver::detail
