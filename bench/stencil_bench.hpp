// The structured SpMV benchmark behind `loom bench spmv-stencil`: a Poisson stencil on a
// cube (square, line) of grid points, and the same matrix as CSR, both checked against the
// reference backend and timed in the same run: y = A x, Stencil against Loom's own CSR SpMV.
#pragma once

#include <cstddef>
#include <memory>

#include <nlohmann/json.hpp>

#include "loom/base/executor.hpp"

namespace loom::bench {

struct StencilBenchOptions {
    std::shared_ptr<const Executor> exec;
    /// Points along each direction of the box: grid^3 for 7 and 27 points, grid^2 for 5 and
    /// 9, grid for 3.
    size_type grid = 160;
    int points = 7;
    int samples = 50;
    /// Size of the copy that measures the bandwidth; 0 picks 512 MiB on the host, 1 GiB on
    /// a GPU.
    std::size_t copy_bytes = 0;
};

/// Runs the benchmark, prints the report on stdout and returns it as JSON. NumericalError
/// when a kernel's result differs from the reference beyond rounding.
template <typename V, typename I>
nlohmann::ordered_json bench_spmv_stencil(const StencilBenchOptions& options);

}  // namespace loom::bench
