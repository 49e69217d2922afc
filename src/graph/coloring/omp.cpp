// OpenMP coloring: speculative rounds on a worklist (Gebremedhin-Manne, as Deveci et al.
// describe them for many cores). Each round colors every vertex of the worklist in parallel,
// reading the colors its neighbours have at that moment, then finds the clashes that
// concurrent choices made (the larger id of a clash gives its color up) and keeps the losers
// for the next round. The worklist keeps vertex order, which keeps the result close to the
// greedy one: a round's vertices are colored in nearly the order greedy would take.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "base/instantiate.hpp"
#include "graph/coloring/kernels.hpp"
#include "graph/coloring/sides.hpp"
#include "graph/coloring/speculative.hpp"
#include "loom/base/error.hpp"

namespace loom::graph::omp {
namespace {

using coloring_detail::Adjacency;
using coloring_detail::ColoringRun;
using coloring_detail::Distance1;
using coloring_detail::Distance2;
using coloring_detail::ForbiddenColors;
using coloring_detail::window_bits;

constexpr const char* where = "loom::graph (OpenMP coloring)";

/// Vertices handed out at a time while coloring: enough to amortize the scheduling, few
/// enough that neighbours colored at the same time (the clashes) stay rare.
constexpr int vertex_chunk = 64;

/// Colors are read and written by several threads at once; relaxed atomics make that defined
/// and cost nothing over plain loads and stores.
template <typename I>
struct SharedColors {
    I* colors;

