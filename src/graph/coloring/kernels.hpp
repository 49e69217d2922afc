// Per-backend entry points of graph coloring (include/loom/graph/coloring.hpp), declared once
// with the same signature for every backend. coloring.cpp checks the arguments, symmetrizes
// the graph, runs `greedy` on the host, and hands the kernels raw patterns on their executor.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/graph/coloring.hpp"
#include "base/dispatch.hpp"

namespace loom::graph::coloring_detail {

/// A CSR pattern on a kernel's executor: row r lists cols[row_ptrs[r] .. row_ptrs[r+1]).
/// Trivially copyable, so that device lambdas capture it by value.
template <typename I>
struct Adjacency {
    size_type rows = 0;
    const I* row_ptrs = nullptr;
    const I* cols = nullptr;
};

/// What a kernel did: the algorithm it ran (`automatic` resolved), the number of colors (the
/// largest color plus one) and the rounds.
struct ColoringRun {
    ColoringAlgorithm algorithm = ColoringAlgorithm::automatic;
    size_type num_colors = 0;
    int rounds = 0;
};

/// Marks a vertex without a color (colors are >= 0).
inline constexpr int uncolored = -1;

}  // namespace loom::graph::coloring_detail

// graph: symmetric, rows >= 1, self-loops and duplicates allowed. colors: graph.rows entries,
// every one written. algorithm: automatic or one that colors at distance 1 (never greedy on
// omp and cuda, which coloring.cpp runs on the host; the reference backend runs greedy for
// any algorithm). Distance 2: vertex u must differ from every member of every net of u, the
// nets of u being the columns of row u of `nets` (and u itself when self_net), the members of
// net c the columns of row c of `members`. Distance-2 coloring of a symmetric G passes
// nets = members = G and self_net; bipartite coloring of A passes nets = A, members = A^T.
#define LOOM_DECLARE_COLORING_KERNELS(Exec)                                                        \
    template <typename I>                                                                          \
    coloring_detail::ColoringRun color_distance1(const Exec& exec, ColoringAlgorithm algorithm,    \
                                                 coloring_detail::Adjacency<I> graph, I* colors);  \
    template <typename I>                                                                          \
    coloring_detail::ColoringRun color_distance2(                                                  \
        const Exec& exec, ColoringAlgorithm algorithm, coloring_detail::Adjacency<I> nets,         \
        coloring_detail::Adjacency<I> members, bool self_net, I* colors);                          \
    /* Up to `passes` iterated-greedy passes over a valid distance-1 coloring with       */        \
    /* num_colors colors, stopping once a pass saves none; returns the colors then used  */        \
    template <typename I>                                                                          \
    size_type recolor_distance1(const Exec& exec, coloring_detail::Adjacency<I> graph, int passes, \
                                I* colors, size_type num_colors);                                  \
    /* Colors 0 and 1 for the two sides of a bipartite graph (sides.hpp); returns the    */        \
    /* colors used (1 without edges), or 0, with colors unspecified, when the graph has  */        \
    /* an odd cycle or 2 * graph.rows does not fit I                                     */        \
    template <typename I>                                                                          \
    size_type color_sides(const Exec& exec, coloring_detail::Adjacency<I> graph, I* colors)

#define LOOM_INSTANTIATE_COLORING_KERNELS(Exec, I)                                            \
    template coloring_detail::ColoringRun color_distance1(const Exec&, ColoringAlgorithm,     \
                                                          coloring_detail::Adjacency<I>, I*); \
    template coloring_detail::ColoringRun color_distance2(                                    \
        const Exec&, ColoringAlgorithm, coloring_detail::Adjacency<I>,                        \
        coloring_detail::Adjacency<I>, bool, I*);                                             \
    template size_type recolor_distance1(const Exec&, coloring_detail::Adjacency<I>, int, I*, \
                                         size_type);                                          \
    template size_type color_sides(const Exec&, coloring_detail::Adjacency<I>, I*);

LOOM_DECLARE_ON_EACH_BACKEND(loom::graph, LOOM_DECLARE_COLORING_KERNELS)
namespace loom::graph::cuda {
/// cuSPARSE's csrcolor (at the end of cuda.cu); 32-bit indices.
coloring_detail::ColoringRun color_vendor(const CudaExecutor& exec,
                                          coloring_detail::Adjacency<int32> graph, int32* colors);
/// color_vendor on a copy of the graph without self-loops (what csrcolor is given).
coloring_detail::ColoringRun color_vendor_without_self_loops(
    const CudaExecutor& exec, coloring_detail::Adjacency<int32> graph, int32* colors);
}  // namespace loom::graph::cuda
