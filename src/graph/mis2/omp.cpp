// OpenMP MIS-2: the round's decision (the per-vertex kernels are unified.hpp's). Every
// vertex's result depends on the previous state only (rules.hpp), so any schedule gives the
// reference's bits.
#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "graph/mis2/kernels.hpp"
#include "graph/mis2/unified.hpp"

namespace loom::graph::omp {

using namespace mis2_detail;

template <typename I>
size_type decide(const OmpExecutor& exec, const GraphView<I>& graph, const KeyLayout& layout,
                 int round, Array<Key>& keys, const Array<Key>& within_1, const Array<I>& undecided,
                 size_type count, Array<I>& next_undecided)
{
    Key* key = keys.data();
    const Key* in = within_1.data();
    const I* listed = undecided.data();
    loom::detail::parallel_for_uneven(
        exec, count,
        [&](size_type i) {
            const I v = listed[i];
            key[v] = next_key(layout, v, graph.row_ptrs[v + 1] - graph.row_ptrs[v], round,
                              key[v], largest_key(graph, in, v));
        },
        "loom::graph::mis2");
    // The compaction is a read of the list: far cheaper than the gathers, kept sequential.
    size_type kept = 0;
    for (size_type i = 0; i < count; ++i) {
        if (is_undecided(key[listed[i]])) next_undecided.data()[kept++] = listed[i];
    }
    return kept;
}

}  // namespace loom::graph::omp

namespace loom::graph {
#define LOOM_INSTANTIATE_MIS2_OMP(I) LOOM_INSTANTIATE_MIS2_BACKEND(omp, unified, OmpExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MIS2_OMP)
}  // namespace loom::graph
