// Per-backend entry points of the segmented and whole-array sorts (include/loom/sort/
// bitonic.hpp). Arguments arrive checked and on the executor; `values` is nullptr and T is
// NoValues for keys alone. max_segment: the longest segment's length.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/sort/bitonic.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_SORT_KERNELS(Exec)                                            \
    template <typename K, typename T, typename I>                                  \
    void sort_segments(const Exec& exec, const I* offsets, size_type num_segments, \
                       size_type max_segment, K* keys, T* values, Order order);    \
    template <typename K, typename T>                                              \
    void sort_array(const Exec& exec, K* keys, T* values, size_type n, Order order)

namespace loom::sort {

/// Calls f(comp) with the comparator of `order`, so kernels are compiled for both.
template <typename F>
decltype(auto) with_comparator(Order order, F&& f)
{
    return order == Order::ascending ? f(Less{}) : f(Greater{});
}

/// values + offset, or nullptr when there are no values.
template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE T* shifted(T* values, long long offset)
{
    return values == nullptr ? nullptr : values + offset;
}

}  // namespace loom::sort

LOOM_DECLARE_ON_EACH_BACKEND(loom::sort, LOOM_DECLARE_SORT_KERNELS)
namespace loom::sort::cuda {
/// CUB radix sort / segmented sort (the benchmark's peers), keys alone.
template <typename K>
void vendor_sort(const CudaExecutor& exec, K* keys, size_type n, Order order);
template <typename K, typename I>
void vendor_sort_segments(const CudaExecutor& exec, const I* offsets, size_type num_segments,
                          K* keys, size_type n, Order order);
}  // namespace loom::sort::cuda

// Instantiation lists: keys of the four scalar types, values of the two index types.
#define LOOM_SORT_FOR_EACH_KEY(M, ...) \
    M(::loom::int32, __VA_ARGS__)      \
    M(::loom::int64, __VA_ARGS__) M(float, __VA_ARGS__) M(double, __VA_ARGS__)
// CUB's sorts: segmented ones for the keys and offsets of `loom bench sort` only, M(K, I);
// whole-array ones also for the magnitudes ParILUT/ParICT's threshold search sorts, M(K).
#define LOOM_SORT_FOR_EACH_VENDOR_KEY(M) M(::loom::int32, ::loom::int32)
#define LOOM_SORT_FOR_EACH_VENDOR_WHOLE_KEY(M) M(float) M(double)
#define LOOM_SORT_FOR_EACH_VALUE(M, ...)                                 \
    M(__VA_ARGS__, ::loom::sort::NoValues) M(__VA_ARGS__, ::loom::int32) \
    M(__VA_ARGS__, ::loom::int64)

/* Explicit instantiation of the sorts of one backend for key type K, inside its namespace:
   LOOM_SORT_FOR_EACH_KEY(LOOM_INSTANTIATE_SORT_KERNELS, Exec) */
#define LOOM_INSTANTIATE_SORT_KERNELS(K, Exec) \
    LOOM_SORT_FOR_EACH_VALUE(LOOM_INSTANTIATE_SORT_KEY_VALUE, Exec, K)
#define LOOM_INSTANTIATE_SORT_KEY_VALUE(Exec, K, T)                                             \
    template void sort_segments(const Exec&, const int32*, size_type, size_type, K*, T*, Order); \
    template void sort_segments(const Exec&, const int64*, size_type, size_type, K*, T*, Order); \
    template void sort_array(const Exec&, K*, T*, size_type, Order);
