// The MIS-2 benchmark behind `loom bench mis2`: checks the set on the benchmarked backend
// against the reference backend's (they must be equal), then times MIS-2 in both modes and the
// aggregation, against the time of 30 CSR SpMVs on the same matrix (the target).
#pragma once

#include <nlohmann/json.hpp>

#include "bench/run_options.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::bench {

struct Mis2BenchOptions : RunOptions {
    /// The pattern is symmetric: MIS-2 skips symmetrizing it (Mis2Options::symmetric).
    bool symmetric = false;
};

/// Runs the benchmark for A (on any executor), prints the report on stdout and returns it as
/// JSON. NumericalError when the backend's set differs from the reference's.
template <typename V, typename I>
nlohmann::ordered_json bench_mis2(const matrix::Csr<V, I>& A, const Mis2BenchOptions& options);

}  // namespace loom::bench
