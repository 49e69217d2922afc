// Unified launchers, OpenMP side: simple kernels are written once as a lambda over an index.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"

namespace loom::omp {

/// f(i) for i in [0, n), statically split over the executor's threads.
template <typename F>
void parallel_for(const OmpExecutor& exec, size_type n, F&& f)
{
#pragma omp parallel for schedule(static) num_threads(exec.num_threads())
    for (size_type i = 0; i < n; ++i) {
        f(i);
    }
}

}  // namespace loom::omp
