// The per-vertex steps of the coloring algorithms, written once for the host backends and
// CUDA: who a vertex must differ from (its neighbourhood at distance 1 or 2), the first color
// its neighbourhood leaves free, and which side of a clash gives its color up.
//
// `color_of(v)` reads v's current color (uncolored < 0). In the parallel algorithms other
// threads write colors meanwhile; a stale read only makes a vertex give up a color it could
// have kept or pick one that the next conflict check catches, never an invalid result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/coloring/kernels.hpp"
#include "loom/launch/macros.hpp"

namespace loom::graph::coloring_detail {

/// Colors per window of the bit-based forbidden sets.
inline constexpr int window_bits = 64;

LOOM_HOST_DEVICE LOOM_INLINE int lowest_set_bit(std::uint64_t bits)
{
#if defined(__CUDA_ARCH__)
    return __ffsll(static_cast<long long>(bits)) - 1;
#else
    return __builtin_ctzll(bits);
#endif
}

/// The bit of color c in the window [offset, offset + 64); 0 outside it (and for uncolored).
template <typename I>
LOOM_HOST_DEVICE LOOM_INLINE std::uint64_t window_bit(I c, I offset)
{
    const I bit = c - offset;
    return c >= 0 && bit >= 0 && bit < window_bits ? std::uint64_t{1} << bit : 0;
}

/// Distance 1: the neighbours of u other than u. for_each(u, f) calls f(v) for each until f
/// returns true, and returns whether one did.
template <typename I>
struct Distance1 {
    Adjacency<I> graph;

    template <typename F>
    LOOM_HOST_DEVICE bool for_each(I u, F&& f) const
    {
        for (I k = graph.row_ptrs[u]; k < graph.row_ptrs[u + 1]; ++k) {
            const I v = graph.cols[k];
            if (v != u && f(v)) return true;
        }
        return false;
    }
};

/// Distance 2 through nets (kernels.hpp): the members other than u of u's nets.
template <typename I>
struct Distance2 {
    Adjacency<I> nets;
    Adjacency<I> members;
    bool self_net = false;

    template <typename F>
    LOOM_HOST_DEVICE bool for_each_member(I net, I u, F&& f) const
    {
        for (I k = members.row_ptrs[net]; k < members.row_ptrs[net + 1]; ++k) {
            const I w = members.cols[k];
            if (w != u && f(w)) return true;
        }
        return false;
    }

