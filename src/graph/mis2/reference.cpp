// Sequential MIS-2 kernels: plain loops over the vertices, the oracle for the other backends.
#include "base/instantiate.hpp"
#include "graph/mis2/kernels.hpp"

namespace loom::graph::reference {

using namespace mis2_detail;

template <typename I>
void initial_keys(const ReferenceExecutor&, const GraphView<I>& graph, const KeyLayout& layout,
                  Array<Key>& keys, Array<std::uint8_t>& active, Array<I>& undecided)
{
    for (size_type v = 0; v < graph.vertices; ++v) {
        keys.data()[v] = undecided_key(layout, v, graph.row_ptrs[v + 1] - graph.row_ptrs[v], 0);
        active.data()[v] = 1;
        undecided.data()[v] = static_cast<I>(v);
    }
}

template <typename I>
void max_within_1(const ReferenceExecutor&, const GraphView<I>& graph, const Array<Key>& keys,
                  Array<std::uint8_t>& active, Array<Key>& within_1)
{
    for (size_type v = 0; v < graph.vertices; ++v) {
        if (!active.data()[v]) continue;
        bool still_active = true;
        within_1.data()[v] = largest_key(graph, keys.data(), v, still_active);
        active.data()[v] = still_active;
    }
}

template <typename I>
size_type decide(const ReferenceExecutor&, const GraphView<I>& graph, const KeyLayout& layout,
                 int round, Array<Key>& keys, const Array<Key>& within_1, const Array<I>& undecided,
                 size_type count, Array<I>& next_undecided)
{
    size_type kept = 0;
    for (size_type i = 0; i < count; ++i) {
        const I v = undecided.data()[i];
        Key& key = keys.data()[v];
        key = next_key(layout, v, graph.row_ptrs[v + 1] - graph.row_ptrs[v], round, key,
                       largest_key(graph, within_1.data(), v));
        if (is_undecided(key)) next_undecided.data()[kept++] = v;
    }
    return kept;
}

template <typename I>
void set_flags(const ReferenceExecutor&, const Array<Key>& keys, Array<I>& flags)
{
    for (size_type v = 0; v < keys.size(); ++v) flags.data()[v] = keys.data()[v] >= in_set;
}

template <typename I>
void gather_set(const ReferenceExecutor&, const Array<Key>& keys, const Array<I>& positions,
                Array<I>& set)
{
    for (size_type v = 0; v < keys.size(); ++v) {
        if (keys.data()[v] >= in_set) set.data()[positions.data()[v]] = static_cast<I>(v);
    }
}

template <typename I>
void join_roots(const ReferenceExecutor&, const GraphView<I>& graph, const Array<Key>& keys,
                const Array<I>& positions, Array<I>& aggregate_of, Array<I>& level)
{
    for (size_type v = 0; v < graph.vertices; ++v) {
        join_root(graph, keys.data(), positions.data(), aggregate_of.data(), level.data(), v);
    }
}

template <typename I>
void join_neighbours(const ReferenceExecutor&, const GraphView<I>& graph, const Array<I>& level,
                     Array<I>& aggregate_of)
{
    for (size_type v = 0; v < graph.vertices; ++v) {
        if (level.data()[v] == 2) {
            aggregate_of.data()[v] = best_aggregate(graph, level.data(), aggregate_of.data(), v);
        }
    }
}

template <typename I>
void map_indices(const ReferenceExecutor&, const Array<I>& map, Array<I>& indices)
{
    for (size_type k = 0; k < indices.size(); ++k) {
        indices.data()[k] = map.data()[indices.data()[k]];
    }
}

}  // namespace loom::graph::reference

namespace loom::graph {
#define LOOM_INSTANTIATE_MIS2_REFERENCE(I) \
    LOOM_INSTANTIATE_MIS2_BACKEND(reference, reference, ReferenceExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MIS2_REFERENCE)
}  // namespace loom::graph
