// What every benchmark driver is told besides its own options: where it runs, how many timed
// samples it takes and the name its report gives the matrix. The command line fills it from
// --exec, --reps and the matrix source (tools/loom/bench_support.hpp, BenchRun::options).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/timing.hpp"
#include "loom/base/executor.hpp"

namespace loom::bench {

struct RunOptions {
    std::shared_ptr<const Executor> exec;
    /// Timed samples; the median is reported.
    int samples = 10;
    std::string matrix_name;

    /// BadInput from `where` unless samples is at least one.
    void check(const char* where) const { check_repetitions(where, samples); }
    /// The timing of one kernel with these samples.
    TimingOptions timing() const
    {
        TimingOptions timing;
        timing.samples = samples;
        return timing;
    }
};

/// What every report says of the benchmarked matrix: its name, shape and stored entries (a
/// report adds what it measured of it).
template <typename Matrix>
nlohmann::ordered_json matrix_report(const RunOptions& options, const Matrix& A)
{
    return {{"name", options.matrix_name},
            {"rows", A.rows()},
            {"cols", A.cols()},
            {"nnz", A.nnz()}};
}

}  // namespace loom::bench
