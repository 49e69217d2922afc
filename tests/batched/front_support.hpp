// What the front-level batched tests compare: whole stored batches (padding included) and
// their relative difference, against a tolerance that grows with the order.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "loom/matrix/batch_dense.hpp"
#include "support/types.hpp"

namespace loom::test::batched_front {

/// Every stored value, padding included: a call may not touch the padding.
template <typename V>
std::vector<V> raw(const matrix::BatchDense<V>& batch)
{
    return batch.values().to_host();
}

/// Largest entry-wise difference relative to the largest expected entry (at least 1);
/// infinite for a NaN or a size that differs.
template <typename V>
double error_of(const std::vector<V>& actual, const std::vector<V>& expected)
{
    if (actual.size() != expected.size()) return std::numeric_limits<double>::infinity();
    double diff = 0, scale = 1;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double d = std::abs(actual[i] - expected[i]);
        if (std::isnan(d)) return std::numeric_limits<double>::infinity();
        diff = std::max(diff, d);
        scale = std::max(scale, static_cast<double>(std::abs(expected[i])));
    }
    return diff / scale;
}

template <typename V>
double tolerance(size_type n)
{
    return test::tolerance<V>() * std::max<double>(4, static_cast<double>(n));
}

}  // namespace loom::test::batched_front
