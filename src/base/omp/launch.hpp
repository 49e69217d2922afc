// Unified launchers, OpenMP side (base/parallel.hpp): simple kernels are written once as a
// lambda over an index.
#pragma once

#include "base/parallel.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"

namespace loom::omp {

/// Below this much element-wise work a kernel runs on the calling thread, outside any
/// parallel region: entering one costs a microsecond or more (even a serialized one, with
/// libgomp), more than the work saves, and a solver on a small system would pay it in every
/// kernel of every iteration.
inline constexpr size_type min_parallel_elements = size_type{1} << 12;

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
/// they are fewer than min_parallel_elements.
template <typename F>
void parallel_for_elements(const OmpExecutor& exec, size_type n, size_type elements, F&& f)
{
    if (elements < min_parallel_elements) {
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
void parallel_for(const OmpExecutor& exec, size_type rows, size_type cols, F f, const char*)
{
    omp::parallel_for_elements(exec, rows, rows * cols, [&](size_type i) {
        for (size_type j = 0; j < cols; ++j) f(i, j);
    });
}

}  // namespace loom::detail
