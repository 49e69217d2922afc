// OpenMP MIS-2 kernels: the reference's loops split over the threads. Every vertex's result
// depends on the previous state only (rules.hpp), so any schedule gives the reference's bits.
#include <omp.h>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "graph/mis2/kernels.hpp"

namespace loom::graph::omp {

using namespace mis2_detail;
using loom::omp::parallel_for;

namespace {

/// Vertices handed out at a time where rows may differ much in length.
constexpr size_type vertex_chunk = 512;

/// f(v) for every vertex, dynamically scheduled: a long row does not hold up a static share.
template <typename F>
void for_each_vertex(const OmpExecutor& exec, size_type vertices, F&& f)
{
#pragma omp parallel for schedule(dynamic, vertex_chunk) num_threads(exec.num_threads())
    for (size_type v = 0; v < vertices; ++v) f(v);
}

}  // namespace

template <typename I>
void initial_keys(const OmpExecutor& exec, const GraphView<I>& graph, const KeyLayout& layout,
                  Array<Key>& keys, Array<std::uint8_t>& active, Array<I>& undecided)
{
    Key* key = keys.data();
    std::uint8_t* is_active = active.data();
    I* listed = undecided.data();
    parallel_for(exec, graph.vertices, [&](size_type v) {
        key[v] = undecided_key(layout, v, graph.row_ptrs[v + 1] - graph.row_ptrs[v], 0);
        is_active[v] = 1;
        listed[v] = static_cast<I>(v);
    });
}

template <typename I>
void max_within_1(const OmpExecutor& exec, const GraphView<I>& graph, const Array<Key>& keys,
                  Array<std::uint8_t>& active, Array<Key>& within_1)
{
    const Key* key = keys.data();
    std::uint8_t* is_active = active.data();
    Key* out = within_1.data();
    for_each_vertex(exec, graph.vertices, [&](size_type v) {
        if (!is_active[v]) return;
        bool still_active = true;
        out[v] = largest_key(graph, key, v, still_active);
        is_active[v] = still_active;
    });
}

template <typename I>
size_type decide(const OmpExecutor& exec, const GraphView<I>& graph, const KeyLayout& layout,
                 int round, Array<Key>& keys, const Array<Key>& within_1, const Array<I>& undecided,
                 size_type count, Array<I>& next_undecided)
{
    Key* key = keys.data();
    const Key* in = within_1.data();
    const I* listed = undecided.data();
    for_each_vertex(exec, count, [&](size_type i) {
        const I v = listed[i];
        key[v] = next_key(layout, v, graph.row_ptrs[v + 1] - graph.row_ptrs[v], round, key[v],
                          largest_key(graph, in, v));
    });
    // The compaction is a read of the list: far cheaper than the gathers, kept sequential.
    size_type kept = 0;
    for (size_type i = 0; i < count; ++i) {
        if (is_undecided(key[listed[i]])) next_undecided.data()[kept++] = listed[i];
    }
    return kept;
}

template <typename I>
void set_flags(const OmpExecutor& exec, const Array<Key>& keys, Array<I>& flags)
{
    const Key* key = keys.data();
    I* flag = flags.data();
    parallel_for(exec, keys.size(), [&](size_type v) { flag[v] = key[v] >= in_set; });
}

template <typename I>
void gather_set(const OmpExecutor& exec, const Array<Key>& keys, const Array<I>& positions,
                Array<I>& set)
{
    const Key* key = keys.data();
    const I* position = positions.data();
    I* out = set.data();
    parallel_for(exec, keys.size(), [&](size_type v) {
        if (key[v] >= in_set) out[position[v]] = static_cast<I>(v);
    });
}

template <typename I>
void join_roots(const OmpExecutor& exec, const GraphView<I>& graph, const Array<Key>& keys,
                const Array<I>& positions, Array<I>& aggregate_of, Array<I>& level)
{
    const Key* key = keys.data();
    const I* position = positions.data();
    I* aggregate = aggregate_of.data();
    I* lvl = level.data();
    for_each_vertex(exec, graph.vertices,
                    [&](size_type v) { join_root(graph, key, position, aggregate, lvl, v); });
}

template <typename I>
void join_neighbours(const OmpExecutor& exec, const GraphView<I>& graph, const Array<I>& level,
                     Array<I>& aggregate_of)
{
    const I* lvl = level.data();
    I* aggregate = aggregate_of.data();
    for_each_vertex(exec, graph.vertices, [&](size_type v) {
        if (lvl[v] == 2) aggregate[v] = best_aggregate(graph, lvl, aggregate, v);
    });
}

template <typename I>
void map_indices(const OmpExecutor& exec, const Array<I>& map, Array<I>& indices)
{
    const I* to = map.data();
    I* index = indices.data();
    parallel_for(exec, indices.size(), [&](size_type k) { index[k] = to[index[k]]; });
}

#define LOOM_INSTANTIATE_MIS2_OMP(I) LOOM_INSTANTIATE_MIS2_KERNELS(OmpExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MIS2_OMP)

}  // namespace loom::graph::omp
