// The building blocks of smoothed-aggregation setup that are not a public kernel of their
// own: the strength graph, the L1 diagonal, the aggregation of nodes, tentative prolongators
// and the spectral-radius estimate. Each takes and returns data on the matrix's executor and
// runs there (the kernels of multigrid/kernels/): nothing of A travels to the host.
#pragma once

#include "loom/base/array.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::multigrid {

/// The entries of A with |a_ij|^2 >= theta^2 |a_ii a_jj|, and the diagonal (values kept).
/// theta = 0 returns A's pattern unchanged (a copy).
template <typename V, typename I>
matrix::Csr<V, I> strength_graph(const matrix::Csr<V, I>& A, double theta);

/// 1 / sum_j |a_ij| for every row; NumericalError naming the first zero row.
template <typename V, typename I>
Array<V> l1_inverse_diagonal(const matrix::Csr<V, I>& A);

/// Pairwise aggregation of S's graph, `passes` times: each pass matches vertices in
/// handshake rounds (every unmatched vertex proposes its unmatched neighbour of strongest
/// negative coupling relative to the diagonal, -Re s_ij / max(|s_ii|, |s_jj|) > 0, ties by a
/// hash of the edge; mutual proposals pair) until a round pairs nobody; a vertex left alone
/// then joins its strongest matched neighbour's pair (or stays alone without one). The next
/// pass matches those aggregates on the coarse graph P^T S P. Aggregates are connected and
/// hold about 2^passes vertices (a few more where vertices joined). An aggregate's root is
/// the lower vertex of its pair (of its root aggregate's pair after several passes),
/// aggregates numbered by root. Every step is a gather, so the aggregates are the same on
/// every backend and thread count.
template <typename V, typename I>
graph::Aggregation<I> pairwise_aggregation(const matrix::Csr<V, I>& S, int passes);

/// How the vertices of a level are aggregated.
struct AggregationChoice {
    bool pairwise = false;
    int passes = 2;              ///< of pairwise aggregation
    graph::Mis2Options mis2 = {};  ///< of MIS-2 aggregation
};

/// The aggregation of S's nodes, a node being `block` consecutive rows: the node graph (an
/// edge where any entry couples two nodes, values summed) is aggregated and every row joins
/// its node's aggregate (roots: the first row of a root node). block 1 aggregates the rows
/// themselves. BadInput when block does not divide the rows.
template <typename V, typename I>
graph::Aggregation<I> aggregate_nodes(const matrix::Csr<V, I>& S, size_type block,
                                      const AggregationChoice& choice);

/// P(v, aggregate_of[v]) = 1: rows x count, one entry per row.
template <typename V, typename I>
matrix::Csr<V, I> piecewise_constant(const graph::Aggregation<I>& aggregation);

/// The tentative prolongator of near-null-space vectors B (n x m) and the coarse vectors:
/// per aggregate, B restricted to its rows = Q R (modified Gram-Schmidt); P holds the Qs
/// (aggregate a owns columns a m .. a m + m - 1) and the coarse vectors the Rs. So
/// P * B_coarse = B and P^H P = I. NumericalError naming an aggregate whose rows cannot
/// represent m independent vectors.
template <typename V, typename I>
struct TentativeProlongator {
    matrix::Csr<V, I> P;
    matrix::Dense<V> coarse_vectors;
};
template <typename V, typename I>
TentativeProlongator<V, I> orthonormal_tentative(const graph::Aggregation<I>& aggregation,
                                                 const matrix::Dense<V>& vectors);

/// R = P^H and where each of P's entries sits in R (P's rows free of duplicate columns), so
/// that a new P of the same pattern is transposed by one scatter (conj_transpose_values).
template <typename V, typename I>
struct Transposed {
    matrix::Csr<V, I> R;
    Array<I> positions;
};
template <typename V, typename I>
Transposed<V, I> conj_transpose_with_positions(const matrix::Csr<V, I>& P);

/// R's values = P^H's for a P with the pattern `positions` were made for.
template <typename V, typename I>
void conj_transpose_values(const matrix::Csr<V, I>& P, const Array<I>& positions,
                           matrix::Csr<V, I>& R);

/// rho(D^-1 A) estimated by `iterations` power iterations from a fixed pseudo-random vector
/// (the norm ratio of the last one): a slight underestimate that tightens with iterations.
template <typename V, typename I>
double spectral_radius(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal,
                       int iterations);

}  // namespace loom::multigrid
