// Exclusive prefix sums on every backend, the step that turns per-row (per-slice, per-bucket)
// counts into offsets in the count -> scan -> fill pattern of format conversions and of every
// kernel that builds a sparse result.
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"

namespace loom::detail {

/// In place on the array's executor: values[i] becomes values[0] + ... + values[i - 1]
/// (values[0] becomes 0). Give it counts followed by one spare element: that last input is
/// never read, and the last element receives the total.
template <typename I>
void exclusive_prefix_sum(Array<I>& values);

/// One element of an array, read back to the host (waits for the executor's queued work).
template <typename T>
T load_element(const Array<T>& values, size_type index)
{
    T result{};
    host_executor()->copy_from(*values.executor(), sizeof(T), values.data() + index, &result);
    return result;
}

}  // namespace loom::detail

// The same on raw memory of one executor, for kernels that scan buffers of their own.
namespace loom::reference {
template <typename I>
void exclusive_prefix_sum(const ReferenceExecutor& exec, I* values, size_type n);
}
namespace loom::omp {
template <typename I>
void exclusive_prefix_sum(const OmpExecutor& exec, I* values, size_type n);
}
namespace loom::cuda {
template <typename I>
void exclusive_prefix_sum(const CudaExecutor& exec, I* values, size_type n);
}
