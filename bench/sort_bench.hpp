// The sort benchmark behind `loom bench sort`: random int32 keys, checked against std::sort
// first, then timed: the whole-array bitonic sort against CUB's radix sort (CUDA) or std::sort
// (host), and the segmented sort against CUB's segmented sort or std::sort per segment.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"

namespace loom::bench {

struct SortBenchOptions {
    std::shared_ptr<const Executor> exec;
    int samples = 10;
    /// Keys of the whole-array sort (issue target: 2^26).
    size_type keys = size_type{1} << 26;
    /// Segments of the segmented sort, lengths uniform in [min_length, max_length] (issue
    /// target: 2^20 segments of 64..1024 keys).
    size_type segments = size_type{1} << 20;
    size_type min_length = 64;
    size_type max_length = 1024;
};

/// Runs the benchmark, prints the report on stdout and returns it as JSON. NumericalError
/// when a sort's result differs from std::sort's.
nlohmann::ordered_json bench_sort(const SortBenchOptions& options);

}  // namespace loom::bench
