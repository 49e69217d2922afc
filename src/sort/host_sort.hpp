// Host sorts shared by the reference and OpenMP backends.
#pragma once

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/sort/bitonic.hpp"
#include "sort/kernels.hpp"

namespace loom::sort::host {

/// The segment [offsets[s], offsets[s + 1]) through the serial bitonic network, the same
/// network a CUDA team runs.
template <typename K, typename T, typename I, typename Compare>
void sort_segment(const I* offsets, size_type s, K* keys, T* values, const Compare& comp)
{
    const auto begin = static_cast<long long>(offsets[s]);
    const auto length = static_cast<long long>(offsets[s + 1]) - begin;
    if (values == nullptr) {
        serial_sort(keys + begin, length, comp);
    } else {
        serial_sort_pairs(keys + begin, values + begin, length, comp);
    }
}

/// std::sort of keys; pairs through a sorted permutation (O(n log n), not stable).
template <typename K, typename T, typename Compare>
void sort_array(K* keys, T* values, size_type n, const Compare& comp)
{
    if (values == nullptr) {
        std::sort(keys, keys + n, comp);
        return;
    }
    if constexpr (!std::is_same_v<T, NoValues>) {
        std::vector<std::pair<K, T>> pairs(static_cast<std::size_t>(n));
        for (size_type i = 0; i < n; ++i) pairs[i] = {keys[i], values[i]};
        std::sort(pairs.begin(), pairs.end(),
                  [&](const auto& a, const auto& b) { return comp(a.first, b.first); });
        for (size_type i = 0; i < n; ++i) std::tie(keys[i], values[i]) = pairs[i];
    }
}

/// sort_segment and sort_array in `order`.
template <typename K, typename T, typename I>
void sort_segment(const I* offsets, size_type s, K* keys, T* values, Order order)
{
    with_comparator(order, [&](auto comp) { sort_segment(offsets, s, keys, values, comp); });
}
template <typename K, typename T>
void sort_array(K* keys, T* values, size_type n, Order order)
{
    with_comparator(order, [&](auto comp) { sort_array(keys, values, n, comp); });
}

}  // namespace loom::sort::host
