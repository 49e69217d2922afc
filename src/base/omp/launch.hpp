// Unified launchers, OpenMP side (base/parallel.hpp): simple kernels are written once as a
// lambda over an index.
#pragma once

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <vector>

#include "base/parallel.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"

namespace loom::omp {

/// Below this much element-wise work a kernel runs on the calling thread, outside any
/// parallel region: entering one costs a microsecond or more (even a serialized one, with
/// libgomp), more than the work saves, and a solver on a small system would pay it in every
/// kernel of every iteration.
inline constexpr size_type min_parallel_elements = size_type{1} << 12;

/// Iterations handed out at a time where their costs differ much (a dense row among short
/// ones): small enough to balance the threads, large enough to make the hand-out vanish.
inline constexpr int uneven_chunk = 256;

/// f(i) for i in [0, n), statically split over the executor's threads.
template <typename F>
void parallel_for(const OmpExecutor& exec, size_type n, F&& f)
{
#pragma omp parallel for schedule(static) num_threads(exec.num_threads())
    for (size_type i = 0; i < n; ++i) {
        f(i);
    }
}

/// The same for cheap f touching about `elements` values in all: on the calling thread when
/// they are fewer than min_parallel_elements, or when the executor has one thread (a region
/// of one thread still costs libgomp's entry and exit, in every kernel of every iteration).
template <typename F>
void parallel_for_elements(const OmpExecutor& exec, size_type n, size_type elements, F&& f)
{
    if (elements < min_parallel_elements || exec.num_threads() == 1) {
        for (size_type i = 0; i < n; ++i) f(i);
    } else {
        omp::parallel_for(exec, n, f);  // qualified: f may come from loom::detail (ADL)
    }
}

}  // namespace loom::omp

namespace loom::detail {

template <typename F>
void parallel_for(const OmpExecutor& exec, size_type n, F f, const char*)
{
    omp::parallel_for(exec, n, f);
}

template <typename F>
void parallel_for_uneven(const OmpExecutor& exec, size_type n, F f, const char*)
{
#pragma omp parallel for schedule(dynamic, omp::uneven_chunk) num_threads(exec.num_threads())
    for (size_type i = 0; i < n; ++i) f(i);
}

template <typename F>
void parallel_for(const OmpExecutor& exec, size_type rows, size_type cols, F f, const char*)
{
    if (cols == 1) {
        // A vector (every Krylov solver's case): one flat loop over the rows, which the
        // compiler vectorizes; the inner loop over a run-time count of columns kept axpby
        // scalar (perf on add32, GMRES + ILU(0), one thread: 26% of the run in axpby).
        omp::parallel_for_elements(exec, rows, rows, [&](size_type i) { f(i, 0); });
        return;
    }
    omp::parallel_for_elements(exec, rows, rows * cols, [&](size_type i) {
        for (size_type j = 0; j < cols; ++j) f(i, j);
    });
}

template <typename T, typename F, typename Op>
T parallel_reduce(const OmpExecutor& exec, size_type n, F f, T init, Op op, const char*)
{
    const auto chunk_total = [&](size_type begin, size_type end) {
        T total = init;
        for (size_type i = begin; i < end; ++i) total = op(total, f(i));
        return total;
    };
    if (n < omp::min_parallel_elements) return chunk_total(0, n);
    std::vector<T> partials(static_cast<std::size_t>(exec.num_threads()), init);
    int team_size = 1;
#pragma omp parallel num_threads(exec.num_threads())
    {
#if defined(_OPENMP)
        const int threads = omp_get_num_threads();
        const int thread = omp_get_thread_num();
#else
        const int threads = 1;
        const int thread = 0;
#endif
        if (thread == 0) team_size = threads;
        const size_type chunk = (n + threads - 1) / threads;
        const size_type begin = std::min(n, thread * chunk);
        partials[thread] = chunk_total(begin, std::min(n, begin + chunk));
    }
    T total = init;
    for (int t = 0; t < team_size; ++t) total = op(total, partials[t]);
    return total;
}

}  // namespace loom::detail
