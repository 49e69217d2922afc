// Argument checks, graph preparation and backend dispatch of graph coloring.
//
// The kernels see a symmetric pattern (symmetrized here unless the caller promises symmetry)
// and, at distance 2, the nets of every vertex and the members of every net (kernels.hpp).
// `greedy` is sequential by definition: it runs on a host copy and the colors travel back.
#include "loom/graph/coloring.hpp"

#include <array>
#include <optional>
#include <utility>

#include "base/dispatch.hpp"
#include "base/executor_of.hpp"
#include "base/instantiate.hpp"
#include "graph/coloring/kernels.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"

namespace loom::graph {
namespace {

using loom::detail::executor_of;

using coloring_detail::Adjacency;
using coloring_detail::ColoringRun;

/// The distances each algorithm colors at (its names: coloring_algorithm_names in the header).
struct AlgorithmDistances {
    ColoringAlgorithm algorithm;
    bool distance1;
    bool distance2;
};

constexpr std::array<AlgorithmDistances, std::size(coloring_algorithm_names)> algorithm_distances{{
    {ColoringAlgorithm::automatic, true, true},
    {ColoringAlgorithm::greedy, true, true},
    {ColoringAlgorithm::vb, true, true},
    {ColoringAlgorithm::vbbit, true, true},
    {ColoringAlgorithm::vbcs, true, false},
    {ColoringAlgorithm::eb, true, false},
    {ColoringAlgorithm::nb, false, true},
    {ColoringAlgorithm::vendor, true, false},
    {ColoringAlgorithm::bipartition, true, false},
}};

/// Both tables list the algorithms in the same order, so a new algorithm missing here fails
/// to compile (the array size) or this check.
constexpr bool same_order()
{
    for (std::size_t k = 0; k < algorithm_distances.size(); ++k) {
        if (algorithm_distances[k].algorithm != coloring_algorithm_names[k].value) return false;
    }
    return true;
}
static_assert(same_order(), "algorithm_distances must follow coloring_algorithm_names");

const AlgorithmDistances& entry_of(ColoringAlgorithm algorithm)
{
    for (const auto& entry : algorithm_distances) {
        if (entry.algorithm == algorithm) return entry;
    }
    throw BadInput("loom::graph",
                   "unknown coloring algorithm " + std::to_string(static_cast<int>(algorithm)));
}

std::string names_at(int distance)
{
    std::string names;
    for (const auto algorithm : coloring_algorithms(distance)) {
        names += (names.empty() ? "" : ", ") + std::string(to_string(algorithm));
    }
    return names;
}

template <typename V, typename I>
Adjacency<I> adjacency(const matrix::Csr<V, I>& A)
{
    return {A.rows(), A.row_ptrs().data(), A.col_idxs().data()};
}

void check_algorithm(const char* where, ColoringAlgorithm algorithm, int distance,
                     const Executor& exec, bool wide_indices)
{
    const auto& entry = entry_of(algorithm);
    if (!(distance == 1 ? entry.distance1 : entry.distance2)) {
        throw BadInput(where, std::string("the algorithm ") + to_string(algorithm) +
                                  " does not color at distance " + std::to_string(distance) +
                                  " (use one of " + names_at(distance) + ")");
    }
    if (algorithm == ColoringAlgorithm::vendor && exec.kind() == ExecKind::cuda && !wide_indices) {
        return;  // csrcolor gets the graph without self-loops; its result is checked (NOTES.md)
    }
    if (algorithm == ColoringAlgorithm::vendor) {
        throw NotSupported(where,
                           "the vendor algorithm is cuSPARSE's csrcolor, which needs a "
                           "CUDA executor and 32-bit indices (the graph is on " +
                               exec.name() + ")");
    }
}

/// The pattern of A + A^T (values are meaningless), or nothing when A is taken as symmetric.
template <typename V, typename I>
std::optional<matrix::Csr<V, I>> symmetrized(const matrix::Csr<V, I>& A, bool assume_symmetric)
{
    if (assume_symmetric) return std::nullopt;
    return sparse::spadd(V{1}, A, V{1}, sparse::transpose(A));
}

/// Colors `vertices` vertices on `exec`: kernel(colors) runs the backend, host(host, colors)
/// the reference backend on host copies of the operands (for greedy off the reference
/// backend). Records the run in the handle.
template <typename I, typename Kernel, typename Host>
Coloring<I> run(ColoringHandle& handle, ColoringAlgorithm algorithm,
                const std::shared_ptr<const Executor>& exec, size_type vertices, Kernel&& kernel,
                Host&& host)
{
    Coloring<I> result{Array<I>(exec, vertices), 0};
    // Without vertices nothing runs; the handle then reports greedy for automatic.
    const bool sequential = exec->kind() == ExecKind::reference;
    ColoringRun run{sequential || algorithm == ColoringAlgorithm::automatic
                        ? ColoringAlgorithm::greedy
                        : algorithm,
                    0, 0};
    if (vertices > 0 && algorithm == ColoringAlgorithm::greedy && !sequential) {
        const auto reference = ReferenceExecutor::create();
        Array<I> colors(reference, vertices);
        run = host(reference, colors.data());
        result.colors = Array<I>(exec, colors);
    } else if (vertices > 0) {
        run = kernel(result.colors.data());
    }
    result.num_colors = run.num_colors;
    handle.record(run.algorithm, run.num_colors, run.rounds);
    return result;
}

/// Whether a distance-1 coloring tries the sides of a bipartite graph first: when asked to,
/// and for automatic off the reference backend (whose automatic is greedy, the reference).
bool tries_sides(ColoringAlgorithm algorithm, const Executor& exec)
{
    return algorithm == ColoringAlgorithm::bipartition ||
           (algorithm == ColoringAlgorithm::automatic && exec.kind() != ExecKind::reference);
}

/// The recoloring passes asked for, or the backend's default: three on CUDA, none after EB —
/// on a power-law graph (2M x 8, H200, session 7) its passes took 590 ms against EB's 24 ms
/// (17 colors, already 1.06x greedy's 16), slower than csrcolor's 302 ms.
int recolor_passes(const ColoringOptions& options, const Executor& exec, ColoringAlgorithm ran)
{
    if (options.recolor_passes >= 0) return options.recolor_passes;
    return exec.kind() == ExecKind::cuda && ran != ColoringAlgorithm::eb ? 3 : 0;
}

#if LOOM_HAS_CUDA
/// CUDA's distance-1 kernels, cuSPARSE's csrcolor among them (32-bit indices only).
template <typename I>
ColoringRun color_on_cuda(const CudaExecutor& exec, ColoringAlgorithm algorithm, Adjacency<I> graph,
                          I* colors)
{
    if constexpr (std::is_same_v<I, int32>) {
        if (algorithm == ColoringAlgorithm::vendor) {
            return cuda::color_vendor_without_self_loops(exec, graph, colors);
        }
    }
    return cuda::color_distance1(exec, algorithm, graph, colors);
}
#endif

}  // namespace

ColoringAlgorithm parse_coloring_algorithm(const std::string& text)
{
    return names_of(ColoringAlgorithm{}).parse(text, "loom::graph::parse_coloring_algorithm");
}

std::vector<ColoringAlgorithm> coloring_algorithms(int distance)
{
    std::vector<ColoringAlgorithm> result;
    for (const auto& entry : algorithm_distances) {
        if (distance == 1 ? entry.distance1 : entry.distance2) result.push_back(entry.algorithm);
    }
    return result;
}

template <typename V, typename I>
Coloring<I> color(ColoringHandle& handle, const matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::graph::color";
    const auto& exec = executor_of(where, A);
    const auto& options = handle.options();
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(where, "A", A.size(), "A^T", A.size().transposed(),
                                "a graph is a square matrix (for the rows of a rectangular "
                                "one use color_bipartite)");
    }
    if (options.distance != 1 && options.distance != 2) {
        throw BadInput(where,
                       "the distance must be 1 or 2, got " + std::to_string(options.distance));
    }
    check_algorithm(where, options.algorithm, options.distance, *exec, sizeof(I) > 4);
    if (options.recolor_passes < -1) {
        throw BadInput(where, "recolor_passes must be -1 (the default) or >= 0, got " +
                                  std::to_string(options.recolor_passes));
    }
    const auto symmetric = symmetrized(A, options.assume_symmetric || A.rows() == 0);
    const auto& G = symmetric ? *symmetric : A;
    if (options.distance == 1) {
        // A graph with an odd cycle has no sides: it goes to what automatic picks.
        const auto algorithm = options.algorithm == ColoringAlgorithm::bipartition
                                   ? ColoringAlgorithm::automatic
                                   : options.algorithm;
        return run<I>(
            handle, algorithm, exec, G.rows(),
            [&](I* colors) {
                if (tries_sides(options.algorithm, *exec)) {
                    const size_type sides =
                        LOOM_RUN_KERNEL(where, *exec, color_sides, adjacency(G), colors);
                    if (sides > 0) return ColoringRun{ColoringAlgorithm::bipartition, sides, 1};
                }
                auto ran = exec->run(detail::overloaded{
                    [&](const ReferenceExecutor& e) {
                        return reference::color_distance1(e, algorithm, adjacency(G), colors);
                    },
                    [&]([[maybe_unused]] const OmpExecutor& e) -> ColoringRun {
                        LOOM_OMP_CALL(
                            where, return omp::color_distance1(e, algorithm, adjacency(G), colors));
                    },
                    [&]([[maybe_unused]] const CudaExecutor& e) -> ColoringRun {
                        LOOM_CUDA_CALL(where,
                                       return color_on_cuda(e, algorithm, adjacency(G), colors));
                    }});
                const int passes = recolor_passes(options, *exec, ran.algorithm);
                if (passes > 0 && ran.algorithm != ColoringAlgorithm::greedy &&
                    ran.algorithm != ColoringAlgorithm::vendor) {
                    ran.num_colors = LOOM_RUN_KERNEL(where, *exec, recolor_distance1, adjacency(G),
                                                     passes, colors, ran.num_colors);
                }
                return ran;
            },
            [&](const auto& host, I* colors) {
                const matrix::Csr<V, I> H(host, G);
                return reference::color_distance1(*host, algorithm, adjacency(H), colors);
            });
    }
    const auto algorithm = options.algorithm;
    return run<I>(
        handle, algorithm, exec, G.rows(),
        [&](I* colors) {
            return LOOM_RUN_KERNEL(where, *exec, color_distance2, algorithm, adjacency(G),
                                   adjacency(G), true, colors);
        },
        [&](const auto& host, I* colors) {
            const matrix::Csr<V, I> H(host, G);
            return reference::color_distance2(*host, algorithm, adjacency(H), adjacency(H), true,
                                              colors);
        });
}

template <typename V, typename I>
Coloring<I> color_bipartite(ColoringHandle& handle, const matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::graph::color_bipartite";
    const auto& exec = executor_of(where, A);
    const auto algorithm = handle.options().algorithm;
    check_algorithm(where, algorithm, 2, *exec, sizeof(I) > 4);
    const auto At = sparse::transpose(A);
    return run<I>(
        handle, algorithm, exec, A.rows(),
        [&](I* colors) {
            return LOOM_RUN_KERNEL(where, *exec, color_distance2, algorithm, adjacency(A),
                                   adjacency(At), false, colors);
        },
        [&](const auto& host, I* colors) {
            const matrix::Csr<V, I> H(host, A);
            const matrix::Csr<V, I> Ht(host, At);
            return reference::color_distance2(*host, algorithm, adjacency(H), adjacency(Ht), false,
                                              colors);
        });
}

#define LOOM_INSTANTIATE_COLORING(V, I)                                    \
    template Coloring<I> color(ColoringHandle&, const matrix::Csr<V, I>&); \
    template Coloring<I> color_bipartite(ColoringHandle&, const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_COLORING)

}  // namespace loom::graph
