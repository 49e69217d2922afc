// CUDA MIS-2 kernels: one thread per vertex, applying the rules of rules.hpp (the same code
// as the host backends, so the same decisions). The keys are gathered, never scattered: no
// atomics touch them, and any thread order gives the reference's bits.
#include <cooperative_groups.h>

#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "graph/mis2/kernels.hpp"

namespace loom::graph::cuda {

using namespace mis2_detail;
using loom::cuda::parallel_for;

namespace {
constexpr const char* where = "loom::graph::mis2";
}

template <typename I>
void refresh_keys(const CudaExecutor& exec, const GraphView<I>& graph, const KeyLayout& layout,
                  int round, Array<Key>& keys, Array<std::uint8_t>& active)
{
    Key* key = keys.data();
    std::uint8_t* is_active = active.data();
    const I* row_ptrs = graph.row_ptrs;
    parallel_for(
        exec, graph.vertices,
        [=] __device__(long long v) {
            if (round == 0) is_active[v] = 1;
            if (round == 0 || is_undecided(key[v])) {
                key[v] = undecided_key(layout, v, row_ptrs[v + 1] - row_ptrs[v], round);
            }
        },
        where);
}

template <typename I>
void max_within_1(const CudaExecutor& exec, const GraphView<I>& graph, const Array<Key>& keys,
                  Array<std::uint8_t>& active, Array<Key>& within_1)
{
    const Key* key = keys.data();
    std::uint8_t* is_active = active.data();
    Key* out = within_1.data();
    parallel_for(
        exec, graph.vertices,
        [=] __device__(long long v) {
            if (!is_active[v]) return;
            bool still_active = true;
            out[v] = largest_key(graph, key, v, still_active);
            if (!still_active) is_active[v] = 0;
        },
        where);
}

template <typename I>
void max_within_2(const CudaExecutor& exec, const GraphView<I>& graph, const Array<Key>& keys,
                  const Array<Key>& within_1, Array<Key>& within_2)
{
    const Key* key = keys.data();
    const Key* in = within_1.data();
    Key* out = within_2.data();
    parallel_for(
        exec, graph.vertices,
        [=] __device__(long long v) {
            if (is_undecided(key[v])) out[v] = largest_key(graph, in, v);
        },
        where);
}

size_type decide(const CudaExecutor& exec, Array<Key>& keys, const Array<Key>& largest)
{
    // Zeroed in stream order: the count read back below is the round's only synchronization.
    Array<unsigned long long> count(exec.shared_from_this(), 1);
    LOOM_CUDA_CHECK(
        cudaMemsetAsync(count.data(), 0, sizeof(unsigned long long), loom::cuda::stream_of(exec)),
        where);
    Key* key = keys.data();
    const Key* max = largest.data();
    unsigned long long* total = count.data();
    parallel_for(
        exec, keys.size(),
        [=] __device__(long long v) {
            key[v] = decided_key(key[v], max[v]);
            // One atomic per group of converged lanes rather than one per vertex.
            const auto group = cooperative_groups::coalesced_threads();
            const unsigned undecided_lanes = group.ballot(is_undecided(key[v]));
            if (group.thread_rank() == 0 && undecided_lanes != 0) {
                atomicAdd(total, static_cast<unsigned long long>(__popc(undecided_lanes)));
            }
        },
        where);
    return static_cast<size_type>(loom::detail::load_element(count, 0));
}

template <typename I>
void set_flags(const CudaExecutor& exec, const Array<Key>& keys, Array<I>& flags)
{
    const Key* key = keys.data();
    I* flag = flags.data();
    parallel_for(
        exec, keys.size(), [=] __device__(long long v) { flag[v] = key[v] >= in_set; }, where);
}

template <typename I>
void gather_set(const CudaExecutor& exec, const Array<Key>& keys, const Array<I>& positions,
                Array<I>& set)
{
    const Key* key = keys.data();
    const I* position = positions.data();
    I* out = set.data();
    parallel_for(
        exec, keys.size(),
        [=] __device__(long long v) {
            if (key[v] >= in_set) out[position[v]] = static_cast<I>(v);
        },
        where);
}

template <typename I>
void join_roots(const CudaExecutor& exec, const GraphView<I>& graph, const Array<Key>& keys,
                const Array<I>& positions, Array<I>& aggregate_of, Array<I>& level)
{
    const Key* key = keys.data();
    const I* position = positions.data();
    I* aggregate = aggregate_of.data();
    I* lvl = level.data();
    parallel_for(
        exec, graph.vertices,
        [=] __device__(long long v) { join_root(graph, key, position, aggregate, lvl, v); }, where);
}

template <typename I>
void join_neighbours(const CudaExecutor& exec, const GraphView<I>& graph, const Array<I>& level,
                     Array<I>& aggregate_of)
{
    const I* lvl = level.data();
    I* aggregate = aggregate_of.data();
    parallel_for(
        exec, graph.vertices,
        [=] __device__(long long v) {
            if (lvl[v] == 2) aggregate[v] = best_aggregate(graph, lvl, aggregate, v);
        },
        where);
}

template <typename I>
void map_indices(const CudaExecutor& exec, const Array<I>& map, Array<I>& indices)
{
    const I* to = map.data();
    I* index = indices.data();
    parallel_for(
        exec, indices.size(), [=] __device__(long long k) { index[k] = to[index[k]]; }, where);
}

#define LOOM_INSTANTIATE_MIS2_CUDA(I) LOOM_INSTANTIATE_MIS2_KERNELS(CudaExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MIS2_CUDA)

}  // namespace loom::graph::cuda