    I operator()(I v) const
    {
        return std::atomic_ref<I>(colors[v]).load(std::memory_order_relaxed);
    }
    void store(I v, I color) const
    {
        std::atomic_ref<I>(colors[v]).store(color, std::memory_order_relaxed);
    }
};

/// Keeps the entries of `list` for which keep(entry) holds, in order, in parallel.
template <typename I, typename Keep>
void compact(const OmpExecutor& exec, std::vector<I>& list, Keep&& keep)
{
    const size_type n = static_cast<size_type>(list.size());
    const int threads = std::max(exec.num_threads(), 1);
    std::vector<size_type> counts(threads + 1, 0);
    std::vector<I> kept;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        const int team = omp_get_num_threads();
        const size_type begin = n * t / team;
        const size_type end = n * (t + 1) / team;
        std::vector<I> mine;
        for (size_type i = begin; i < end; ++i) {
            if (keep(list[i])) mine.push_back(list[i]);
        }
        counts[t + 1] = static_cast<size_type>(mine.size());
#pragma omp barrier
#pragma omp single
        {
            for (int s = 0; s < team; ++s) counts[s + 1] += counts[s];
            kept.resize(counts[team]);
        }
        std::copy(mine.begin(), mine.end(), kept.begin() + counts[t]);
    }
    list.swap(kept);
}

/// Throws when rounds run away; each round colors at least one vertex for good, so only a
/// bug gets here.
void check_progress(int rounds, size_type vertices)
{
    if (rounds > vertices + 1000) {
        throw NumericalError(where, "the coloring rounds did not finish (an internal error)");
    }
}

template <typename I>
size_type count_colors(const OmpExecutor& exec, size_type n, const I* colors)
{
    I largest = -1;
#pragma omp parallel for schedule(static) reduction(max : largest) num_threads(exec.num_threads())
    for (size_type u = 0; u < n; ++u) largest = std::max(largest, colors[u]);
    return size_type{largest} + 1;
}

/// Net-based conflict detection (NB): every net checks its members.
template <typename I>
void detect_by_net(const OmpExecutor& exec, const Distance2<I>& around, I* colors)
{
    const SharedColors<I> shared{colors};
    const auto& members = around.members;
#pragma omp parallel for schedule(dynamic, vertex_chunk) num_threads(exec.num_threads())
    for (size_type c = 0; c < members.rows; ++c) {
        const I net = static_cast<I>(c);
        if (around.self_net && coloring_detail::loses_clash_in_net(around, net, net, shared)) {
            shared.store(net, I{-1});
        }
        for (I k = members.row_ptrs[c]; k < members.row_ptrs[c + 1]; ++k) {
            const I w = members.cols[k];
            if (coloring_detail::loses_clash_in_net(around, net, w, shared)) shared.store(w, I{-1});
        }
    }
}

/// The vertex-based algorithms (VB, VBBIT, VBCS; NB at distance 2): pick(u, forbidden) is
/// the color u tries; a round's clashes are found in the neighbourhood `around`, by net in
/// NB's first two rounds (while most vertices are being colored, every net holds some), else
/// by the worklist's vertices as the worklist is compacted.
template <typename I, typename Neighbourhood, typename Pick>
ColoringRun speculate(const OmpExecutor& exec, ColoringAlgorithm algorithm,
                      const Neighbourhood& around, size_type n, I* colors, Pick&& pick)
{
    const SharedColors<I> shared{colors};
    std::fill(colors, colors + n, I{coloring_detail::uncolored});
    std::vector<I> worklist(n);
    for (size_type u = 0; u < n; ++u) worklist[u] = static_cast<I>(u);
    int rounds = 0;
    while (!worklist.empty()) {
        check_progress(++rounds, n);
        const auto count = static_cast<size_type>(worklist.size());
#pragma omp parallel num_threads(exec.num_threads())
        {
            ForbiddenColors forbidden;
#pragma omp for schedule(static)
            for (size_type i = 0; i < count; ++i) {
                shared.store(worklist[i], pick(worklist[i], forbidden));
            }
        }
        if constexpr (std::is_same_v<Neighbourhood, Distance2<I>>) {
            if (algorithm == ColoringAlgorithm::nb && rounds <= 2) {
                detect_by_net(exec, around, colors);
                compact(exec, worklist, [&](I u) { return shared(u) < 0; });
                continue;
            }
        }
        compact(exec, worklist, [&](I u) {
            const bool loses = coloring_detail::loses_clash(around, u, shared);
            if (loses) shared.store(u, I{-1});
            return loses;
        });
    }
    return {algorithm, count_colors(exec, n, colors), rounds};
}

/// f(u, v) for every edge (u, v), v != u, of the worklist's vertices, the edges split evenly
/// over the threads whatever the degrees. offsets[i]: edges of the vertices before entry i.
template <typename I, typename F>
void for_each_worklist_edge(const OmpExecutor& exec, Adjacency<I> graph,
                            const std::vector<I>& worklist, const std::vector<size_type>& offsets,
                            F&& f)
{
    const size_type edges = offsets.back();
#pragma omp parallel num_threads(exec.num_threads())
    {
        const int t = omp_get_thread_num();
        const int team = omp_get_num_threads();
        const size_type begin = edges * t / team;
        const size_type end = edges * (t + 1) / team;
        auto i = std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin() - 1;
        for (size_type e = begin; e < end; ++i) {
            const I u = worklist[i];
            const size_type row_end = std::min(offsets[i + 1], end);
            for (; e < row_end; ++e) {
                const I v = graph.cols[graph.row_ptrs[u] + (e - offsets[i])];
                if (v != u) f(u, v);
            }
        }
    }
}

/// EB: rounds whose neighbour scans run over edges, not vertices, so that a few vertices of
/// huge degree do not hold a round up. Each round: every edge sets its neighbour's color in
/// the vertex's 64-color forbidden window; every vertex takes the first free color of its
/// window (or moves to the next window when it is full); every edge uncolors the larger end
/// of a clash.
template <typename I>
ColoringRun color_edge_based(const OmpExecutor& exec, Adjacency<I> graph, I* colors)
{
    const size_type n = graph.rows;
    const SharedColors<I> shared{colors};
    std::fill(colors, colors + n, I{coloring_detail::uncolored});
    std::vector<std::uint64_t> forbidden(n, 0);
    std::vector<I> window(n, 0);
    std::vector<I> worklist(n);
    for (size_type u = 0; u < n; ++u) worklist[u] = static_cast<I>(u);
    std::vector<size_type> offsets;
    int rounds = 0;
    while (!worklist.empty()) {
        check_progress(++rounds, n);
        const auto count = static_cast<size_type>(worklist.size());
        offsets.assign(count + 1, 0);
        for (size_type i = 0; i < count; ++i) {
            const I u = worklist[i];
            offsets[i + 1] = offsets[i] + (graph.row_ptrs[u + 1] - graph.row_ptrs[u]);
        }
        for_each_worklist_edge(exec, graph, worklist, offsets, [&](I u, I v) {
            const auto bit = coloring_detail::window_bit(shared(v), window[u]);
            if (bit != 0) {
                std::atomic_ref<std::uint64_t>(forbidden[u])
                    .fetch_or(bit, std::memory_order_relaxed);
            }
        });
#pragma omp parallel for schedule(static) num_threads(exec.num_threads())
        for (size_type i = 0; i < count; ++i) {
            const I u = worklist[i];
            const std::uint64_t free = ~forbidden[u];
            forbidden[u] = 0;
            if (free != 0) {
                shared.store(u, window[u] + coloring_detail::lowest_set_bit(free));
            } else {
                window[u] += window_bits;
            }
        }
        for_each_worklist_edge(exec, graph, worklist, offsets, [&](I u, I v) {
            const I own = shared(u);
            if (own >= 0 && v < u && shared(v) == own) shared.store(u, I{-1});
        });
        compact(exec, worklist, [&](I u) { return shared(u) < 0; });
    }
    return {ColoringAlgorithm::eb, count_colors(exec, n, colors), rounds};
}

/// for_range(begin, end, f) calls f(i) for every i in [begin, end) in parallel, in chunks
/// handed out as threads come free (the work per vertex follows its degree).
auto for_range(const OmpExecutor& exec)
{
    return [&exec](size_type begin, size_type end, auto&& f) {
#pragma omp parallel for schedule(dynamic, vertex_chunk) num_threads(exec.num_threads())
        for (size_type i = begin; i < end; ++i) f(i);
    };
}

}  // namespace

