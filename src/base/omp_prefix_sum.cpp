// OpenMP exclusive prefix sum: each thread sums one contiguous block, the block sums are
// scanned sequentially, then each thread scans its block starting from its offset.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "base/prefix_sum.hpp"

namespace loom::omp {
namespace {

/// Below this many elements the two extra passes over thread partials cost more than they save.
constexpr size_type sequential_limit = 1 << 14;

template <typename I>
I scan_block(I* values, size_type begin, size_type end, I offset)
{
    for (size_type i = begin; i < end; ++i) {
        const I count = values[i];
        values[i] = offset;
        offset += count;
    }
    return offset;
}

}  // namespace

template <typename I>
void exclusive_prefix_sum(const OmpExecutor& exec, I* values, size_type n)
{
    if (n < sequential_limit || exec.num_threads() == 1) {
        scan_block(values, 0, n, I{0});
        return;
    }
    std::vector<I> block_offsets(static_cast<std::size_t>(exec.num_threads()) + 1, I{0});
#pragma omp parallel num_threads(exec.num_threads())
    {
        const size_type threads = omp_get_num_threads();
        const size_type thread = omp_get_thread_num();
        const size_type block = (n + threads - 1) / threads;
        const size_type begin = std::min(n, thread * block);
        const size_type end = std::min(n, begin + block);
        I sum{0};
        for (size_type i = begin; i < end; ++i) sum += values[i];
        block_offsets[thread + 1] = sum;
#pragma omp barrier
#pragma omp single
        for (size_type t = 0; t < threads; ++t) block_offsets[t + 1] += block_offsets[t];
        // (the implicit barrier of `single` publishes the offsets)
        scan_block(values, begin, end, block_offsets[thread]);
    }
}

template void exclusive_prefix_sum(const OmpExecutor&, int32*, size_type);
template void exclusive_prefix_sum(const OmpExecutor&, int64*, size_type);

}  // namespace loom::omp
