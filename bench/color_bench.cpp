#include "bench/color_bench.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/spmv_bench.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/graph/coloring.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_color";

struct Result {
    graph::ColoringAlgorithm algorithm;  ///< as asked for
    graph::ColoringAlgorithm ran;        ///< automatic resolved
    size_type colors = 0;
    int rounds = 0;
    Timing timing;
    bool recolored = true;  ///< with the backend's default recoloring passes
};

/// A pattern on the host, read in place: nets[u] (row u) and members[c] (row c of the
/// transpose).
template <typename I>
struct HostPattern {
    const I* ptrs;
    const I* cols;
    size_type rows;

    template <typename V>
    explicit HostPattern(const matrix::Csr<V, I>& A)
        : ptrs(A.row_ptrs().data()), cols(A.col_idxs().data()), rows(A.rows())
    {}
};

/// NumericalError naming `who` unless colors is a coloring: at distance 1 (of G), at distance 2
/// through nets and members (self_net: a vertex is a member of its own net).
template <typename I>
void check_coloring(const std::string& who, const std::vector<I>& colors, size_type num_colors,
                    const HostPattern<I>& nets, const HostPattern<I>& members, bool self_net,
                    int distance)
{
    const auto fail = [&](const std::string& what) {
        throw NumericalError(where, who + ": " + what);
    };
    for (const auto c : colors) {
        if (c < 0 || c >= num_colors) fail(fmt::format("color {} outside [0, {})", c, num_colors));
    }
    const auto vertices = static_cast<size_type>(colors.size());
    if (distance == 1) {
        for (size_type u = 0; u < vertices; ++u) {
            for (auto k = nets.ptrs[u]; k < nets.ptrs[u + 1]; ++k) {
                const auto v = nets.cols[k];
                if (v != u && colors[v] == colors[u]) {
                    fail(fmt::format("neighbours {} and {} share color {}", u, v, colors[u]));
                }
            }
        }
        return;
    }
    // Every net holds distinct colors: a stamp per color says which net saw it last.
    const auto net_count = members.rows;
    std::vector<size_type> seen(std::max<size_type>(num_colors, 1), -1);
    for (size_type c = 0; c < net_count; ++c) {
        const auto visit = [&](I w) {
            if (seen[colors[w]] == c) {
                fail(fmt::format("two members of net {} share color {}", c, colors[w]));
            }
            seen[colors[w]] = c;
        };
        if (self_net) visit(static_cast<I>(c));
        for (auto k = members.ptrs[c]; k < members.ptrs[c + 1]; ++k) {
            if (!self_net || members.cols[k] != c) visit(members.cols[k]);
        }
    }
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_color(const matrix::Csr<V, I>& A_in, const ColorBenchOptions& options)
{
    check_run(where, options.exec, options.samples, Peer::none);
    if (options.distance != 1 && options.distance != 2) {
        throw BadInput(where, fmt::format("the distance must be 1 or 2, got {}", options.distance));
    }
    const int distance = options.bipartite ? 2 : options.distance;
    const auto host = ReferenceExecutor::create();
    // The graph the algorithms see: A + A^T's pattern (rows of A when bipartite), built on
    // the benchmark's executor (in parallel there); its host copy is what the checks read.
    const matrix::Csr<V, I> A(options.exec, A_in);
    const auto G = options.bipartite ? A : sparse::spadd(V{1}, A, V{1}, sparse::transpose(A));
    const matrix::Csr<V, I> G_host(host, G);
    const HostPattern<I> nets(G_host);
    // Distance 1 and 2 of a symmetric graph: the members of net c are G's row c.
    std::optional<matrix::Csr<V, I>> At_host;
    if (options.bipartite) At_host.emplace(host, sparse::transpose(A));
    const HostPattern<I> members(At_host ? *At_host : G_host);

    const auto run = [&](const matrix::Csr<V, I>& graph_matrix, graph::ColoringHandle& handle) {
        return options.bipartite ? graph::color_bipartite(handle, graph_matrix)
                                 : graph::color(handle, graph_matrix);
    };
    // once: the checked run is the one timed (for the host greedy: seconds per run on a
    // graph of millions of vertices, and only its colors are the yardstick).
    const auto measure = [&](const matrix::Csr<V, I>& graph_matrix,
                             graph::ColoringAlgorithm algorithm, int recolor_passes = -1,
                             bool once = false) {
        graph::ColoringHandle handle({algorithm, distance, true, recolor_passes});
        const auto start = std::chrono::steady_clock::now();
        const auto coloring = run(graph_matrix, handle);
        const auto colors = coloring.colors.to_host();
        const std::chrono::duration<double> first = std::chrono::steady_clock::now() - start;
        check_coloring(graph::to_string(algorithm), colors, coloring.num_colors, nets, members,
                       !options.bipartite, options.bipartite ? 2 : distance);
        const auto timing =
            once
                ? Timing{first.count(), first.count(), first.count(), 1, 1}
                : time_kernel(*graph_matrix.executor(), [&] { run(graph_matrix, handle); },
                              {.samples = options.samples, .min_batch_seconds = 0, .max_batch = 1});
        return Result{algorithm,         handle.algorithm(), handle.num_colors(),
                      handle.rounds(),   timing,             recolor_passes != 0};
    };

    // The sequential greedy, on the host: the yardstick, run once.
    const auto greedy = measure(G_host, graph::ColoringAlgorithm::greedy, -1, true);
    std::vector<Result> results;
    for (const auto algorithm : graph::coloring_algorithms(distance)) {
        if (algorithm == graph::ColoringAlgorithm::greedy) continue;
        if (algorithm == graph::ColoringAlgorithm::vendor) continue;  // last, below
        results.push_back(measure(G, algorithm));
    }
    if (distance == 1 && options.exec->kind() == ExecKind::cuda) {
        // What the recoloring passes (on by default on CUDA) buy.
        results.push_back(measure(G, graph::ColoringAlgorithm::automatic, 0));
    }
    // cuSPARSE's csrcolor, where it exists (CUDA, 32-bit indices, distance 1), last: it has
    // returned invalid colorings on some graphs (coloring NOTES.md), which is reported, not
    // fatal, so that Loom's rows still print.
    const bool vendor_exists = options.exec->kind() == ExecKind::cuda && sizeof(I) == 4 &&
                               distance == 1 && !options.bipartite && !options.skip_vendor;
    if (vendor_exists) {
        try {
            results.push_back(measure(G, graph::ColoringAlgorithm::vendor));
        } catch (const Error& error) {
            fmt::print("cusparse  no valid coloring ({}); the peer is the greedy\n", error.what());
        }
    }
    const Result* vendor = nullptr;
    for (const auto& r : results) {
        if (r.algorithm == graph::ColoringAlgorithm::vendor) vendor = &r;
    }
    // The peer: cuSPARSE where it ran, else the sequential greedy. A copy: `results` grows
    // below, which moves its elements.
    const Result peer = vendor != nullptr ? *vendor : greedy;
    const std::string peer_name = vendor != nullptr ? "cusparse" : "greedy";

    fmt::print("graph     {}: {} x {}, {} stored entries ({} after symmetrization)\n",
               options.matrix_name, A_in.rows(), A_in.cols(), A_in.nnz(), G_host.nnz());
    fmt::print("coloring  {}\n", options.bipartite ? "bipartite (rows sharing a column differ)"
                                                   : fmt::format("distance {}", distance));
    fmt::print(
        "run       {}, {} indices, median of {} samples (greedy: one run); every "
        "coloring checked first\n\n",
        executor_description(*options.exec), sizeof(I) == 4 ? "int32" : "int64", options.samples);
    Table table(
        {"algorithm", "ran", "colors", "vs greedy", "rounds", "time [ms]", "vs " + peer_name});
    auto json_results = nlohmann::ordered_json::array();
    results.insert(results.begin(), greedy);
    for (const auto& r : results) {
        const double t = r.timing.median;
        const double colors_ratio = double(r.colors) / std::max<size_type>(greedy.colors, 1);
        const double speedup = peer.timing.median / t;
        table.add_row({r.algorithm == graph::ColoringAlgorithm::greedy
                           ? "greedy (host)"
                           : std::string(graph::to_string(r.algorithm)) +
                                 (r.recolored ? "" : " (no recolor)"),
                       graph::to_string(r.ran), fmt::format("{}", r.colors),
                       fmt::format("{:.2f}x", colors_ratio), fmt::format("{}", r.rounds),
                       fmt::format("{:.3f}", t * 1e3), fmt::format("{:.2f}x", speedup)});
        json_results.push_back(
            {{"algorithm", graph::to_string(r.algorithm)},
             {"recolored", r.recolored},
             {"ran", graph::to_string(r.ran)},
             {"executor", r.algorithm == graph::ColoringAlgorithm::greedy ? host->name()
                                                                          : options.exec->name()},
             {"colors", r.colors},
             {"colors_vs_greedy", colors_ratio},
             {"rounds", r.rounds},
             {"time_s", t},
             {"time_min_s", r.timing.min},
             {"time_max_s", r.timing.max},
             {"speedup_vs_peer", speedup}});
    }
    table.print();
    auto matrix = matrix_report(options, A_in);
    matrix["symmetrized_nnz"] = G_host.nnz();
    return {{"benchmark", "color"},
            {"matrix", matrix},
            {"distance", distance},
            {"bipartite", options.bipartite},
            {"executor", executor_description(*options.exec)},
            {"index_type", sizeof(I) == 4 ? "int32" : "int64"},
            {"samples", options.samples},
            {"peer", peer_name},
            {"results", json_results}};
}

#define LOOM_INSTANTIATE_BENCH_COLOR(V, I) \
    template nlohmann::ordered_json bench_color(const matrix::Csr<V, I>&, const ColorBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_COLOR)

}  // namespace loom::bench
