// Matrix generators for tests and benchmarks: Poisson stencils on regular grids and seeded
// random patterns. Every generator builds its arrays on the host in O(nnz) (in parallel
// when Loom has OpenMP) and copies them to the executor once. Columns are sorted within
// rows and never repeated. Random generators use their own RNG, so a seed gives the same
// matrix on every platform, standard library and thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

/// The seed the random generators use when none is given.
inline constexpr std::uint64_t default_generator_seed = 42;

/// The Laplacian on an n x n grid with Dirichlet boundaries: n^2 rows, row y * n + x.
/// points = 5: 4 on the diagonal, -1 for the 4 neighbours; points = 9: 8 and -1 for the
/// 8 neighbours (including diagonals). Interior rows sum to 0.
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> poisson2d(std::shared_ptr<const Executor> exec, size_type n, int points = 5);

/// The same on an n x n x n grid: n^3 rows, row (z * n + y) * n + x; points = 7 (6 and -1
/// for the 6 face neighbours) or 27 (26 and -1 for every neighbour of the 3x3x3 cube).
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> poisson3d(std::shared_ptr<const Executor> exec, size_type n, int points = 7);

/// rows x cols, every row with min(nnz_per_row, cols) distinct uniformly drawn columns;
/// values uniform in [-1, 1) (real and imaginary parts alike).
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> random_uniform(std::shared_ptr<const Executor> exec, size_type rows,
                                     size_type cols, size_type nnz_per_row,
                                     std::uint64_t seed = default_generator_seed);

/// rows x rows with power-law row lengths: the length of a row is a Pareto draw of density
/// ~ x^-exponent (exponent > 1; 2 gives P(length >= k) ~ 1/k, as in many graphs), scaled so
/// that the mean is avg_nnz_per_row and clipped to rows. Many rows are short or empty, a few
/// are very long. Columns are uniform without repeats, values uniform in [-1, 1).
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> power_law(std::shared_ptr<const Executor> exec, size_type rows,
                                double avg_nnz_per_row, std::uint64_t seed = default_generator_seed,
                                double exponent = 2.0);

/// The R-MAT recursive quadrant probabilities and what rmat does with the edges it draws.
struct RmatOptions {
    /// Probabilities of the top-left, top-right and bottom-left quadrant at every level (the
    /// bottom-right one gets 1 - a - b - c); Graph500's values. Each is rounded to a multiple
    /// of 2^-16 (16 random bits decide a level).
    double a = 0.57;
    double b = 0.19;
    double c = 0.19;
    /// Also store the reverse of every edge (an undirected graph): a symmetric pattern with
    /// equal values at (i, j) and (j, i).
    bool symmetric = false;
    /// Renumber the vertices by a random permutation (as Graph500 does), which scatters the
    /// hubs over the index range; without it vertex 0 is the largest hub and the high-degree
    /// vertices sit at small indices (ids with few one bits).
    bool permute = false;
    std::uint64_t seed = default_generator_seed;
};

/// The adjacency matrix of an R-MAT graph (Chakrabarti, Zhan, Faloutsos 2004; the Graph500
/// Kronecker generator): 2^scale vertices, edge_factor * 2^scale edges, each drawn
/// independently by descending `scale` levels of the 2 x 2 quadrant probabilities. Row i holds
/// the edges leaving vertex i (entry (i, j) for i -> j): row lengths (out-degrees) and column
/// counts (in-degrees) are both heavy-tailed. Repeated edges are merged into one entry;
/// self-loops are kept (a diagonal entry). Values uniform in [-1, 1). So nnz is somewhat
/// below edge_factor * 2^scale (x2 when symmetric). scale in [0, 31]; NotSupported when the
/// edges drawn do not fit I.
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> rmat(std::shared_ptr<const Executor> exec, int scale, size_type edge_factor,
                           const RmatOptions& options = {});

/// A generated system with the nodes its unknowns belong to: `coordinates` is nodes x dim
/// (empty where the generator has no geometry), a node's dofs_per_node unknowns consecutive.
template <typename V, typename I = int32>
struct GeneratedProblem {
    Csr<V, I> A;
    Dense<V> coordinates;
    size_type dofs_per_node = 1;
};

/// Linear elasticity on the unit cube cut into n^3 trilinear hexahedral (Q1) elements (2x2x2
/// Gauss points), Young's modulus 1, Poisson ratio 0.3, clamped (u = 0) on the face x = 0,
/// whose nodes are left out: n (n + 1)^2 nodes of 3 unknowns (u, v, w consecutive). The node
/// at (x, y, z) / n, x >= 1, is number (z (n + 1) + y) n + x - 1; coordinates are nodes x 3.
/// Symmetric positive definite, up to 81 entries per row (a 3x3 block per neighbouring node,
/// columns sorted).
template <typename V, typename I = int32>
LOOM_EXPORT GeneratedProblem<V, I> elasticity3d(std::shared_ptr<const Executor> exec, size_type n);

/// The problem a spec names: "poisson3d:N[:7|27]", "poisson2d:N[:5|9]", "elasticity3d:N",
/// "powerlaw:ROWS:AVG[:SEED]", "random:ROWS:COLS:PER_ROW[:SEED]", "rmat:SCALE:EDGE_FACTOR[:SEED]"
/// (rmat, directed, vertex ids as drawn) or "graph500:SCALE:EDGE_FACTOR[:SEED]" (rmat,
/// symmetric, vertices randomly renumbered: Graph500's graph); coordinates for
/// elasticity3d only. BadInput naming the spec when it is malformed.
template <typename V, typename I = int32>
LOOM_EXPORT GeneratedProblem<V, I> generate_problem(std::shared_ptr<const Executor> exec,
                                                    const std::string& spec);

/// The matrix of generate_problem(exec, spec).
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> generate_csr(std::shared_ptr<const Executor> exec, const std::string& spec);

}  // namespace loom::matrix

LOOM_PUBLIC_END
