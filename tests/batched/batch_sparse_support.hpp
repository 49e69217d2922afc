// Helpers of the batched sparse tests: random batches, the reference loop (single-matrix
// reference SpMV over the batch) and pooled vectors.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "loom/batched/sparse/hetero_batch.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmv.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace loom::test::bsparse {

/// The executors a batched call is compared on: the reference itself and every backend.
inline std::vector<std::shared_ptr<const Executor>> all_executors()
{
    auto list = backends();
    list.insert(list.begin(), reference());
    return list;
}

template <typename V>
std::vector<V> random_values(size_type count, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<V> values(static_cast<std::size_t>(count));
    for (auto& v : values) v = random_value<V>(rng);
    return values;
}

/// y = alpha A x + beta y by the single-matrix reference SpMV (the oracle).
template <typename V, typename I>
std::vector<V> reference_spmv(const matrix::Csr<V, I>& A, V alpha, const std::vector<V>& x,
                              V beta, const std::vector<V>& y)
{
    const auto ref = reference();
    const matrix::Csr<V, I> Ar(ref, A);
    auto xd = matrix::Dense<V>::from_host(ref, {A.cols(), 1}, x);
    auto yd = matrix::Dense<V>::from_host(ref, {A.rows(), 1}, y);
    sparse::spmv(sparse::Mode::none, alpha, Ar, xd, beta, yd);
    return yd.to_host();
}

/// Every matrix of the heterogeneous-batch tests: awkward sizes, empty rows, a dense row, a
/// very long row, a matrix of 0 and one of 1 row, rectangles.
template <typename V, typename I>
std::vector<matrix::Csr<V, I>> mixed_matrices(std::shared_ptr<const Executor> exec)
{
    std::vector<matrix::Csr<V, I>> list;
    std::uint64_t seed = 11;
    auto add = [&](size_type rows, size_type cols, double per_row, bool dense_row) {
        list.push_back(random_csr<V, I>(exec, {rows, cols, per_row, dense_row, true, false, seed++}));
    };
    add(0, 0, 1, false);
    add(1, 1, 1, false);
    add(1, 40, 8, false);
    add(33, 33, 4, true);
    add(31, 50, 0.3, false);  // mostly empty rows
    add(64, 64, 7, false);
    add(20, 3000, 1, true);   // one very long row
    add(100, 100, 12, false);
    add(7, 0, 1, false);
    add(257, 257, 3, true);
    return list;
}

}  // namespace loom::test::bsparse
