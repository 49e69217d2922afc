// Random benchmark inputs: one generator, so every benchmark given the same seed sees the
// same values.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "loom/base/types.hpp"

namespace loom::bench {

/// n values uniform in [-1, 1), both parts for a complex V; the same n and seed give the same
/// values.
template <typename V>
std::vector<V> random_values(size_type n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<remove_complex_t<V>> dist(-1, 1);
    std::vector<V> values(static_cast<std::size_t>(n));
    for (auto& v : values) {
        if constexpr (is_complex_v<V>) {
            // Two statements: the real part is drawn first on every compiler.
            const auto re = dist(rng);
            v = V(re, dist(rng));
        } else {
            v = dist(rng);
        }
    }
    return values;
}

}  // namespace loom::bench
