// MIS-2 and its aggregation: argument checks, the rounds, result sizing and backend dispatch.
#include "loom/graph/mis2.hpp"

#include <cstdint>
#include <optional>
#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "graph/mis2/kernels.hpp"
#include "graph/mis2/pattern.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/sparse/csr_utils.hpp"

namespace loom::graph {
namespace {

using mis2_detail::GraphView;
using mis2_detail::Key;

/// The graph the set is taken on: A's pattern when promised symmetric, else its symmetrized
/// copy, which this object owns.
template <typename V, typename I>
class Graph {
public:
    Graph(const matrix::Csr<V, I>& A, bool symmetric)
    {
        if (!symmetric) symmetrized_ = detail::symmetrized_pattern(A);
        const auto& pattern = symmetrized_ ? *symmetrized_ : A;
        view_ = {pattern.rows(), pattern.row_ptrs().data(), pattern.col_idxs().data()};
    }
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    const GraphView<I>& view() const noexcept { return view_; }

private:
    std::optional<matrix::Csr<V, I>> symmetrized_;
    GraphView<I> view_{};
};

/// Every vertex's final key (in the set or removed): rounds of "largest key within distance
/// 2, taken as two distance-1 maxima" until no vertex is undecided. The undecided vertex with
/// the largest key overall joins in every round, so the rounds end. Vertices whose
/// neighbourhood is decided drop out of the first maximum; the second maximum, taken by each
/// undecided vertex for itself, and its decision run over a list of the undecided vertices
/// (one kernel): late rounds touch few rows.
template <typename I>
Array<Key> final_keys(const char* where, const Executor& exec, const GraphView<I>& graph,
                      Mis2Mode mode)
{
    const auto shared = exec.shared_from_this();
    Array<Key> keys(shared, graph.vertices);
    Array<Key> within_1(shared, graph.vertices);
    Array<std::uint8_t> active(shared, graph.vertices);
    Array<I> undecided(shared, graph.vertices);
    Array<I> next_undecided(shared, graph.vertices);
    const auto layout = mis2_detail::key_layout(graph.vertices, mode);
    if (graph.vertices == 0) return keys;
    LOOM_RUN_KERNEL(where, exec, initial_keys, graph, layout, keys, active, undecided);
    size_type count = graph.vertices;
    for (int round = 0; count > 0; ++round) {
        LOOM_RUN_KERNEL(where, exec, max_within_1, graph, keys, active, within_1);
        count = LOOM_RUN_KERNEL(where, exec, decide, graph, layout, round, keys, within_1,
                                undecided, count, next_undecided);
        undecided.swap(next_undecided);
    }
    return keys;
}

/// The MIS-2 of A's graph: the graph it is taken on, every vertex's final key, and every set
/// vertex's rank among the set vertices (vertices + 1 entries; the last is the set's size).
template <typename V, typename I>
struct IndependentSet {
    IndependentSet(const char* where, const matrix::Csr<V, I>& A, const Mis2Options& options)
        : where(where),
          exec(detail::graph_executor(where, A)),
          graph(A, options.symmetric),
          keys(final_keys(where, exec, graph.view(), options.mode)),
          positions(exec.shared_from_this(), keys.size() + 1)
    {
        LOOM_RUN_KERNEL(where, exec, set_flags, keys, positions);
        loom::detail::exclusive_prefix_sum(positions);
    }

    /// The set's vertices, increasing.
    Array<I> vertices() const
    {
        Array<I> set(exec.shared_from_this(), loom::detail::load_element(positions, keys.size()));
        LOOM_RUN_KERNEL(where, exec, gather_set, keys, positions, set);
        return set;
    }

    const char* where;
    const Executor& exec;
    Graph<V, I> graph;
    Array<Key> keys;
    Array<I> positions;
};

}  // namespace

Mis2Mode parse_mis2_mode(const std::string& text)
{
    return names_of(Mis2Mode{}).parse(text, "loom::graph::parse_mis2_mode");
}

template <typename V, typename I>
Array<I> mis2(const matrix::Csr<V, I>& A, const Mis2Options& options)
{
    return IndependentSet<V, I>("loom::graph::mis2", A, options).vertices();
}

template <typename V, typename I>
Aggregation<I> mis2_aggregation(const matrix::Csr<V, I>& A, const Mis2Options& options)
{
    constexpr const char* where = "loom::graph::mis2_aggregation";
    const IndependentSet<V, I> set(where, A, options);
    Aggregation<I> result{Array<I>(A.executor(), A.rows()), set.vertices()};
    Array<I> level(A.executor(), A.rows());
    LOOM_RUN_KERNEL(where, set.exec, join_roots, set.graph.view(), set.keys, set.positions,
                    result.aggregate_of, level);
    LOOM_RUN_KERNEL(where, set.exec, join_neighbours, set.graph.view(), level, result.aggregate_of);
    return result;
}

template <typename V, typename I>
matrix::Csr<V, I> coarse_graph(const matrix::Csr<V, I>& A, const Aggregation<I>& aggregation)
{
    constexpr const char* where = "loom::graph::coarse_graph";
    const auto& exec = detail::graph_executor(where, A);
    const auto& aggregate_of = aggregation.aggregate_of;
    if (aggregate_of.size() != A.rows()) {
        throw BadInput(where, "the aggregation has " + std::to_string(aggregate_of.size()) +
                                  " vertices, the matrix " + std::to_string(A.rows()));
    }
    if (!aggregate_of.executor() || !aggregate_of.executor()->same_memory_as(exec)) {
        throw BadInput(where,
                       "the aggregation must live in A's memory (A is on " + exec.name() + ")");
    }
    // Every entry (i, j, a) becomes (aggregate_of[i], aggregate_of[j], a); converting to CSR
    // keeps the entries in order and merging sums the duplicates in that order.
    auto entries = matrix::to_coo(A);
    matrix::Coo<V, I> coarse(A.executor(), dim2{aggregation.count(), aggregation.count()});
    LOOM_RUN_KERNEL(where, exec, map_indices, aggregate_of, entries.row_idxs());
    LOOM_RUN_KERNEL(where, exec, map_indices, aggregate_of, entries.col_idxs());
    coarse.row_idxs() = std::move(entries.row_idxs());
    coarse.col_idxs() = std::move(entries.col_idxs());
    coarse.values() = std::move(entries.values());
    auto result = matrix::to_csr(coarse);
    sparse::merge_duplicates(result);
    return result;
}

#define LOOM_INSTANTIATE_MIS2(V, I)                                                         \
    template Array<I> mis2(const matrix::Csr<V, I>&, const Mis2Options&);                   \
    template Aggregation<I> mis2_aggregation(const matrix::Csr<V, I>&, const Mis2Options&); \
    template matrix::Csr<V, I> coarse_graph(const matrix::Csr<V, I>&, const Aggregation<I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MIS2)

}  // namespace loom::graph
