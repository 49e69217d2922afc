// Reverse Cuthill-McKee on the host (include/loom/graph/rcm.hpp). The ordering is a
// breadth-first search whose every step depends on the previous one, so every backend shares
// this one sequential implementation: a device matrix's pattern comes to the host, and the
// permutation goes back.
#include "loom/graph/rcm.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "base/instantiate.hpp"
#include "graph/mis2/pattern.hpp"

namespace loom::graph {
namespace {

/// A host adjacency structure without self-loops: the neighbours of v are
/// cols[ptrs[v]] .. cols[ptrs[v + 1] - 1], sorted.
template <typename I>
struct Adjacency {
    std::vector<I> ptrs;
    std::vector<I> cols;

    size_type vertices() const { return static_cast<size_type>(ptrs.size()) - 1; }
    size_type degree(size_type v) const { return ptrs[v + 1] - ptrs[v]; }
};

/// A's pattern in host memory (the values are left behind, uninitialized).
template <typename V, typename I>
matrix::Csr<V, I> pattern_on_host(const matrix::Csr<V, I>& A)
{
    const auto host = ReferenceExecutor::create();
    matrix::Csr<V, I> result(host, A.size(), 0);
    result.row_ptrs() = Array<I>(host, A.row_ptrs());
    result.col_idxs() = Array<I>(host, A.col_idxs());
    result.values().resize_and_reset(A.nnz());
    return result;
}

template <typename V, typename I>
Adjacency<I> host_adjacency(const matrix::Csr<V, I>& A)
{
    const auto pattern = detail::symmetrized_pattern(pattern_on_host(A));
    const I* ptrs = pattern.row_ptrs().data();
    const I* cols = pattern.col_idxs().data();
    Adjacency<I> result;
    result.ptrs.reserve(A.rows() + 1);
    result.cols.reserve(pattern.nnz());
    result.ptrs.push_back(0);
    for (size_type v = 0; v < A.rows(); ++v) {
        for (auto k = ptrs[v]; k < ptrs[v + 1]; ++k) {
            if (cols[k] != v) result.cols.push_back(cols[k]);
        }
        result.ptrs.push_back(static_cast<I>(result.cols.size()));
    }
    return result;
}

/// Breadth-first searches over one graph, reusing their marks: every search stamps the
/// vertices it reaches with its own number, so none needs a reset.
template <typename I>
class Search {
public:
    explicit Search(const Adjacency<I>& graph) : graph_(graph), stamp_(graph.vertices(), 0) {}

    /// The vertices reached from `root` level by level; in each level, the neighbours of a
    /// vertex are taken by increasing degree, ties by index (Cuthill-McKee's order).
    /// `last_level` receives where the deepest level starts; returns the number of levels.
    int run(I root, std::vector<I>& order, size_type& last_level)
    {
        ++current_;
        order.clear();
        order.push_back(root);
        stamp_[root] = current_;
        int levels = 0;
        for (size_type begin = 0; begin < static_cast<size_type>(order.size());) {
            const size_type end = order.size();
            last_level = begin;
            ++levels;
            for (size_type i = begin; i < end; ++i) append_neighbours(order[i], order);
            begin = end;
        }
        return levels;
    }

private:
    void append_neighbours(I v, std::vector<I>& order)
    {
        const size_type first = order.size();
        for (auto k = graph_.ptrs[v]; k < graph_.ptrs[v + 1]; ++k) {
            const I u = graph_.cols[k];
            if (stamp_[u] == current_) continue;
            stamp_[u] = current_;
            order.push_back(u);
        }
        std::sort(order.begin() + first, order.end(), [&](I a, I b) {
            const auto da = graph_.degree(a);
            const auto db = graph_.degree(b);
            return da != db ? da < db : a < b;
        });
    }

    const Adjacency<I>& graph_;
    std::vector<unsigned> stamp_;
    unsigned current_ = 0;
};

/// George and Liu's pseudo-peripheral vertex of start's component: move to the lowest-degree
/// vertex of the deepest level while that deepens the level structure. `order` receives the
/// Cuthill-McKee order of the component from the vertex returned.
template <typename I>
I pseudo_peripheral(const Adjacency<I>& graph, Search<I>& search, I start, std::vector<I>& order)
{
    I root = start;
    size_type last_level = 0;
    int depth = search.run(root, order, last_level);
    for (;;) {
        const auto candidate =
            *std::min_element(order.begin() + last_level, order.end(), [&](I a, I b) {
                const auto da = graph.degree(a);
                const auto db = graph.degree(b);
                return da != db ? da < db : a < b;
            });
        std::vector<I> candidate_order;
        size_type candidate_last = 0;
        const int candidate_depth = search.run(candidate, candidate_order, candidate_last);
        if (candidate_depth <= depth) return root;
        root = candidate;
        depth = candidate_depth;
        order.swap(candidate_order);
        last_level = candidate_last;
    }
}

template <typename I>
std::vector<I> reverse_cuthill_mckee(const Adjacency<I>& graph)
{
    const size_type n = graph.vertices();
    // Components start from their lowest-degree vertex (ties by index).
    std::vector<I> starts(n);
    std::iota(starts.begin(), starts.end(), I{0});
    std::stable_sort(starts.begin(), starts.end(),
                     [&](I a, I b) { return graph.degree(a) < graph.degree(b); });
    std::vector<char> placed(n, 0);
    std::vector<I> result;
    result.reserve(n);
    Search<I> search(graph);
    std::vector<I> component;
    for (const I start : starts) {
        if (placed[start]) continue;
        pseudo_peripheral(graph, search, start, component);
        for (const I v : component) placed[v] = 1;
        result.insert(result.end(), component.begin(), component.end());
    }
    std::reverse(result.begin(), result.end());
    return result;
}

}  // namespace

template <typename V, typename I>
Array<I> rcm(const matrix::Csr<V, I>& A)
{
    detail::graph_executor("loom::graph::rcm", A);
    return Array<I>(A.executor(), reverse_cuthill_mckee(host_adjacency(A)));
}

template <typename V, typename I>
size_type bandwidth(const matrix::Csr<V, I>& A)
{
    const auto host = pattern_on_host(A);
    size_type result = 0;
    for (size_type r = 0; r < host.rows(); ++r) {
        for (auto k = host.row_ptrs()[r]; k < host.row_ptrs()[r + 1]; ++k) {
            result = std::max<size_type>(result, std::abs(r - host.col_idxs()[k]));
        }
    }
    return result;
}

template <typename V, typename I>
size_type profile(const matrix::Csr<V, I>& A)
{
    const auto host = pattern_on_host(A);
    size_type result = 0;
    for (size_type r = 0; r < host.rows(); ++r) {
        size_type lowest = r;
        for (auto k = host.row_ptrs()[r]; k < host.row_ptrs()[r + 1]; ++k) {
            lowest = std::min<size_type>(lowest, host.col_idxs()[k]);
        }
        result += r - lowest;
    }
    return result;
}

#define LOOM_INSTANTIATE_RCM(V, I)                          \
    template Array<I> rcm(const matrix::Csr<V, I>&);        \
    template size_type bandwidth(const matrix::Csr<V, I>&); \
    template size_type profile(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_RCM)

}  // namespace loom::graph
