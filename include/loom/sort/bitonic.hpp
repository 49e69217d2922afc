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
// stable: equal keys may come out in any order, with their values; a comparator that also
// sees the values (KeyThenValue) makes the order of pairs unique.
//
// team_merge_bitonic(_pairs) sorts a bitonic sequence (ascending, then descending) of a
// power-of-two length: the last merge of the network alone, log2(n) stages instead of
// log2(n) (log2(n) + 1) / 2. Two sorted runs become one this way (the first ascending, the
// second reversed, padding between them), as SpAdd unites the rows of A and B.
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

/// Orders (key, value) pairs by key with comp, equal keys by value ascending: a comparator
/// that sees the values (for the pair sorts and merges), which makes the result unique.
template <typename Compare = Less>
struct KeyThenValue {
    static constexpr bool compares_values = true;
    Compare comp{};

    template <typename K, typename T>
    LOOM_HOST_DEVICE LOOM_INLINE bool operator()(const K& a, const T& a_value, const K& b,
                                                 const T& b_value) const
    {
        return comp(a, b) || (!comp(b, a) && a_value < b_value);
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

/// Whether Compare orders (key, value) pairs (KeyThenValue) rather than keys.
template <typename Compare, typename = void>
inline constexpr bool compares_values_v = false;
template <typename Compare>
inline constexpr bool compares_values_v<Compare, std::void_t<decltype(Compare::compares_values)>> =
    Compare::compares_values;

/// Whether entry j must come before entry i.
template <typename K, typename T, typename I, typename Compare>
LOOM_HOST_DEVICE LOOM_INLINE bool goes_before(const K* keys, const T* values, I j, I i,
                                              const Compare& comp)
{
    if constexpr (compares_values_v<Compare>) {
        static_assert(!std::is_same_v<T, NoValues>,
                      "a comparator of (key, value) pairs needs the pair sorts and merges");
        return comp(keys[j], values[j], keys[i], values[i]);
    } else {
        return comp(keys[j], keys[i]);
    }
}

/// Orders entries i < j (j possibly past the end, then nothing happens).
template <typename K, typename T, typename I, typename Compare>
LOOM_HOST_DEVICE LOOM_INLINE void compare_exchange(K* keys, T* values, I i, I j, I n,
                                                   const Compare& comp)
{
    if (j >= n || !goes_before(keys, values, j, i, comp)) return;
    swap(keys[i], keys[j]);
    if constexpr (!std::is_same_v<T, NoValues>) swap(values[i], values[j]);
}

/// The lower index of the t-th comparison (t in [0, N/2)) of a stage with distance `stride`.
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE I lower_index(I t, I stride)
{
    return (t / stride) * 2 * stride + t % stride;  // bit `stride` of i is 0
}

/// The t-th comparison (t in [0, N/2)) of the stage with distance `stride` of a merge of
/// blocks of `block`: returns the lower index and sets `partner`. The first stage of a merge
/// (stride == block / 2) compares i with its mirror in the block, the later ones i with
/// i + stride.
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE I stage_pair(I t, I block, I stride, I& partner)
{
    const I i = lower_index(t, stride);
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

/// The half-cleaner stages (i against i + stride, smaller first) that sort a bitonic
/// sequence of n entries, n a power of two.
template <typename K, typename T, typename I, typename Compare, typename ForStage>
LOOM_HOST_DEVICE LOOM_INLINE void bitonic_merge_network(K* keys, T* values, I n,
                                                        const Compare& comp,
                                                        const ForStage& for_stage)
{
    for (I stride = n / 2; stride > 0; stride >>= 1) {
        for_stage(n / 2, [&](I t) {
            const I i = lower_index(t, stride);
            compare_exchange(keys, values, i, i + stride, n, comp);
        });
    }
}

/// A ForStage on a team: each stage spread over the team, a barrier after it.
template <typename Member>
struct TeamStages {
    const Member& member;

    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void operator()(I count, const F& f) const
    {
        member.team_vector_for(count, f);
        member.team_barrier();
    }
};

template <typename Member, typename K, typename T, typename I, typename Compare>
LOOM_HOST_DEVICE LOOM_INLINE void team_network(const Member& member, K* keys, T* values, I n,
                                               const Compare& comp)
{
    if (n < 2) return;
    bitonic_network(keys, values, n, comp, TeamStages<Member>{member});
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

/// Sorts keys[0, n) by comp with the whole team when they form a bitonic sequence (ordered by
/// comp, then against it) and n is a power of two (pad the middle with keys ordered after
/// every other). Every thread of the team calls it.
template <typename Member, typename K, typename I, typename Compare = Less>
LOOM_HOST_DEVICE void team_merge_bitonic(const Member& member, K* keys, I n, Compare comp = {})
{
    detail::bitonic_merge_network(keys, static_cast<NoValues*>(nullptr), n, comp,
                                  detail::TeamStages<Member>{member});
}

/// team_merge_bitonic with values[0, n) moving with their keys.
template <typename Member, typename K, typename T, typename I, typename Compare = Less>
LOOM_HOST_DEVICE void team_merge_bitonic_pairs(const Member& member, K* keys, T* values, I n,
                                               Compare comp = {})
{
    detail::bitonic_merge_network(keys, values, n, comp, detail::TeamStages<Member>{member});
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
/// `loom bench sort`, and the whole-array sort of ParILUT's threshold search. NotSupported off
/// CUDA; arguments as sort / sort_segments. Compiled for int32, float and double keys
/// (vendor_sort) and int32 keys with int32 offsets (vendor_sort_segments) only: CUB's sorts
/// are costly to compile.
template <typename K>
LOOM_EXPORT void vendor_sort(Array<K>& keys, Order order = Order::ascending);
template <typename K, typename I>
LOOM_EXPORT void vendor_sort_segments(const Array<I>& offsets, Array<K>& keys, Order order = Order::ascending);

}  // namespace loom::sort
