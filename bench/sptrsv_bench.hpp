// The SpTRSV benchmark behind `loom bench sptrsv`: checks every algorithm that runs on the
// executor against the reference backend, then times its analysis, its value update and its
// solve, with cuSPARSE SpSV (analysis, updateMatrix, solve) as one of the algorithms on CUDA.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/matrix/csr.hpp"
#include "loom/sparse/sptrsv.hpp"

namespace loom::bench {

/// How the bytes of one solve are counted, for help texts and reports: T's values, columns
/// and row pointers read once, b read and x written once.
inline constexpr const char* sptrsv_bytes_formula = "nnz*(|V|+|I|) + (n+1)*|I| + 2*n*k*|V|";

struct SptrsvBenchOptions {
    std::shared_ptr<const Executor> exec;
    int samples = 20;
    std::string matrix_name;
    /// Triangle, diagonal and op; the algorithm field is not used (every one is timed).
    sparse::SptrsvOptions solve;
    /// Size of the copy that measures the bandwidth; 0 picks 512 MiB on the host, 1 GiB on
    /// a GPU.
    std::size_t copy_bytes = 0;
    /// The algorithms timed; empty: every one that runs on the executor.
    std::vector<sparse::SptrsvAlgorithm> algorithms;
};

/// Runs the benchmark for the triangular matrix T (on any executor), prints the report on
/// stdout and returns it as JSON. NumericalError when a result differs from the reference
/// beyond rounding.
template <typename V, typename I>
nlohmann::ordered_json bench_sptrsv(const matrix::Csr<V, I>& T, const SptrsvBenchOptions& options);

}  // namespace loom::bench
