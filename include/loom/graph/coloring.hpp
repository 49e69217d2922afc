// Graph coloring: a color per vertex such that vertices that must differ get different colors.
//
//   distance 1   neighbours differ (independent sets for parallel Gauss-Seidel, ILU levels)
//   distance 2   vertices within two edges of each other differ
//   bipartite    the rows of a rectangular matrix: rows that share a column differ (the
//                columns of a Jacobian that can be computed together, transposed)
//
// A graph is the pattern of a square `Csr` (values are never read): vertex i is adjacent to
// the columns stored in row i. By default the pattern is symmetrized first (i ~ j when A
// stores (i, j) or (j, i)); ColoringOptions::assume_symmetric skips that pass for callers who
// know their pattern is symmetric. Self-loops and duplicate entries are ignored.
//
//     graph::ColoringHandle handle({.algorithm = graph::ColoringAlgorithm::automatic});
//     const auto coloring = graph::color(handle, A);   // coloring.colors on A's executor
//
// Colors are 0-based and dense: every color in [0, num_colors) is used. Which vertex gets
// which color depends on the algorithm, the backend and, for the parallel algorithms, on
// thread timing; the coloring is valid on every run.
#pragma once

#include <string>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::graph {

/// How colors are found (Deveci et al. 2016, Taş et al. 2017; see src/graph/coloring/NOTES.md).
enum class ColoringAlgorithm {
    automatic,  ///< chosen per backend and graph; the handle tells which ran
    greedy,     ///< sequential first fit in vertex order: the reference (runs on the host)
    vb,         ///< vertex-based speculative coloring with conflict rounds (distance 1 and 2)
    vbbit,      ///< VB with the forbidden colors as 64-bit windows (distance 1 and 2)
    vbcs,       ///< VB over color sets: a vertex keeps its 64-color set across rounds (distance 1)
    eb,         ///< edge-based: work split over edges, for skewed degrees (distance 1)
    nb,         ///< net-based conflict detection (Taş et al.; distance 2 and bipartite)
    vendor,     ///< cuSPARSE csrcolor (distance 1, CUDA, 32-bit indices; rows sorted)
    /// Distance 1: the two sides of a bipartite graph as colors 0 and 1 (the red-black
    /// ordering of 5- and 7-point stencils), in parallel on every backend; a graph with an
    /// odd cycle is colored by what automatic picks after it (the handle tells which).
    /// Automatic tries it first on omp and CUDA, where the speculative algorithms cannot
    /// find two colors.
    bipartition
};

LOOM_NAME_TABLE(ColoringAlgorithm, coloring_algorithm_names, "coloring algorithm",
    {ColoringAlgorithm::automatic, "automatic", "chosen per backend and graph", {"auto"}},
    {ColoringAlgorithm::greedy, "greedy", "sequential first fit (the reference; distance 1, 2)"},
    {ColoringAlgorithm::vb, "vb", "vertex-based speculative (distance 1, 2)"},
    {ColoringAlgorithm::vbbit, "vbbit", "vb with 64-bit forbidden-color windows (distance 1, 2)"},
    {ColoringAlgorithm::vbcs, "vbcs", "vb over color sets (distance 1)"},
    {ColoringAlgorithm::eb, "eb", "edge-based, for skewed degrees (distance 1)"},
    {ColoringAlgorithm::nb, "nb", "net-based (distance 2, bipartite)"},
    {ColoringAlgorithm::vendor, "vendor", "cuSPARSE csrcolor (distance 1, CUDA)", {"cusparse"}},
    {ColoringAlgorithm::bipartition, "bipartition", "two colors when the graph is bipartite (distance 1)"},
);

/// A name or alias of coloring_algorithm_names; BadInput listing the names otherwise.
ColoringAlgorithm parse_coloring_algorithm(const std::string& text);
/// The algorithms that color at a distance (1 or 2; bipartite coloring is distance 2).
std::vector<ColoringAlgorithm> coloring_algorithms(int distance);

struct ColoringOptions {
    ColoringAlgorithm algorithm = ColoringAlgorithm::automatic;
    /// 1 or 2; color_bipartite() always colors at distance 2 and does not read it.
    int distance = 1;
    /// The caller promises a symmetric pattern, so it is not symmetrized; the coloring is
    /// valid only if the promise holds.
    bool assume_symmetric = false;
    /// Distance 1: iterated-greedy passes after a parallel algorithm (each recolors the color
    /// classes, last first, as greedy would: never more colors, often fewer; they stop once
    /// one saves no color). -1: the backend's default, up to 3 on CUDA (none after EB, whose
    /// skewed graphs make the passes cost many times the coloring) and none on the host.
    int recolor_passes = -1;
};

/// A coloring: colors[v] in [0, num_colors) for every vertex, on the graph's executor.
template <typename I>
struct Coloring {
    Array<I> colors;
    size_type num_colors = 0;
};

/// The options of a coloring and what its last run found.
class ColoringHandle {
public:
    explicit ColoringHandle(ColoringOptions options = {}) : options_(options) {}

    const ColoringOptions& options() const noexcept { return options_; }
    /// Whether a coloring has run with this handle (the queries below describe the last one).
    bool has_run() const noexcept { return has_run_; }
    /// The algorithm that ran: `automatic` resolved; `automatic` before any run.
    ColoringAlgorithm algorithm() const noexcept { return algorithm_; }
    size_type num_colors() const noexcept { return num_colors_; }
    /// Coloring rounds (each one colors the vertices left, then resolves conflicts); 1 for the
    /// greedy algorithm, 0 for vendor (cuSPARSE does not say).
    int rounds() const noexcept { return rounds_; }

    /// For the implementation (src/graph/coloring): records a run.
    void record(ColoringAlgorithm algorithm, size_type num_colors, int rounds) noexcept
    {
        has_run_ = true;
        algorithm_ = algorithm;
        num_colors_ = num_colors;
        rounds_ = rounds;
    }

private:
    ColoringOptions options_;
    bool has_run_ = false;
    ColoringAlgorithm algorithm_ = ColoringAlgorithm::automatic;
    size_type num_colors_ = 0;
    int rounds_ = 0;
};

/// Colors the vertices of the graph of the square matrix A at handle.options().distance, on
/// A's executor. DimensionMismatch when A is not square; BadInput for a distance other than
/// 1 or 2, or an algorithm that does not color at that distance; NotSupported for `vendor`
/// off CUDA or with 64-bit indices. The handle is unchanged on failure.
template <typename V, typename I>
LOOM_EXPORT Coloring<I> color(ColoringHandle& handle, const matrix::Csr<V, I>& A);

/// Colors the rows of A (m x n, any shape) so that rows storing an entry in the same column
/// get different colors: the distance-2 coloring of the rows' side of A's bipartite graph.
/// Algorithms: automatic, greedy, vb, vbbit, nb (BadInput for the others).
template <typename V, typename I>
LOOM_EXPORT Coloring<I> color_bipartite(ColoringHandle& handle, const matrix::Csr<V, I>& A);

}  // namespace loom::graph

LOOM_PUBLIC_END