    template <typename F>
    LOOM_HOST_DEVICE bool for_each(I u, F&& f) const
    {
        if (self_net && for_each_member(u, u, f)) return true;
        for (I k = nets.row_ptrs[u]; k < nets.row_ptrs[u + 1]; ++k) {
            if (for_each_member(nets.cols[k], u, f)) return true;
        }
        return false;
    }
};

/// The smallest color >= start (a multiple of 64) that no vertex of u's neighbourhood holds,
/// one 64-bit forbidden mask per window of 64 colors (VBBIT; VBCS starts at the window of the
/// vertex's previous color).
template <typename I, typename Neighbourhood, typename ColorOf>
LOOM_HOST_DEVICE I first_fit_bits(const Neighbourhood& around, I u, I start, ColorOf color_of)
{
    for (I offset = start;; offset += window_bits) {
        std::uint64_t forbidden = 0;
        around.for_each(u, [&](I v) {
            forbidden |= window_bit(color_of(v), offset);
            return false;
        });
        if (~forbidden != 0) return offset + lowest_set_bit(~forbidden);
    }
}

/// Whether u gives its color up: a vertex of smaller id in its neighbourhood holds the same.
/// The smallest id of every clash keeps its color, so every round colors a vertex for good.
template <typename I, typename Neighbourhood, typename ColorOf>
LOOM_HOST_DEVICE bool loses_clash(const Neighbourhood& around, I u, ColorOf color_of)
{
    const I own = color_of(u);
    if (own < 0) return false;
    return around.for_each(u, [&](I v) { return v < u && color_of(v) == own; });
}

/// The same seen from one net (NB): member w of `net` gives its color up when a member of
/// smaller id holds it; with self_net the net's own vertex counts as a member, and net == w
/// stands for that vertex as member of its own net.
template <typename I, typename ColorOf>
LOOM_HOST_DEVICE bool loses_clash_in_net(const Distance2<I>& around, I net, I w, ColorOf color_of)
{
    const I own = color_of(w);
    if (own < 0) return false;
    if (around.self_net && net < w && color_of(net) == own) return true;
    return around.for_each_member(net, w, [&](I x) { return x < w && color_of(x) == own; });
}

/// Colors read from a plain array (uncolored < 0).
template <typename I>
struct ColorsAt {
    const I* colors;
    LOOM_HOST_DEVICE I operator()(I v) const { return colors[v]; }
};

/// Iterated greedy (Culberson 1992), for a vertex u of the color class being recolored: the
/// first color that none of its recolored neighbours holds (`recolored` < 0: not yet). The
/// classes are recolored one after the other; a class's vertices are never neighbours, so
/// they recolor at once exactly as greedy would one by one, and greedy over an order that
/// keeps every class together never needs more colors than there were classes.
template <typename I, typename Neighbourhood>
LOOM_HOST_DEVICE I recolored(const Neighbourhood& around, I u, const I* recolored)
{
    return first_fit_bits(around, u, I{0}, ColorsAt<I>{recolored});
}

/// Host first fit with a forbidden-color array that grows as needed: marks[c] == stamp when c
/// is taken. A fresh stamp per call makes clearing unnecessary.
class ForbiddenColors {
public:
    template <typename I, typename Neighbourhood, typename ColorOf>
    I first_fit(const Neighbourhood& around, I u, ColorOf color_of)
    {
        ++stamp_;
        around.for_each(u, [&](I v) {
            const I c = color_of(v);
            if (c >= 0) {
                if (static_cast<std::size_t>(c) >= marks_.size()) marks_.resize(2 * c + 64, 0);
                marks_[c] = stamp_;
            }
            return false;
        });
        I c = 0;
        while (static_cast<std::size_t>(c) < marks_.size() && marks_[c] == stamp_) ++c;
        return c;
    }

private:
    std::vector<std::uint64_t> marks_;
    std::uint64_t stamp_ = 0;
};

/// The vertices of every color class (host): class c is vertices[starts[c] .. starts[c + 1]),
/// in vertex order.
template <typename I>
struct ColorClasses {
    std::vector<size_type> starts;
    std::vector<I> vertices;

    ColorClasses(const I* colors, size_type n, size_type num_colors)
        : starts(num_colors + 1, 0), vertices(n)
    {
        for (size_type v = 0; v < n; ++v) ++starts[colors[v] + 1];
        for (size_type c = 0; c < num_colors; ++c) starts[c + 1] += starts[c];
        std::vector<size_type> next(starts.begin(), starts.end() - 1);
        for (size_type v = 0; v < n; ++v) vertices[next[colors[v]]++] = static_cast<I>(v);
    }
};

/// Iterated greedy on the host: up to `passes` passes over a valid distance-1 coloring, each
/// recoloring the classes from the last to the first (`recolored`), stopping once a pass
/// saves no color. for_range(begin, end, f) calls f(i) for i in [begin, end), sequentially or
/// in parallel (a class's vertices are independent). Returns the colors used.
template <typename I, typename ForRange>
size_type iterated_greedy(Adjacency<I> graph, int passes, I* colors, size_type num_colors,
                          ForRange&& for_range)
{
    const Distance1<I> around{graph};
    const size_type n = graph.rows;
    std::vector<I> fresh(n);
    for (int pass = 0; pass < passes && num_colors > 1; ++pass) {
        const ColorClasses<I> classes(colors, n, num_colors);
        std::fill(fresh.begin(), fresh.end(), I{uncolored});
        for (size_type c = num_colors; c-- > 0;) {
            for_range(classes.starts[c], classes.starts[c + 1], [&](size_type i) {
                const I u = classes.vertices[i];
                fresh[u] = recolored(around, u, fresh.data());
            });
        }
        const size_type used = size_type{*std::max_element(fresh.begin(), fresh.end())} + 1;
        std::copy(fresh.begin(), fresh.end(), colors);
        const bool saved = used < num_colors;
        num_colors = used;
        if (!saved) break;
    }
    return num_colors;
}

}  // namespace loom::graph::coloring_detail
