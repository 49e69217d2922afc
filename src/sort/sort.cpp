// The checked entry points of the segmented and whole-array sorts.
#include <algorithm>
#include <string>
#include <vector>

#include "base/dispatch.hpp"
#include "loom/base/error.hpp"
#include "sort/kernels.hpp"

namespace loom::sort {
namespace {

void check_same_memory(const char* where, const std::shared_ptr<const Executor>& a,
                       const std::shared_ptr<const Executor>& b)
{
    if (!a || !b || !a->same_memory_as(*b)) {
        throw BadInput(where, "the arrays must live in one executor's memory");
    }
}

/// Checks the offsets against keys.size() and returns the longest segment's length.
template <typename I>
size_type longest_segment(const char* where, const Array<I>& offsets, size_type num_keys)
{
    if (offsets.size() == 0) throw BadInput(where, "offsets needs num_segments + 1 entries");
    const auto host = offsets.to_host();
    size_type longest = 0;
    for (std::size_t s = 0; s + 1 < host.size(); ++s) {
        if (host[s] < 0 || host[s + 1] < host[s]) {
            throw BadInput(where,
                           "offsets decrease (or are negative) at segment " + std::to_string(s));
        }
        longest = std::max<size_type>(longest, host[s + 1] - host[s]);
    }
    if (host.back() > num_keys) {
        throw BadInput(where, "offsets end at " + std::to_string(host.back()) + ", past the " +
                                  std::to_string(num_keys) + " keys");
    }
    return longest;
}

template <typename K, typename T, typename I>
void run_segments(const Array<I>& offsets, Array<K>& keys, T* values, Order order)
{
    constexpr const char* where = "loom::sort::sort_segments";
    check_same_memory(where, offsets.executor(), keys.executor());
    const auto longest = longest_segment(where, offsets, keys.size());
    if (longest < 2) return;
    LOOM_RUN_KERNEL(where, *keys.executor(), sort_segments, offsets.data(), offsets.size() - 1,
                    longest, keys.data(), values, order);
}

template <typename K, typename T>
void run_array(Array<K>& keys, T* values, Order order)
{
    if (keys.size() < 2) return;
    LOOM_RUN_KERNEL("loom::sort::sort", *keys.executor(), sort_array, keys.data(), values,
                    keys.size(), order);
}

template <typename K, typename T>
void check_values(const char* where, const Array<K>& keys, const Array<T>& values)
{
    if (values.size() != keys.size()) {
        throw BadInput(where, std::to_string(keys.size()) + " keys but " +
                                  std::to_string(values.size()) + " values");
    }
    if (keys.size() > 0) check_same_memory(where, keys.executor(), values.executor());
}

}  // namespace

template <typename K, typename I>
void sort_segments(const Array<I>& offsets, Array<K>& keys, Order order)
{
    run_segments(offsets, keys, static_cast<NoValues*>(nullptr), order);
}

template <typename K, typename T, typename I>
void sort_segments(const Array<I>& offsets, Array<K>& keys, Array<T>& values, Order order)
{
    check_values("loom::sort::sort_segments", keys, values);
    run_segments(offsets, keys, values.data(), order);
}

template <typename K>
void sort(Array<K>& keys, Order order)
{
    run_array(keys, static_cast<NoValues*>(nullptr), order);
}

template <typename K, typename T>
void sort(Array<K>& keys, Array<T>& values, Order order)
{
    check_values("loom::sort::sort", keys, values);
    run_array(keys, values.data(), order);
}

template <typename K>
void vendor_sort(Array<K>& keys, Order order)
{
    constexpr const char* where = "loom::sort::vendor_sort";
    if (keys.size() < 2) return;
    keys.executor()->run(loom::detail::overloaded{
        [&](const CudaExecutor& e) {
            LOOM_CUDA_CALL(where, cuda::vendor_sort(e, keys.data(), keys.size(), order));
        },
        [&](const auto&) { throw NotSupported(where, "CUB runs on the CUDA backend only"); }});
}

template <typename K, typename I>
void vendor_sort_segments(const Array<I>& offsets, Array<K>& keys, Order order)
{
    constexpr const char* where = "loom::sort::vendor_sort_segments";
    check_same_memory(where, offsets.executor(), keys.executor());
    if (longest_segment(where, offsets, keys.size()) < 2) return;
    keys.executor()->run(loom::detail::overloaded{
        [&](const CudaExecutor& e) {
            LOOM_CUDA_CALL(where, cuda::vendor_sort_segments(e, offsets.data(), offsets.size() - 1,
                                                             keys.data(), keys.size(), order));
        },
        [&](const auto&) { throw NotSupported(where, "CUB runs on the CUDA backend only"); }});
}

#define LOOM_INSTANTIATE_SORT_PAIRS(K, T)                                          \
    template void sort_segments(const Array<int32>&, Array<K>&, Array<T>&, Order); \
    template void sort_segments(const Array<int64>&, Array<K>&, Array<T>&, Order); \
    template void sort(Array<K>&, Array<T>&, Order);
#define LOOM_INSTANTIATE_SORT(K, unused)                                \
    template void sort_segments(const Array<int32>&, Array<K>&, Order); \
    template void sort_segments(const Array<int64>&, Array<K>&, Order); \
    template void sort(Array<K>&, Order);                               \
    LOOM_INSTANTIATE_SORT_PAIRS(K, ::loom::int32) LOOM_INSTANTIATE_SORT_PAIRS(K, ::loom::int64)
LOOM_SORT_FOR_EACH_KEY(LOOM_INSTANTIATE_SORT, _)
#define LOOM_INSTANTIATE_VENDOR_SORT(K, I)       \
    template void vendor_sort(Array<K>&, Order); \
    template void vendor_sort_segments(const Array<I>&, Array<K>&, Order);
LOOM_SORT_FOR_EACH_VENDOR_KEY(LOOM_INSTANTIATE_VENDOR_SORT)
#define LOOM_INSTANTIATE_VENDOR_WHOLE_SORT(K) template void vendor_sort(Array<K>&, Order);
LOOM_SORT_FOR_EACH_VENDOR_WHOLE_KEY(LOOM_INSTANTIATE_VENDOR_WHOLE_SORT)

}  // namespace loom::sort
