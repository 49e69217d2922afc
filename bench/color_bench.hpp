// The coloring benchmark behind `loom bench color`: checks every algorithm's coloring, then
// times it, next to the sequential greedy (its colors are the quality yardstick; on the host
// it is also the peer) and, on CUDA at distance 1, cuSPARSE's csrcolor (ColoringAlgorithm::
// vendor) in the same run.
#pragma once

#include <nlohmann/json.hpp>

#include "bench/run_options.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::bench {

struct ColorBenchOptions : RunOptions {
    int distance = 1;
    /// Color A's rows (rows sharing a column differ) instead of A's graph.
    bool bipartite = false;
    /// Leave cuSPARSE's csrcolor out (it has crashed on some graphs: coloring NOTES.md).
    bool skip_vendor = false;
};

/// Runs the benchmark for A (on any executor; square unless bipartite), prints the report on
/// stdout and returns it as JSON. The graph is symmetrized once before timing, and every
/// algorithm is timed on the symmetric pattern (ColoringOptions::assume_symmetric), as
/// cuSPARSE needs one too. NumericalError when a coloring is invalid.
template <typename V, typename I>
nlohmann::ordered_json bench_color(const matrix::Csr<V, I>& A, const ColorBenchOptions& options);

}  // namespace loom::bench
