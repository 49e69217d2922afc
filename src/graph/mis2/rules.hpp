// The per-vertex rules of MIS-2, written once for every backend: the backends differ only in
// how they loop over vertices, so they take the same decisions and give the same set.
//
// Every vertex carries a 64-bit key. Keys order the states removed < undecided < in the set,
// and undecided keys among themselves by priority, then vertex id, so no two are equal:
//     in the set   1 0 ...                        (bit 63)
//     undecided    0 1 [priority] [vertex id]     (bit 62, then priority_bits, id_bits)
//     removed      0 0 ...                        (0)
#pragma once

#include <cstdint>

#include "loom/graph/mis2.hpp"
#include "loom/launch/macros.hpp"

namespace loom::graph::mis2_detail {

using Key = std::uint64_t;

inline constexpr Key in_set = Key{1} << 63;
inline constexpr Key undecided = Key{1} << 62;
inline constexpr Key removed = 0;

/// How an undecided key splits its 62 low bits: the vertex id in the lowest id_bits; above
/// it, in quality mode, the degree rank (low degree first) in degree_bits, then the hash.
struct KeyLayout {
    int id_bits;
    int degree_bits;  ///< 0 in fast mode
    int hash_bits;
};

/// The layout for `vertices` vertices (set up on the host).
inline KeyLayout key_layout(size_type vertices, Mis2Mode mode)
{
    int id_bits = 1;
    while (id_bits < 62 && (size_type{1} << id_bits) < vertices) ++id_bits;
    const int priority_bits = 62 - id_bits;
    const int degree_bits =
        mode == Mis2Mode::quality ? (priority_bits < 10 ? priority_bits : 10) : 0;
    return {id_bits, degree_bits, priority_bits - degree_bits};
}

/// SplitMix64's finalizer: a fixed bijection that scatters consecutive ids.
LOOM_HOST_DEVICE inline std::uint64_t mix(std::uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

LOOM_HOST_DEVICE inline std::uint64_t low_bits(std::uint64_t x, int bits)
{
    return bits >= 64 ? x : x & ((std::uint64_t{1} << bits) - 1);
}

/// Vertex v's undecided key in `round` (a fresh hash every round, so that a vertex that lost
/// to a neighbour once does not lose to it forever).
LOOM_HOST_DEVICE inline Key undecided_key(const KeyLayout& layout, std::uint64_t v,
                                          std::uint64_t degree, std::uint64_t round)
{
    const std::uint64_t hash = mix(v * 0x9e3779b97f4a7c15ull + mix(round + 1));
    const std::uint64_t max_degree = low_bits(~std::uint64_t{0}, layout.degree_bits);
    const std::uint64_t degree_rank = max_degree - (degree < max_degree ? degree : max_degree);
    const std::uint64_t priority =
        (degree_rank << layout.hash_bits) | low_bits(hash, layout.hash_bits);
    return undecided | (priority << layout.id_bits) | v;
}

LOOM_HOST_DEVICE inline bool is_undecided(Key key)
{
    return (key & undecided) != 0 && key < in_set;
}

/// A vertex's next key, given the largest key within distance 2 (its own included): an
/// undecided vertex that holds the largest joins the set, one that sees a set vertex is
/// removed, others wait. Two undecided vertices within distance 2 cannot both hold the
/// largest key, so the set stays independent.
LOOM_HOST_DEVICE inline Key decided_key(Key key, Key largest_within_2)
{
    if (!is_undecided(key)) return key;
    if (largest_within_2 == key) return in_set | low_bits(key, 62);
    if (largest_within_2 >= in_set) return removed;
    return key;
}

/// decided_key, and an undecided vertex's key for the next round at once: one pass over the
/// undecided vertices per round instead of two.
LOOM_HOST_DEVICE inline Key next_key(const KeyLayout& layout, std::uint64_t v,
                                     std::uint64_t degree, std::uint64_t round, Key key,
                                     Key largest_within_2)
{
    const Key decided = decided_key(key, largest_within_2);
    return is_undecided(decided) ? undecided_key(layout, v, degree, round + 1) : decided;
}

/// The vertices of a graph: the pattern of a square Csr, raw pointers in its memory.
template <typename I>
struct GraphView {
    size_type vertices;
    const I* row_ptrs;
    const I* cols;
};

/// The largest key over v and its neighbours.
template <typename I>
LOOM_HOST_DEVICE inline Key largest_key(const GraphView<I>& graph, const Key* keys, size_type v)
{
    Key largest = keys[v];
    for (auto k = graph.row_ptrs[v]; k < graph.row_ptrs[v + 1]; ++k) {
        const Key key = keys[graph.cols[k]];
        largest = key > largest ? key : largest;
    }
    return largest;
}

/// The same, for the first of the two distance-1 maxima, and whether v must take part in
/// later rounds: a vertex whose neighbourhood is decided (no undecided key in it) never
/// changes again and no undecided vertex reads its maximum, so later rounds skip it.
template <typename I>
LOOM_HOST_DEVICE inline Key largest_key(const GraphView<I>& graph, const Key* keys, size_type v,
                                        bool& still_active)
{
    Key largest = keys[v];
    bool any_undecided = is_undecided(largest);
    for (auto k = graph.row_ptrs[v]; k < graph.row_ptrs[v + 1]; ++k) {
        const Key key = keys[graph.cols[k]];
        largest = key > largest ? key : largest;
        any_undecided = any_undecided || is_undecided(key);
    }
    still_active = any_undecided;
    return largest;
}

/// Aggregation, first step, for vertex v: a root starts its aggregate (level 0), a vertex
/// adjacent to a root joins it (level 1; the lowest aggregate if several, which only an
/// asymmetric pattern promised symmetric can give), any other waits (-1, level 2).
template <typename I>
LOOM_HOST_DEVICE inline void join_root(const GraphView<I>& graph, const Key* keys,
                                       const I* positions, I* aggregate_of, I* level, size_type v)
{
    if (keys[v] >= in_set) {
        aggregate_of[v] = positions[v];
        level[v] = 0;
        return;
    }
    I aggregate = -1;
    for (auto k = graph.row_ptrs[v]; k < graph.row_ptrs[v + 1]; ++k) {
        const I u = graph.cols[k];
        if (keys[u] >= in_set && (aggregate < 0 || positions[u] < aggregate)) {
            aggregate = positions[u];
        }
    }
    aggregate_of[v] = aggregate;
    level[v] = aggregate < 0 ? 2 : 1;
}

/// Rows up to this long pick their aggregate by counting edges (quadratic in the row).
inline constexpr size_type max_counted_row = 64;

/// Aggregation, second step, for a level-2 vertex v: the aggregate it has most edges to
/// among its level-0/1 neighbours, ties to the lowest id; in a row longer than
/// max_counted_row, the lowest such aggregate (a linear scan). -1 when it has none, which a
/// maximal set on the same graph rules out.
template <typename I>
LOOM_HOST_DEVICE inline I best_aggregate(const GraphView<I>& graph, const I* level,
                                         const I* aggregate_of, size_type v)
{
    const auto begin = graph.row_ptrs[v];
    const auto end = graph.row_ptrs[v + 1];
    const bool count_edges = end - begin <= max_counted_row;
    I best = -1;
    I best_edges = 0;
    for (auto k = begin; k < end; ++k) {
        if (level[graph.cols[k]] > 1) continue;
        const I candidate = aggregate_of[graph.cols[k]];
        I edges = 1;
        if (count_edges) {
            edges = 0;
            for (auto j = begin; j < end; ++j) {
                edges += level[graph.cols[j]] <= 1 && aggregate_of[graph.cols[j]] == candidate;
            }
        }
        if (best < 0 || edges > best_edges || (edges == best_edges && candidate < best)) {
            best = candidate;
            best_edges = edges;
        }
    }
    return best;
}

}  // namespace loom::graph::mis2_detail
