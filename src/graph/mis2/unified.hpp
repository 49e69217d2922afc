// The per-vertex MIS-2 kernels, written once for OpenMP and CUDA on the unified launchers
// (base/parallel.hpp) and declared in kernels.hpp: omp.cpp and cuda.cu include this header
// and instantiate them. Each applies the rules of rules.hpp to one vertex from the previous
// state only, so any schedule gives the reference's bits. Loops over rows of the graph use
// parallel_for_uneven (OpenMP hands vertices out dynamically: a long row does not hold up a
// static share).
#pragma once

#include "base/array_kernels.hpp"
#include "base/parallel.hpp"
#include "graph/mis2/kernels.hpp"

namespace loom::graph::unified {

using namespace mis2_detail;

inline constexpr const char* mis2_where = "loom::graph::mis2";

template <typename Exec, typename I>
void initial_keys(const Exec& exec, const GraphView<I>& graph, const KeyLayout& layout,
                  Array<Key>& keys, Array<std::uint8_t>& active, Array<I>& undecided)
{
    Key* key = keys.data();
    std::uint8_t* is_active = active.data();
    I* listed = undecided.data();
    const I* row_ptrs = graph.row_ptrs;
    loom::detail::parallel_for(
        exec, graph.vertices,
        [=] LOOM_HOST_DEVICE(size_type v) {
            key[v] = undecided_key(layout, v, row_ptrs[v + 1] - row_ptrs[v], 0);
            is_active[v] = 1;
            listed[v] = static_cast<I>(v);
        },
        mis2_where);
}

template <typename Exec, typename I>
void max_within_1(const Exec& exec, const GraphView<I>& graph, const Array<Key>& keys,
                  Array<std::uint8_t>& active, Array<Key>& within_1)
{
    const Key* key = keys.data();
    std::uint8_t* is_active = active.data();
    Key* out = within_1.data();
    const GraphView<I> g = graph;
    loom::detail::parallel_for_uneven(
        exec, graph.vertices,
        [=] LOOM_HOST_DEVICE(size_type v) {
            if (!is_active[v]) return;
            bool still_active = true;
            out[v] = largest_key(g, key, v, still_active);
            if (!still_active) is_active[v] = 0;
        },
        mis2_where);
}

template <typename Exec, typename I>
void set_flags(const Exec& exec, const Array<Key>& keys, Array<I>& flags)
{
    const Key* key = keys.data();
    I* flag = flags.data();
    loom::detail::parallel_for(
        exec, keys.size(), [=] LOOM_HOST_DEVICE(size_type v) { flag[v] = key[v] >= in_set; },
        mis2_where);
}

template <typename Exec, typename I>
void gather_set(const Exec& exec, const Array<Key>& keys, const Array<I>& positions, Array<I>& set)
{
    const Key* key = keys.data();
    const I* position = positions.data();
    I* out = set.data();
    loom::detail::parallel_for(
        exec, keys.size(),
        [=] LOOM_HOST_DEVICE(size_type v) {
            if (key[v] >= in_set) out[position[v]] = static_cast<I>(v);
        },
        mis2_where);
}

template <typename Exec, typename I>
void join_roots(const Exec& exec, const GraphView<I>& graph, const Array<Key>& keys,
                const Array<I>& positions, Array<I>& aggregate_of, Array<I>& level)
{
    const Key* key = keys.data();
    const I* position = positions.data();
    I* aggregate = aggregate_of.data();
    I* lvl = level.data();
    const GraphView<I> g = graph;
    loom::detail::parallel_for_uneven(
        exec, graph.vertices,
        [=] LOOM_HOST_DEVICE(size_type v) { join_root(g, key, position, aggregate, lvl, v); },
        mis2_where);
}

template <typename Exec, typename I>
void join_neighbours(const Exec& exec, const GraphView<I>& graph, const Array<I>& level,
                     Array<I>& aggregate_of)
{
    const I* lvl = level.data();
    I* aggregate = aggregate_of.data();
    const GraphView<I> g = graph;
    loom::detail::parallel_for_uneven(
        exec, graph.vertices,
        [=] LOOM_HOST_DEVICE(size_type v) {
            if (lvl[v] == 2) aggregate[v] = best_aggregate(g, lvl, aggregate, v);
        },
        mis2_where);
}

template <typename Exec, typename I>
void map_indices(const Exec& exec, const Array<I>& map, Array<I>& indices)
{
    array_kernels::gather(exec, map, indices, indices, mis2_where);
}

}  // namespace loom::graph::unified
