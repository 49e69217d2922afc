// Random inputs with awkward shapes for comparing backends against the reference.
#pragma once

#include <complex>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/types.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "support/executors.hpp"
#include "support/types.hpp"

namespace loom::test {

template <typename V>
V random_value(std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    if constexpr (is_complex_v<V>) {
        using R = remove_complex_t<V>;
        const R re = static_cast<R>(dist(rng));
        const R im = static_cast<R>(dist(rng));
        return V(re, im);
    } else {
        return static_cast<V>(dist(rng));
    }
}

/// Shape of a random sparse pattern.
struct PatternSpec {
    size_type rows = 0;
    size_type cols = 0;
    double avg_per_row = 4;      ///< mean entries per row (Poisson-ish, many rows empty)
    bool dense_row = false;      ///< one row holding every column
    bool sorted = true;          ///< columns sorted within rows
    bool duplicates = false;     ///< some (row, col) pairs appear twice
    std::uint64_t seed = 42;
};

/// Host triplets (row, col, value) following spec: rows with 0 entries included.
template <typename V, typename I>
struct Triplets {
    dim2 size;
    std::vector<I> rows, cols;
    std::vector<V> values;
};

template <typename V, typename I>
Triplets<V, I> random_triplets(const PatternSpec& spec)
{
    std::mt19937_64 rng(spec.seed);
    Triplets<V, I> t{{spec.rows, spec.cols}, {}, {}, {}};
    if (spec.cols == 0) return t;
    std::poisson_distribution<int> count(spec.avg_per_row);
    std::uniform_int_distribution<size_type> col(0, spec.cols - 1);
    const size_type dense_at = spec.rows / 2;
    for (size_type r = 0; r < spec.rows; ++r) {
        std::vector<I> row_cols;
        if (spec.dense_row && r == dense_at) {
            for (size_type c = 0; c < spec.cols; ++c) row_cols.push_back(static_cast<I>(c));
        } else {
            const int n = std::min<size_type>(count(rng), spec.cols);
            std::vector<char> used(spec.cols, 0);
            while (static_cast<int>(row_cols.size()) < n) {
                const auto c = col(rng);
                if (!used[c]) {
                    used[c] = 1;
                    row_cols.push_back(static_cast<I>(c));
                }
            }
            if (spec.sorted) std::sort(row_cols.begin(), row_cols.end());
        }
        if (spec.duplicates && !row_cols.empty() && rng() % 3 == 0) {
            row_cols.push_back(row_cols.front());
        }
        for (auto c : row_cols) {
            t.rows.push_back(static_cast<I>(r));
            t.cols.push_back(c);
            t.values.push_back(random_value<V>(rng));
        }
    }
    return t;
}

/// A random CSR matrix on exec following spec.
template <typename V, typename I>
matrix::Csr<V, I> random_csr(std::shared_ptr<const Executor> exec, const PatternSpec& spec)
{
    const auto t = random_triplets<V, I>(spec);
    std::vector<I> ptrs(spec.rows + 1, 0);
    for (auto r : t.rows) ++ptrs[r + 1];
    for (size_type r = 0; r < spec.rows; ++r) ptrs[r + 1] += ptrs[r];
    return matrix::Csr<V, I>::from_host(std::move(exec), t.size, ptrs, t.cols, t.values);
}

/// A random dense matrix on exec.
template <typename V>
matrix::Dense<V> random_dense(std::shared_ptr<const Executor> exec, dim2 size,
                              std::uint64_t seed = 7, size_type stride = 0)
{
    std::mt19937_64 rng(seed);
    stride = stride == 0 ? size.cols : stride;
    std::vector<V> span(static_cast<std::size_t>(matrix::dense_span(size, stride)));
    for (auto& v : span) v = random_value<V>(rng);
    matrix::Dense<V> d(exec, size, stride);
    d.values() = Array<V>(exec, span);
    return d;
}

/// The sizes every kernel test walks through.
inline std::vector<size_type> awkward_sizes() { return {0, 1, 2, 31, 32, 33, 100, 1000}; }

/// The size of a random sparse matrix and its mean entries per row.
struct Shape {
    size_type rows = 0;
    size_type cols = 0;
    double per_row = 4;
};

/// The shapes the sparse comparison tests walk: awkward squares (4 per row), rectangles both
/// ways, a single row, a single column, no rows, no columns.
inline std::vector<Shape> awkward_shapes()
{
    std::vector<Shape> shapes;
    for (const auto n : awkward_sizes()) shapes.push_back({n, n, 4});
    shapes.insert(shapes.end(),
                  {{31, 100, 3}, {100, 31, 3}, {1, 33, 8}, {33, 1, 0.5}, {0, 7, 1}, {7, 0, 1}});
    return shapes;
}

/// A spec per shape, seeds counting up from first_seed; vary(i, spec) sets the flags of the
/// i-th (each test mixes dense rows, unsorted rows and duplicates in its own way).
template <typename Vary>
std::vector<PatternSpec> specs_of(const std::vector<Shape>& shapes, std::uint64_t first_seed,
                                  Vary vary)
{
    std::vector<PatternSpec> specs;
    for (const auto& shape : shapes) {
        PatternSpec spec{shape.rows, shape.cols, shape.per_row};
        spec.seed = first_seed + specs.size();
        vary(specs.size(), spec);
        specs.push_back(spec);
    }
    return specs;
}

/// Row-major dense values of A (on any executor), duplicates summed.
template <typename V, typename I>
std::vector<V> dense_of(const matrix::Csr<V, I>& A)
{
    return matrix::to_dense(matrix::Csr<V, I>(reference(), A)).to_host();
}

/// Max |a - b| / max(1, max |b|) over all entries.
template <typename V>
double relative_error(const std::vector<V>& a, const std::vector<V>& b)
{
    double diff = 0, scale = 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, static_cast<double>(std::abs(a[i] - b[i])));
        scale = std::max(scale, static_cast<double>(std::abs(b[i])));
    }
    return diff / scale;
}

#define LOOM_EXPECT_NEAR_VECTORS(actual, expected, tol)                        \
    do {                                                                       \
        const auto& loom_a_ = (actual);                                        \
        const auto& loom_e_ = (expected);                                      \
        ASSERT_EQ(loom_a_.size(), loom_e_.size());                             \
        EXPECT_LE(::loom::test::relative_error(loom_a_, loom_e_), (tol));      \
    } while (0)

}  // namespace loom::test
