// OpenMP sorts: segments spread over the threads (dynamic: their lengths differ), each
// through the serial bitonic network; whole arrays by std::sort (the comparison network's
// n log^2 n work would not pay on a few cores).
#include "sort/host_sort.hpp"
#include "sort/kernels.hpp"

namespace loom::sort::omp {

template <typename K, typename T, typename I>
void sort_segments(const OmpExecutor& exec, const I* offsets, size_type num_segments, size_type,
                   K* keys, T* values, Order order)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(exec.num_threads())
    for (size_type s = 0; s < num_segments; ++s) {
        host::sort_segment(offsets, s, keys, values, order);
    }
}

template <typename K, typename T>
void sort_array(const OmpExecutor&, K* keys, T* values, size_type n, Order order)
{
    host::sort_array(keys, values, n, order);
}

LOOM_SORT_FOR_EACH_KEY(LOOM_INSTANTIATE_SORT_KERNELS, OmpExecutor)

}  // namespace loom::sort::omp
