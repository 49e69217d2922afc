// The algebraic multigrid benchmark behind `loom bench amg`: solves A x = b (b = ones) to a
// relative residual with AMG-preconditioned CG and with Jacobi-CG, checks both answers by
// their true residual first, then reports setup, numeric re-setup and solve times, iterations
// and the hierarchy's complexities. With nodal coordinates (elasticity), AMG takes the
// rigid-body modes and aggregates nodes; the scalar AMG (constant vector) runs beside it.
#pragma once

#include <nlohmann/json.hpp>

#include "bench/run_options.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/solver/multigrid.hpp"

namespace loom::bench {

struct AmgBenchOptions : RunOptions {
    double tolerance = 1e-8;
    size_type max_iterations = 10000;
    /// A's pattern is symmetric (the aggregation skips symmetrizing it).
    bool symmetric = false;
    solver::MultigridAggregation aggregation = solver::MultigridAggregation::mis2;
    int pairwise_passes = 2;
    /// false: plain aggregation (P = P_tent).
    bool smoothing = true;
};

/// Runs the benchmark for a square A (on any executor; its coordinates, when it has them,
/// give the rigid-body modes), prints the report on stdout and returns it as JSON.
/// NumericalError when a solve misses the tolerance (true residual).
template <typename V, typename I>
nlohmann::ordered_json bench_amg(const matrix::GeneratedProblem<V, I>& problem,
                                 const AmgBenchOptions& options);

}  // namespace loom::bench