template <typename I>
ColoringRun color_distance1(const OmpExecutor& exec, ColoringAlgorithm algorithm,
                            Adjacency<I> graph, I* colors)
{
    const Distance1<I> around{graph};
    const SharedColors<I> shared{colors};
    switch (algorithm) {
    case ColoringAlgorithm::eb: return color_edge_based(exec, graph, colors);
    case ColoringAlgorithm::vbbit:
        return speculate(exec, algorithm, around, graph.rows, colors, [&](I u, ForbiddenColors&) {
            return coloring_detail::first_fit_bits(around, u, I{0}, shared);
        });
    case ColoringAlgorithm::vbcs: {
        // The window of a vertex's last color: it resumes there after losing a clash.
        std::vector<I> start(graph.rows, 0);
        return speculate(exec, algorithm, around, graph.rows, colors, [&](I u, ForbiddenColors&) {
            const I c = coloring_detail::first_fit_bits(around, u, start[u], shared);
            start[u] = c / window_bits * window_bits;
            return c;
        });
    }
    default:  // vb, and what automatic picks on the host
        return speculate(exec, ColoringAlgorithm::vb, around, graph.rows, colors,
                         [&](I u, ForbiddenColors& forbidden) {
                             return forbidden.first_fit(around, u, shared);
                         });
    }
}

template <typename I>
size_type recolor_distance1(const OmpExecutor& exec, Adjacency<I> graph, int passes, I* colors,
                            size_type num_colors)
{
    return coloring_detail::iterated_greedy(graph, passes, colors, num_colors, for_range(exec));
}

template <typename I>
size_type color_sides(const OmpExecutor& exec, Adjacency<I> graph, I* colors)
{
    return coloring_detail::color_sides_on_host(graph, colors, for_range(exec));
}

template <typename I>
ColoringRun color_distance2(const OmpExecutor& exec, ColoringAlgorithm algorithm, Adjacency<I> nets,
                            Adjacency<I> members, bool self_net, I* colors)
{
    const Distance2<I> around{nets, members, self_net};
    const SharedColors<I> shared{colors};
    const auto bits = [&](I u, ForbiddenColors&) {
        return coloring_detail::first_fit_bits(around, u, I{0}, shared);
    };
    switch (algorithm) {
    case ColoringAlgorithm::vbbit:
    case ColoringAlgorithm::nb: return speculate(exec, algorithm, around, nets.rows, colors, bits);
    default:  // vb, and what automatic picks on the host
        return speculate(exec, ColoringAlgorithm::vb, around, nets.rows, colors,
                         [&](I u, ForbiddenColors& forbidden) {
                             return forbidden.first_fit(around, u, shared);
                         });
    }
}

#define LOOM_INSTANTIATE(I) LOOM_INSTANTIATE_COLORING_KERNELS(OmpExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::graph::omp
