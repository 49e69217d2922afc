// Reference coloring: sequential greedy first fit in vertex order, for every algorithm (the
// speculative algorithms are parallel schemes that reduce to it on one thread). Each vertex
// takes the smallest color none of its already colored neighbours holds.
#include <algorithm>

#include "base/instantiate.hpp"
#include "graph/coloring/kernels.hpp"
#include "graph/coloring/sides.hpp"
#include "graph/coloring/speculative.hpp"

namespace loom::graph::reference {
namespace {

using coloring_detail::ColoringRun;

template <typename I, typename Neighbourhood>
ColoringRun greedy(const Neighbourhood& around, size_type n, I* colors)
{
    std::fill(colors, colors + n, I{coloring_detail::uncolored});
    coloring_detail::ForbiddenColors forbidden;
    I largest = -1;
    for (size_type u = 0; u < n; ++u) {
        colors[u] = forbidden.first_fit(around, static_cast<I>(u), [&](I v) { return colors[v]; });
        largest = std::max(largest, colors[u]);
    }
    return {ColoringAlgorithm::greedy, size_type{largest} + 1, 1};
}

}  // namespace

template <typename I>
coloring_detail::ColoringRun color_distance1(const ReferenceExecutor&, ColoringAlgorithm,
                                             coloring_detail::Adjacency<I> graph, I* colors)
{
    return greedy(coloring_detail::Distance1<I>{graph}, graph.rows, colors);
}

template <typename I>
coloring_detail::ColoringRun color_distance2(const ReferenceExecutor&, ColoringAlgorithm,
                                             coloring_detail::Adjacency<I> nets,
                                             coloring_detail::Adjacency<I> members, bool self_net,
                                             I* colors)
{
    return greedy(coloring_detail::Distance2<I>{nets, members, self_net}, nets.rows, colors);
}

template <typename I>
size_type recolor_distance1(const ReferenceExecutor&, coloring_detail::Adjacency<I> graph,
                            int passes, I* colors, size_type num_colors)
{
    return coloring_detail::iterated_greedy(graph, passes, colors, num_colors,
                                            [](size_type begin, size_type end, auto&& f) {
                                                for (size_type i = begin; i < end; ++i) f(i);
                                            });
}

template <typename I>
size_type color_sides(const ReferenceExecutor&, coloring_detail::Adjacency<I> graph, I* colors)
{
    return coloring_detail::color_sides_on_host(graph, colors,
                                                [](size_type begin, size_type end, auto&& f) {
                                                    for (size_type i = begin; i < end; ++i) f(i);
                                                });
}

#define LOOM_INSTANTIATE(I) LOOM_INSTANTIATE_COLORING_KERNELS(ReferenceExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::graph::reference
