// Timing of repeated kernel calls: warm-up, then the median of many samples, each sample a
// batch of calls between two executor synchronizations (so that on a GPU the launches queue
// back to back and the synchronization cost is spread over the batch).
#pragma once

#include <functional>

#include "loom/base/executor.hpp"

namespace loom::bench {

/// Seconds per call.
struct Timing {
    double median = 0;
    double min = 0;
    double max = 0;
    int samples = 0;
    int batch = 1;  ///< calls per timed sample
};

struct TimingOptions {
    int samples = 50;
    /// A batch holds enough calls to last this long, so that timer and synchronization
    /// overheads stay below a percent even for microsecond kernels.
    double min_batch_seconds = 2e-3;
    int max_batch = 1000;
};

/// BadInput from `where` unless a benchmark's repetitions (--reps) are at least one.
void check_repetitions(const char* where, int samples);

/// Times `kernel` (which queues work on exec) after warming it up.
Timing time_kernel(const Executor& exec, const std::function<void()>& kernel,
                   const TimingOptions& options = {});

}  // namespace loom::bench
