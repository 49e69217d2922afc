// Bitonic sort at three levels, on every backend:
//
//  * inside a team, callable from a user's kernel like the batched routines (header-only):
//        loom::sort::team_sort(member, keys, n);                       // ascending
//        loom::sort::team_sort_pairs(member, keys, values, n, comp);   // values follow keys
//    keys (and values) usually sit in team scratch memory; any n >= 0, any strict weak
//    ordering `comp`; every thread of the team calls it (it synchronizes the team).
//    serial_sort / serial_sort_pairs are the one-thread versions (the same network).
//  * many small segments in one launch: sort_segments(offsets, keys[, values]), a team per
//    segment;
//  * a whole array: sort(keys[, values]).
//
// The network works on any length: it is the network of the next power of two N, where the
// missing entries count as larger than everything, so every comparison with one is skipped.
// Each merge starts with a "flip" stage (i against its mirror in the block) so that all
// comparisons sort ascending and the missing entries never move. Bitonic sorting is not
// stable: equal keys may come out in any order, with their values.
#pragma once

#include <type_traits>

#include "loom/base/export.hpp"
#include "loom/base/array.hpp"
#include "loom/launch/macros.hpp"

namespace loom::sort {

/// a < b: the default ordering.
struct Less {
    template <typename T>
    LOOM_HOST_DEVICE LOOM_INLINE bool operator()(const T& a, const T& b) const
    {
        return a < b;
    }
};

/// b < a: descending order.
struct Greater {
    template <typename T>
    LOOM_HOST_DEVICE LOOM_INLINE bool operator()(const T& a, const T& b) const
    {
        return b < a;
    }
};

/// Marks "no values" for the shared network.
struct NoValues {};

namespace detail {

template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE void swap(T& a, T& b)
{
    T t = a;
    a = b;
    b = t;
}

/// Smallest power of two >= n (1 for n <= 1).
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE I ceil_power_of_two(I n)
{
    I p = 1;
    while (p < n) p <<= 1;
    return p;
}

/// Orders entries i < j (j possibly past the end, then nothing happens).
template <typename K, typename T, typename I, typename Compare>
LOOM_HOST_DEVICE LOOM_INLINE void compare_exchange(K* keys, T* values, I i, I j, I n,
                                                   const Compare& comp)
{
    if (j >= n || !comp(keys[j], keys[i])) return;
    swap(keys[i], keys[j]);
    if constexpr (!std::is_same_v<T, NoValues>) swap(values[i], values[j]);
}

/// The t-th comparison (t in [0, N/2)) of the stage with distance `stride` of a merge of
/// blocks of `block`: returns the lower index and sets `partner`. The first stage of a merge
/// (stride == block / 2) compares i with its mirror in the block, the later ones i with
/// i + stride.
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE I stage_pair(I t, I block, I stride, I& partner)
{
    const I i = (t / stride) * 2 * stride + t % stride;  // bit `stride` of i is 0
    partner = stride * 2 == block ? (i ^ (block - 1)) : i + stride;
    return i;
}

/// Runs the whole network: for_stage(count, f) must call f(t) for t in [0, count) and return
/// only when every call of the stage is visible to the next stage.
template <typename K, typename T, typename I, typename Compare, typename ForStage>
LOOM_HOST_DEVICE LOOM_INLINE void bitonic_network(K* keys, T* values, I n, const Compare& comp,
                                                  const ForStage& for_stage)
{
    const I N = ceil_power_of_two(n);
    for (I block = 2; block <= N; block <<= 1) {
        for (I stride = block / 2; stride > 0; stride >>= 1) {
            for_stage(N / 2, [&](I t) {
                I partner;
                const I i = stage_pair(t, block, stride, partner);
                compare_exchange(keys, values, i, partner, n, comp);
            });
        }
    }
}

template <typename Member, typename K, typename T, typename I, typename Compare>
LOOM_HOST_DEVICE LOOM_INLINE void team_network(const Member& member, K* keys, T* values, I n,
                                               const Compare& comp)
{
    if (n < 2) return;
    bitonic_network(keys, values, n, comp, [&](I count, const auto& f) {
        member.team_vector_for(count, f);
        member.team_barrier();
    });
}

template <typename K, typename T, typename I, typename Compare>
LOOM_HOST_DEVICE LOOM_INLINE void serial_network(K* keys, T* values, I n, const Compare& comp)
{
    if (n < 2) return;
    bitonic_network(keys, values, n, comp, [](I count, const auto& f) {
        for (I t = 0; t < count; ++t) f(t);
    });
}

}  // namespace detail

/// Sorts keys[0, n) by comp with all threads of the calling team (each must call it).
template <typename Member, typename K, typename I, typename Compare = Less>
LOOM_HOST_DEVICE void team_sort(const Member& member, K* keys, I n, Compare comp = {})
{
    detail::team_network(member, keys, static_cast<NoValues*>(nullptr), n, comp);
}

/// Sorts keys[0, n) by comp, values[0, n) moving with their keys (not stable).
template <typename Member, typename K, typename T, typename I, typename Compare = Less>
LOOM_HOST_DEVICE void team_sort_pairs(const Member& member, K* keys, T* values, I n,
                                      Compare comp = {})
{
    detail::team_network(member, keys, values, n, comp);
}

/// team_sort on one thread.
template <typename K, typename I, typename Compare = Less>
LOOM_HOST_DEVICE void serial_sort(K* keys, I n, Compare comp = {})
{
    detail::serial_network(keys, static_cast<NoValues*>(nullptr), n, comp);
}

/// team_sort_pairs on one thread.
template <typename K, typename T, typename I, typename Compare = Less>
LOOM_HOST_DEVICE void serial_sort_pairs(K* keys, T* values, I n, Compare comp = {})
{
    detail::serial_network(keys, values, n, comp);
}

/// Ascending or descending, for the launches below (which run compiled comparators only).
enum class Order { ascending, descending };

/// Sorts every segment keys[offsets[s], offsets[s + 1]) in one launch, a team per segment (on
/// CUDA in shared memory when the longest segment fits). offsets: num_segments + 1
/// non-decreasing entries within keys; BadInput otherwise or when the arrays do not share an
/// executor; keys are then untouched.
template <typename K, typename I>
LOOM_EXPORT void sort_segments(const Array<I>& offsets, Array<K>& keys, Order order = Order::ascending);
/// sort_segments with values following their keys (values.size() == keys.size()).
template <typename K, typename T, typename I>
LOOM_EXPORT void sort_segments(const Array<I>& offsets, Array<K>& keys, Array<T>& values,
                   Order order = Order::ascending);

/// Sorts a whole array on its executor: std::sort on the host backends, the bitonic network
/// over global memory (its short stages in shared memory) on CUDA.
template <typename K>
LOOM_EXPORT void sort(Array<K>& keys, Order order = Order::ascending);
/// sort with values following their keys (values.size() == keys.size(); BadInput otherwise).
template <typename K, typename T>
LOOM_EXPORT void sort(Array<K>& keys, Array<T>& values, Order order = Order::ascending);

/// CUB's radix sort of a whole array and CUB's segmented sort, keys alone: the peers of
/// `loom bench sort`. NotSupported off CUDA; arguments as sort / sort_segments.
template <typename K>
LOOM_EXPORT void vendor_sort(Array<K>& keys, Order order = Order::ascending);
template <typename K, typename I>
LOOM_EXPORT void vendor_sort_segments(const Array<I>& offsets, Array<K>& keys, Order order = Order::ascending);

}  // namespace loom::sort
