#include "bench/bandwidth.hpp"

#include <algorithm>
#include <cstring>

#include "bench/timing.hpp"
#include "loom/base/array.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace loom::bench {
namespace {

/// Thread t of n handles bytes [begin, end): whole cache lines, so no line is shared.
std::pair<std::size_t, std::size_t> chunk_of(int t, int n, std::size_t bytes)
{
    constexpr std::size_t line = 64;
    const std::size_t lines = (bytes + line - 1) / line;
    const std::size_t begin = std::min(bytes, lines * t / n * line);
    const std::size_t end = std::min(bytes, lines * (t + 1) / n * line);
    return {begin, end};
}

/// Runs body(begin, end) on each thread's chunk. The same partition for every call, so that
/// each thread copies the pages it first touched (which matters on NUMA machines).
template <typename Body>
void for_each_chunk(int threads, std::size_t bytes, Body body)
{
#if defined(_OPENMP)
#pragma omp parallel num_threads(threads)
    {
        const auto [begin, end] = chunk_of(omp_get_thread_num(), omp_get_num_threads(), bytes);
        body(begin, end);
    }
#else
    (void)threads;
    body(std::size_t{0}, bytes);
#endif
}

int host_threads(const Executor& exec)
{
    if (exec.kind() == ExecKind::omp) return static_cast<const OmpExecutor&>(exec).num_threads();
    return 1;
}

}  // namespace

CopyBandwidth measure_copy_bandwidth(const std::shared_ptr<const Executor>& exec, std::size_t bytes)
{
    const auto words = static_cast<size_type>(bytes / sizeof(std::uint64_t));
    bytes = static_cast<std::size_t>(words) * sizeof(std::uint64_t);
    Array<std::uint64_t> src(exec, words);
    Array<std::uint64_t> dst(exec, words);
    const TimingOptions options{.samples = 10, .min_batch_seconds = 0, .max_batch = 1};
    CopyBandwidth result{.bytes = bytes, .threads = host_threads(*exec)};
    Timing timing;
    if (exec->is_host()) {
        auto* from = reinterpret_cast<std::byte*>(src.data());
        auto* to = reinterpret_cast<std::byte*>(dst.data());
        // Touch the source for real: reading never-written pages would read the zero page.
        for_each_chunk(result.threads, bytes, [&](std::size_t begin, std::size_t end) {
            std::memset(from + begin, 1, end - begin);
            std::memset(to + begin, 0, end - begin);
        });
        timing = time_kernel(
            *exec,
            [&] {
                for_each_chunk(result.threads, bytes, [&](std::size_t begin, std::size_t end) {
                    std::memcpy(to + begin, from + begin, end - begin);
                });
            },
            options);
    } else {
        src.fill(1);
        timing = time_kernel(
            *exec, [&] { exec->copy_from(*exec, bytes, src.data(), dst.data()); }, options);
    }
    result.bytes_per_second = 2.0 * static_cast<double>(bytes) / timing.median;
    return result;
}

}  // namespace loom::bench
