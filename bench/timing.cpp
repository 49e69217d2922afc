#include "bench/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "loom/base/error.hpp"

namespace loom::bench {
namespace {

double seconds_for(const Executor& exec, const std::function<void()>& kernel, int calls)
{
    exec.synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) kernel();
    exec.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void check_repetitions(const char* where, int samples)
{
    if (samples < 1) {
        throw BadInput(where, "need at least one repetition, got " + std::to_string(samples));
    }
}

Timing time_kernel(const Executor& exec, const std::function<void()>& kernel,
                   const TimingOptions& options)
{
    if (options.samples < 1) {
        throw BadInput("loom::bench::time_kernel",
                       "need at least one sample, got " + std::to_string(options.samples));
    }
    // The first call pays for lazy setup (analysis plans, library handles, page faults).
    seconds_for(exec, kernel, 1);
    const double once = std::max(seconds_for(exec, kernel, 1), 1e-9);
    Timing timing;
    timing.batch = static_cast<int>(
        std::clamp(std::ceil(options.min_batch_seconds / once), 1.0, double(options.max_batch)));
    if (timing.batch > 1) seconds_for(exec, kernel, timing.batch);  // warm-up at the rhythm

    std::vector<double> per_call(static_cast<std::size_t>(options.samples));
    for (auto& t : per_call) t = seconds_for(exec, kernel, timing.batch) / timing.batch;
    std::sort(per_call.begin(), per_call.end());
    const auto n = per_call.size();
    timing.median = n % 2 == 1 ? per_call[n / 2] : (per_call[n / 2 - 1] + per_call[n / 2]) / 2;
    timing.min = per_call.front();
    timing.max = per_call.back();
    timing.samples = options.samples;
    return timing;
}

}  // namespace loom::bench
