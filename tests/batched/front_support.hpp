// The fixture of the front-level batched tests (front_test, front_more_test): the names they
// use, the backends and launches they run (targets), the padded random batches they start
// from, and what they compare: whole stored batches (padding included) and their relative
// difference, against a tolerance that grows with the order. A test brings it all in with
// `using namespace loom::test::batched_front;`.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "loom/batched/front.hpp"
#include "loom/config.hpp"
#include "loom/matrix/batch_dense.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace loom::test::batched_front {

using loom::dim2;
using loom::int32;
using loom::size_type;
using loom::batched::Launch;
using loom::blas::Diag;
using loom::blas::Op;
using loom::blas::Side;
using loom::blas::Uplo;
using loom::matrix::BatchDense;

inline constexpr Op all_ops[] = {Op::none, Op::transpose, Op::conj_transpose};

/// A backend and launch compared with the reference.
struct Target {
    std::shared_ptr<const Executor> exec;
    Launch launch;
    std::string name() const { return exec->name() + "/" + batched::to_string(launch); }
};

/// Which launches beyond the four generic ones a routine has.
struct Capabilities {
    bool simd = true;          ///< has a pack version (no pivoting)
    bool cuda_vendor = false;  ///< cuBLAS batches it
    bool host_vendor = false;  ///< looped over the host BLAS
};

/// Every launch of every backend that the routine has; simd on the host for real values.
template <typename V>
std::vector<Target> targets(Capabilities c)
{
    std::vector<Target> result;
    for (const auto& exec : backends()) {
        for (auto launch : {Launch::automatic, Launch::serial, Launch::team, Launch::team_vector}) {
            result.push_back({exec, launch});
        }
        const bool cuda = exec->kind() == ExecKind::cuda;
        if (!cuda && c.simd && !is_complex_v<V>) result.push_back({exec, Launch::simd});
        if ((cuda && c.cuda_vendor) || (!cuda && c.host_vendor && LOOM_HAS_BLAS)) {
            result.push_back({exec, Launch::vendor});
        }
    }
    return result;
}

/// A random batch on the reference executor, padded between rows and between matrices, its
/// diagonal shifted by shift.
template <typename V>
BatchDense<V> random_batch(size_type count, dim2 size, std::uint64_t seed, double shift = 0)
{
    BatchDense<V> batch(reference(), count, size, size.cols + 1,
                        size.rows * (size.cols + 1) + 3);
    std::mt19937_64 rng(seed);
    auto& values = batch.values();
    for (size_type i = 0; i < values.size(); ++i) values[i] = random_value<V>(rng);
    for (size_type b = 0; b < count; ++b) {
        for (size_type i = 0; i < std::min(size.rows, size.cols); ++i) {
            batch.at(b, i, i) += V(static_cast<remove_complex_t<V>>(shift));
        }
    }
    return batch;
}

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
