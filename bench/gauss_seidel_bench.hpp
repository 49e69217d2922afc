// The Gauss-Seidel benchmark behind `loom bench gs`: checks one symmetric sweep on the
// benchmarked backend against the reference backend run in the same colored order, then times
// a forward sweep against a CSR SpMV (the target: at most 1.5 SpMVs) and counts CG
// iterations with symmetric Gauss-Seidel against CG with Jacobi (target: fewer than half).
#pragma once

#include <nlohmann/json.hpp>

#include "bench/run_options.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::bench {

struct GaussSeidelBenchOptions : RunOptions {
    /// Also count the CG iterations (1e-8, at most 5000) of both preconditioners.
    bool solve = true;
};

/// Runs the benchmark for a square A (on any executor), prints the report on stdout and
/// returns it as JSON. NumericalError when the backend's sweep differs from the reference's.
template <typename V, typename I>
nlohmann::ordered_json bench_gauss_seidel(const matrix::Csr<V, I>& A,
                                          const GaussSeidelBenchOptions& options);

}  // namespace loom::bench
