// CUDA sorts.
//
//  * segments: a team (thread block) per segment running the team bitonic network; the
//    segment is staged in the team's shared scratch when the longest one fits in 48 KiB,
//    else it is sorted in place in global memory.
//  * whole array: tiles of `tile` entries are sorted in shared memory (one block each), then
//    every merge of blocks larger than a tile runs its long-distance stages as one launch
//    each over global memory and its stages within a tile as one shared-memory launch.
#include <algorithm>
#include <type_traits>


#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "loom/launch/team.hpp"
#include "sort/kernels.hpp"

namespace loom::sort::cuda {
namespace {

using loom::cuda::stream_of;

/// Sorts segment league_rank() of keys (and values) with the whole team.
template <typename K, typename T, typename I, typename Compare>
struct SegmentSort {
    const I* offsets;
    K* keys;
    T* values;
    size_type staged_length;  ///< entries staged in scratch; 0: sort in place
    Compare comp;

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& m) const
    {
        const auto s = m.league_rank();
        const auto begin = static_cast<long long>(offsets[s]);
        const auto n = static_cast<long long>(offsets[s + 1]) - begin;
        K* k = keys + begin;
        T* v = shifted(values, begin);
        if (n < 2) return;
        if (staged_length == 0) {
            sort_in(m, k, v, n);
            return;
        }
        K* sk = m.template team_scratch<K>(staged_length);
        T* sv = values == nullptr ? nullptr : m.template team_scratch<T>(staged_length);
        m.team_vector_for(n, [&](long long i) {
            sk[i] = k[i];
            if (sv != nullptr) sv[i] = v[i];
        });
        m.team_barrier();
        sort_in(m, sk, sv, n);
        m.team_vector_for(n, [&](long long i) {
            k[i] = sk[i];
            if (sv != nullptr) v[i] = sv[i];
        });
    }

    template <typename Member>
    LOOM_HOST_DEVICE void sort_in(const Member& m, K* k, T* v, long long n) const
    {
        if (v == nullptr) {
            team_sort(m, k, n, comp);
        } else {
            team_sort_pairs(m, k, v, n, comp);
        }
    }
};

constexpr int tile = 2048;
constexpr int tile_threads = tile / 2;

/// Applies the stages from `block`/`stride` down to stride 1 to this block's tile, in shared
/// memory; block == stride * 2 <= tile sorts the tile from scratch (all merges up to `tile`).
template <typename K, typename T, typename Compare>
__global__ void __launch_bounds__(tile_threads)
    tile_stages(K* keys, T* values, long long n, int first_block, Compare comp)
{
    __shared__ K sk[tile];
    __shared__ std::conditional_t<std::is_same_v<T, NoValues>, char, T> sv_storage[tile];
    T* sv = values == nullptr ? nullptr : reinterpret_cast<T*>(sv_storage);
    const long long base = static_cast<long long>(blockIdx.x) * tile;
    const int count = static_cast<int>(n - base < tile ? n - base : tile);
    for (int i = threadIdx.x; i < count; i += tile_threads) {
        sk[i] = keys[base + i];
        if (sv != nullptr) sv[i] = values[base + i];
    }
    __syncthreads();
    // first_block <= tile: the whole tile sort (blocks 2 .. tile); otherwise only the
    // within-tile stages of the current merge, which never flip.
    const int last_block = first_block <= tile ? tile : tile * 2;
    for (int block = first_block <= tile ? 2 : tile * 2; block <= last_block; block <<= 1) {
        for (int stride = (block < tile ? block : tile) / 2; stride > 0; stride >>= 1) {
            const int t = threadIdx.x;
            int partner;
            const int i = detail::stage_pair(t, block, stride, partner);
            detail::compare_exchange(sk, sv, i, partner, count, comp);
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < count; i += tile_threads) {
        keys[base + i] = sk[i];
        if (sv != nullptr) values[base + i] = sv[i];
    }
}

template <typename K, typename T, typename Compare>
void sort_whole(const CudaExecutor& exec, K* keys, T* values, long long n, Compare comp)
{
    const long long tiles = (n + tile - 1) / tile;
    const long long N = detail::ceil_power_of_two(n);
    tile_stages<<<static_cast<unsigned>(tiles), tile_threads, 0, stream_of(exec)>>>(keys, values, n,
                                                                                    tile, comp);
    loom::cuda::check_launch("loom::sort::sort");
    for (long long block = 2LL * tile; block <= N; block <<= 1) {
        for (long long stride = block / 2; stride >= tile; stride >>= 1) {
            loom::cuda::parallel_for(
                exec, N / 2,
                [=] __device__(long long t) {
                    long long partner;
                    const long long i = detail::stage_pair(t, block, stride, partner);
                    detail::compare_exchange(keys, values, i, partner, n, comp);
                },
                "loom::sort::sort");
        }
        tile_stages<<<static_cast<unsigned>(tiles), tile_threads, 0, stream_of(exec)>>>(
            keys, values, n, static_cast<int>(std::min<long long>(block, 1LL << 30)), comp);
        loom::cuda::check_launch("loom::sort::sort");
    }
}

}  // namespace

template <typename K, typename T, typename I>
void sort_segments(const CudaExecutor& exec, const I* offsets, size_type num_segments,
                   size_type max_segment, K* keys, T* values, Order order)
{
    const size_type entry_bytes =
        sizeof(K) + (std::is_same_v<T, NoValues> ? 0 : static_cast<size_type>(sizeof(T)));
    const bool staged = max_segment * entry_bytes + 2 * 64 <= 48 * 1024;
    // Half a thread per entry of the longest segment (one comparison each per stage).
    const int threads = static_cast<int>(
        std::clamp<size_type>(detail::ceil_power_of_two(max_segment) / 2, 32, 512));
    launch::TeamPolicy policy{static_cast<size_type>(num_segments), threads, 1};
    if (staged) policy.set_scratch_bytes(max_segment * entry_bytes + 2 * 64);
    with_comparator(order, [&](auto comp) {
        launch::team_parallel_for(exec, policy,
                                  SegmentSort<K, T, I, decltype(comp)>{
                                      offsets, keys, values, staged ? max_segment : 0, comp});
    });
}

template <typename K, typename T>
void sort_array(const CudaExecutor& exec, K* keys, T* values, size_type n, Order order)
{
    with_comparator(order, [&](auto comp) { sort_whole(exec, keys, values, n, comp); });
}

LOOM_SORT_FOR_EACH_KEY(LOOM_INSTANTIATE_SORT_KERNELS, CudaExecutor)

}  // namespace loom::sort::cuda
