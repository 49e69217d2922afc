// The algebraic multigrid benchmark behind `loom bench amg`: solves A x = b (b = ones) to a
// relative residual with AMG-preconditioned CG and with Jacobi-CG, checks both answers by
// their true residual first, then reports setup, numeric re-setup and solve times, iterations
// and the hierarchy's complexities.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/matrix/csr.hpp"

namespace loom::bench {

struct AmgBenchOptions {
    std::shared_ptr<const Executor> exec;
    int samples = 5;
    std::string name;
    double tolerance = 1e-8;
    size_type max_iterations = 10000;
    /// A's pattern is symmetric (the aggregation skips symmetrizing it).
    bool symmetric = false;
};

/// Runs the benchmark for a square A (on any executor), prints the report on stdout and
/// returns it as JSON. NumericalError when a solve misses the tolerance (true residual).
template <typename V, typename I>
nlohmann::ordered_json bench_amg(const matrix::Csr<V, I>& A, const AmgBenchOptions& options);

}  // namespace loom::bench
