// The two sides of a bipartite graph as colors 0 and 1 (`bipartition`): the red-black
// ordering of 5- and 7-point stencils, where the speculative algorithms stop at 4-6 colors
// (NOTES.md). Found in parallel, with no rounds, by union-find on the graph's bipartite
// double cover: every vertex u has a copy u' = u + n, and every edge (u, v) joins u with v'
// and u' with v. A connected graph is bipartite exactly when its cover falls into two
// components, one holding each side's originals and the other side's copies; an odd cycle
// joins u with u' instead. So u's side is which of u and u' has the smaller root, and the
// graph has an odd cycle as soon as one vertex shares its root with its copy.
//
// The forest is the lock-free one of connected-components codes (ECL-CC): a root is hooked
// under the smaller root by compare-and-swap, so a parent is never larger than its child and
// no cycle can form; finding a root halves the path on the way with plain stores (a stale
// halving only points a vertex at another of its ancestors).
#pragma once

#include <atomic>
#include <limits>
#include <vector>

#include "graph/coloring/kernels.hpp"
#include "loom/launch/macros.hpp"

namespace loom::graph::coloring_detail {

/// Whether the cover's 2n vertices have ids in I.
template <typename I>
constexpr bool cover_fits(size_type n)
{
    return n <= static_cast<size_type>(std::numeric_limits<I>::max() / 2);
}

/// Host atomics on the forest's parents (relaxed: each parent only ever moves to an ancestor,
/// and the hooks are compare-and-swaps on one location).
struct HostAtomics {
    template <typename I>
    I load(I* at) const
    {
        return std::atomic_ref<I>(*at).load(std::memory_order_relaxed);
    }
    template <typename I>
    void store(I* at, I value) const
    {
        std::atomic_ref<I>(*at).store(value, std::memory_order_relaxed);
    }
    template <typename I>
    bool swap_if(I* at, I expected, I desired) const
    {
        return std::atomic_ref<I>(*at).compare_exchange_strong(expected, desired,
                                                               std::memory_order_relaxed);
    }
};

/// The union-find forest of the double cover: parents[x] for its 2n vertices, at first x.
/// Atomics gives load(at), store(at, value) and swap_if(at, expected, desired) (host or
/// device).
template <typename I, typename Atomics>
struct CoverForest {
    I* parents;
    I n;
    Atomics atomics;

    LOOM_HOST_DEVICE I root(I x) const
    {
        for (;;) {
            const I parent = atomics.load(parents + x);
            if (parent == x) return x;
            const I grandparent = atomics.load(parents + parent);
            // A plain store: only roots are ever hooked, and x is none; a racing halving
            // stores another ancestor of x, which is as good.
            if (grandparent != parent) atomics.store(parents + x, grandparent);
            x = grandparent;
        }
    }

    LOOM_HOST_DEVICE void unite(I a, I b) const
    {
        for (;;) {
            a = root(a);
            b = root(b);
            if (a == b) return;
            if (a < b) {
                const I larger = b;
                b = a;
                a = larger;
            }
            if (atomics.swap_if(parents + a, a, b)) return;  // else a got hooked meanwhile
        }
    }

    /// The edge (u, v) of the graph: u with v', u' with v.
    LOOM_HOST_DEVICE void join(I u, I v) const
    {
        unite(u, v + n);
        unite(u + n, v);
    }

    /// u's side (0 or 1) once every edge is joined; -1 when u lies in a component with an
    /// odd cycle (u and u' are joined).
    LOOM_HOST_DEVICE I side(I u) const
    {
        const I original = root(u);
        const I copy = root(u + n);
        if (original == copy) return -1;
        return original < copy ? 0 : 1;
    }
};

/// The sides on the host: for_range(begin, end, f) calls f(i) for i in [begin, end),
/// sequentially or in parallel. Returns the colors used (1 when no edge joins two vertices),
/// or 0 when the graph has an odd cycle or too many vertices for the cover's ids in I (then
/// colors holds nothing useful).
template <typename I, typename ForRange>
size_type color_sides_on_host(Adjacency<I> graph, I* colors, ForRange&& for_range)
{
    const size_type n = graph.rows;
    if (!cover_fits<I>(n)) return 0;
    std::vector<I> parents(2 * n);
    for_range(0, 2 * n, [&](size_type x) { parents[x] = static_cast<I>(x); });
    const CoverForest<I, HostAtomics> forest{parents.data(), static_cast<I>(n), {}};
    std::atomic<bool> edges{false};
    // Each edge once (the graph is symmetric): from its smaller end.
    for_range(0, n, [&](size_type u) {
        for (I k = graph.row_ptrs[u]; k < graph.row_ptrs[u + 1]; ++k) {
            const I v = graph.cols[k];
            if (v <= static_cast<I>(u)) continue;
            forest.join(static_cast<I>(u), v);
            if (!edges.load(std::memory_order_relaxed))
                edges.store(true, std::memory_order_relaxed);
        }
    });
    std::atomic<bool> odd{false};
    for_range(0, n, [&](size_type u) {
        colors[u] = forest.side(static_cast<I>(u));
        if (colors[u] < 0) odd.store(true, std::memory_order_relaxed);
    });
    if (odd.load()) return 0;
    return edges.load() ? 2 : 1;
}

}  // namespace loom::graph::coloring_detail
