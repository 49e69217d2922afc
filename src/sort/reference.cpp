// Sequential sorts: segments through the serial bitonic network one after the other, whole
// arrays by std::sort.
#include "sort/host_sort.hpp"
#include "sort/kernels.hpp"

namespace loom::sort::reference {

template <typename K, typename T, typename I>
void sort_segments(const ReferenceExecutor&, const I* offsets, size_type num_segments, size_type,
                   K* keys, T* values, Order order)
{
    for (size_type s = 0; s < num_segments; ++s) {
        host::sort_segment(offsets, s, keys, values, order);
    }
}

template <typename K, typename T>
void sort_array(const ReferenceExecutor&, K* keys, T* values, size_type n, Order order)
{
    host::sort_array(keys, values, n, order);
}

LOOM_SORT_FOR_EACH_KEY(LOOM_INSTANTIATE_SORT_KERNELS, ReferenceExecutor)

}  // namespace loom::sort::reference
