// The SpGEMM benchmark behind `loom bench spgemm`: C = A * A. Every kernel's result is first
// checked against the reference backend (all rows, or an evenly spread sample of rows when
// the reference would take too long), then the symbolic phase, the numeric phase and the
// whole product are timed; reported as time, GFLOP/s and the ratio to a peer library
// measured in the same run (cuSPARSE on CUDA, Eigen on the host).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/spmv_bench.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::bench {

/// How the flops of a product are counted, for help texts and reports.
inline constexpr const char* spgemm_flops_formula =
    "2 * multiply-adds (8 * for complex values) / time,\n"
    "            multiply-adds = sum over A's entries a_ik of the length of row k of B";

struct SpgemmBenchOptions {
    std::shared_ptr<const Executor> exec;
    Peer peer = Peer::none;
    int samples = 10;
    std::string matrix_name;
    bool sort_output = true;
    /// The oracle (the reference backend for host runs, Loom's OpenMP SpGEMM for CUDA runs)
    /// checks whole products up to this many multiply-adds; beyond, a sample of rows that
    /// stays near it: the longest rows that fit half of it and evenly spread stretches.
    size_type check_limit = 4'000'000;
    /// SpgemmOptions::reuse_memory_limit of Loom's handles.
    size_type reuse_memory_limit = size_type{8} << 30;
};

/// Runs the benchmark for A * A (A on any executor), prints the report on stdout and returns
/// it as JSON. NumericalError when a kernel's result differs from the reference.
template <typename V, typename I>
nlohmann::ordered_json bench_spgemm(const matrix::Csr<V, I>& A,
                                    const SpgemmBenchOptions& options);

}  // namespace loom::bench
