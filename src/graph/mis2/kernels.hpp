// Per-backend entry points of MIS-2 and its aggregation (include/loom/graph/mis2.hpp),
// declared once with the same signature for every backend. mis2.cpp symmetrizes the graph,
// runs the rounds and sizes the results; the kernels apply the rules of rules.hpp to every
// vertex. They depend on the index type only: values play no part in a graph.
#pragma once

#include <cstdint>

#include "graph/mis2/rules.hpp"
#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "base/dispatch.hpp"

/* The per-vertex kernels: Exec is the backend's executor, or a template parameter (given in
   the extra template parameters) where OpenMP and CUDA share them (unified.hpp) */
#define LOOM_DECLARE_MIS2_VERTEX_KERNELS(Exec, ...)                                            \
    /* round 0: keys[v] = undecided_key(v, 0), active[v] = 1 and undecided[v] = v for     */  \
    /* every vertex                                                                       */  \
    template <__VA_ARGS__ typename I>                                                          \
    void initial_keys(const Exec& exec, const mis2_detail::GraphView<I>& graph,               \
                      const mis2_detail::KeyLayout& layout, Array<mis2_detail::Key>& keys,     \
                      Array<std::uint8_t>& active, Array<I>& undecided);                       \
    /* within_1[v] = max of keys over v and its neighbours, for every active v; clears    */  \
    /* active[v] where that neighbourhood holds no undecided key                          */  \
    template <__VA_ARGS__ typename I>                                                          \
    void max_within_1(const Exec& exec, const mis2_detail::GraphView<I>& graph,               \
                      const Array<mis2_detail::Key>& keys, Array<std::uint8_t>& active,        \
                      Array<mis2_detail::Key>& within_1);                                      \
    /* flags[v] = 1 for set vertices, 0 for others (vertices + 1 entries, the last left) */     \
    template <__VA_ARGS__ typename I>                                                          \
    void set_flags(const Exec& exec, const Array<mis2_detail::Key>& keys, Array<I>& flags);    \
    /* set[positions[v]] = v for every set vertex (positions: the scanned flags) */             \
    template <__VA_ARGS__ typename I>                                                          \
    void gather_set(const Exec& exec, const Array<mis2_detail::Key>& keys,                     \
                    const Array<I>& positions, Array<I>& set);                                 \
    /* roots: aggregate_of[v] = positions[v], level 0; a vertex adjacent to a root: that   */  \
    /* root's aggregate (the lowest one if several), level 1; others -1, level 2           */  \
    template <__VA_ARGS__ typename I>                                                          \
    void join_roots(const Exec& exec, const mis2_detail::GraphView<I>& graph,                  \
                    const Array<mis2_detail::Key>& keys, const Array<I>& positions,            \
                    Array<I>& aggregate_of, Array<I>& level);                                  \
    /* every level-2 vertex: the aggregate it has most edges to among its level-0/1       */  \
    /* neighbours (ties: the lowest id); reads level-0/1 entries only, writes level-2 ones */  \
    template <__VA_ARGS__ typename I>                                                          \
    void join_neighbours(const Exec& exec, const mis2_detail::GraphView<I>& graph,             \
                         const Array<I>& level, Array<I>& aggregate_of);                       \
    /* indices[k] = map[indices[k]] */                                                          \
    template <__VA_ARGS__ typename I>                                                          \
    void map_indices(const Exec& exec, const Array<I>& map, Array<I>& indices)

/* The round's decision and its compaction of the undecided list, written per backend */
#define LOOM_DECLARE_MIS2_DECIDE(Exec)                                                         \
    /* for the vertices v listed in undecided[0, count): keys[v] = next_key(v, round,      */ \
    /* keys[v], max of within_1 over v and its neighbours (the largest key within         */ \
    /* distance 2)); lists those still undecided in next_undecided (any order) and        */ \
    /* returns how many                                                                   */ \
    template <typename I>                                                                      \
    size_type decide(const Exec& exec, const mis2_detail::GraphView<I>& graph,                \
                     const mis2_detail::KeyLayout& layout, int round,                          \
                     Array<mis2_detail::Key>& keys, const Array<mis2_detail::Key>& within_1,   \
                     const Array<I>& undecided, size_type count, Array<I>& next_undecided)

#define LOOM_INSTANTIATE_MIS2_VERTEX_KERNELS(ns, Exec, I)                                     \
    template void ns::initial_keys(const Exec&, const mis2_detail::GraphView<I>&,             \
                                   const mis2_detail::KeyLayout&, Array<mis2_detail::Key>&,    \
                                   Array<std::uint8_t>&, Array<I>&);                           \
    template void ns::max_within_1(const Exec&, const mis2_detail::GraphView<I>&,             \
                                   const Array<mis2_detail::Key>&, Array<std::uint8_t>&,       \
                                   Array<mis2_detail::Key>&);                                  \
    template void ns::set_flags(const Exec&, const Array<mis2_detail::Key>&, Array<I>&);      \
    template void ns::gather_set(const Exec&, const Array<mis2_detail::Key>&, const Array<I>&, \
                                 Array<I>&);                                                   \
    template void ns::join_roots(const Exec&, const mis2_detail::GraphView<I>&,               \
                                 const Array<mis2_detail::Key>&, const Array<I>&, Array<I>&,   \
                                 Array<I>&);                                                   \
    template void ns::join_neighbours(const Exec&, const mis2_detail::GraphView<I>&,          \
                                      const Array<I>&, Array<I>&);                             \
    template void ns::map_indices(const Exec&, const Array<I>&, Array<I>&);

#define LOOM_INSTANTIATE_MIS2_DECIDE(ns, Exec, I)                                              \
    template size_type ns::decide(const Exec&, const mis2_detail::GraphView<I>&,              \
                                  const mis2_detail::KeyLayout&, int, Array<mis2_detail::Key>&, \
                                  const Array<mis2_detail::Key>&, const Array<I>&, size_type,  \
                                  Array<I>&);

/* A backend's kernels: decide its own, the per-vertex ones from `vertex_ns` */
#define LOOM_INSTANTIATE_MIS2_BACKEND(ns, vertex_ns, Exec, I)                                  \
    LOOM_INSTANTIATE_MIS2_DECIDE(ns, Exec, I)                                                  \
    LOOM_INSTANTIATE_MIS2_VERTEX_KERNELS(vertex_ns, Exec, I)

LOOM_DECLARE_ON_EACH_BACKEND_UNIFIED(loom::graph, LOOM_DECLARE_MIS2_DECIDE,
                                     LOOM_DECLARE_MIS2_VERTEX_KERNELS)
