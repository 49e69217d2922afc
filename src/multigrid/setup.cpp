#include "multigrid/setup.hpp"

#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spmv.hpp"
#include "multigrid/kernels/kernels.hpp"

namespace loom::multigrid {

template <typename V, typename I>
matrix::Csr<V, I> strength_graph(const matrix::Csr<V, I>& A, double theta)
{
    [[maybe_unused]] constexpr const char* where = "loom::multigrid::strength_graph";
    if (theta <= 0) return A;
    const auto& exec = A.executor();
    const auto diagonal = sparse::extract_diagonal(A);
    Array<I> row_ptrs(exec, A.rows() + 1);
    LOOM_RUN_KERNEL(where, *exec, strength_row_nnz, A, diagonal, theta, row_ptrs);
    detail::exclusive_prefix_sum(row_ptrs);
    matrix::Csr<V, I> S(exec, A.size(), detail::load_element(row_ptrs, A.rows()));
    S.row_ptrs() = std::move(row_ptrs);
    LOOM_RUN_KERNEL(where, *exec, strength_fill, A, diagonal, theta, S);
    return S;
}

template <typename V, typename I>
Array<V> l1_inverse_diagonal(const matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::multigrid::l1_inverse_diagonal";
    const auto& exec = A.executor();
    Array<V> inverse(exec, A.rows());
    const size_type zero_row = LOOM_RUN_KERNEL(where, *exec, l1_inverse_diagonal, A, inverse);
    if (zero_row < A.rows()) {
        throw NumericalError(where, "row " + std::to_string(zero_row) + " is zero");
    }
    return inverse;
}

namespace {

/// One pass of pairwise aggregation (pairwise_aggregation above).
template <typename V, typename I>
graph::Aggregation<I> match_pairs(const matrix::Csr<V, I>& S)
{
    [[maybe_unused]] constexpr const char* where = "loom::multigrid::pairwise_aggregation";
    const auto& exec = S.executor();
    const size_type n = S.rows();
    Array<I> partner(exec, n);
    partner.fill(I{-1});
    Array<I> proposal(exec, n);
    const auto diagonal = sparse::extract_diagonal(S);
    // With symmetric weights the strongest edge among unmatched vertices (by weight, then
    // edge hash) is both its ends' pick, so every round pairs someone until no candidate is
    // left; a nonsymmetric S may stop earlier, leaving more vertices alone.
    for (;;) {
        LOOM_RUN_KERNEL(where, *exec, pairwise_propose, S, diagonal, partner, proposal);
        if (LOOM_RUN_KERNEL(where, *exec, pairwise_accept, proposal, partner) == 0) break;
    }
    // A vertex left alone joins its strongest matched neighbour's pair, as Ginkgo's PGM does:
    // left alone, it would stay a one-vertex aggregate on every level below, cut off by the
    // ever larger aggregates around it, which then pair among themselves into a few giants
    // with the singletons hanging on them (a star the next levels pair one vertex at a time).
    auto& joined = proposal;
    LOOM_RUN_KERNEL(where, *exec, pairwise_join, S, diagonal, partner, joined);
    Array<I> positions(exec, n + 1);
    LOOM_RUN_KERNEL(where, *exec, pair_root_flags, partner, joined, positions);
    detail::exclusive_prefix_sum(positions);
    graph::Aggregation<I> result{Array<I>(exec, n),
                                 Array<I>(exec, detail::load_element(positions, n))};
    LOOM_RUN_KERNEL(where, *exec, pair_aggregates, partner, joined, positions,
                    result.aggregate_of, result.roots);
    return result;
}

}  // namespace

template <typename V, typename I>
graph::Aggregation<I> pairwise_aggregation(const matrix::Csr<V, I>& S, int passes)
{
    constexpr const char* where = "loom::multigrid::pairwise_aggregation";
    if (passes < 1) throw BadInput(where, "passes " + std::to_string(passes) + " is below 1");
    const auto& exec = S.executor();
    auto result = match_pairs(S);
    for (int pass = 1; pass < passes && result.count() > 1; ++pass) {
        const auto pairs = match_pairs(graph::coarse_graph(S, result));
        if (pairs.count() == result.count()) break;  // nothing paired: no later pass will
        // Vertex v: its aggregate's aggregate; an aggregate's root: its root aggregate's
        // root (increasing, as the roots of both maps are).
        graph::Aggregation<I> composed{Array<I>(exec, S.rows()), Array<I>(exec, pairs.count())};
        LOOM_RUN_KERNEL(where, *exec, gather_indices, pairs.aggregate_of, result.aggregate_of,
                        composed.aggregate_of);
        LOOM_RUN_KERNEL(where, *exec, gather_indices, result.roots, pairs.roots, composed.roots);
        result = std::move(composed);
    }
    return result;
}

template <typename V, typename I>
graph::Aggregation<I> aggregate_nodes(const matrix::Csr<V, I>& S, size_type block,
                                      const AggregationChoice& choice)
{
    constexpr const char* where = "loom::multigrid::aggregate_nodes";
    const auto aggregate = [&](const matrix::Csr<V, I>& graph) {
        return choice.pairwise ? pairwise_aggregation(graph, choice.passes)
                               : graph::mis2_aggregation(graph, choice.mis2);
    };
    if (block == 1) return aggregate(S);
    if (block < 1 || S.rows() % block != 0) {
        throw BadInput(where, "nodes of " + std::to_string(block) + " rows do not divide " +
                                  std::to_string(S.rows()) + " rows");
    }
    const auto& exec = S.executor();
    const auto spread = [&](const Array<I>& values, size_type from, I scale, size_type size) {
        Array<I> out(exec, size);
        LOOM_RUN_KERNEL(where, *exec, spread_blocks, values, from, scale, out);
        return out;
    };
    const size_type nodes = S.rows() / block;
    // Row v belongs to node v / block: summing S over those "aggregates" is the node graph.
    const graph::Aggregation<I> node_of{spread({}, block, I{1}, S.rows()),
                                        spread({}, 1, I{1}, nodes)};
    const auto nodes_aggregated = aggregate(graph::coarse_graph(S, node_of));
    return {spread(nodes_aggregated.aggregate_of, block, I{1}, S.rows()),
            spread(nodes_aggregated.roots, 1, static_cast<I>(block), nodes_aggregated.count())};
}

namespace {

/// P (aggregation's rows x count m): row r holds columns aggregate_of[r] m + 0..m-1, values 1.
template <typename V, typename I>
matrix::Csr<V, I> tentative_pattern(const graph::Aggregation<I>& aggregation, size_type m)
{
    const auto& exec = aggregation.aggregate_of.executor();
    const size_type n = aggregation.aggregate_of.size();
    matrix::Csr<V, I> P(exec, dim2{n, aggregation.count() * m}, n * m);
    LOOM_RUN_KERNEL("loom::multigrid::tentative_pattern", *exec, tentative_pattern,
                    aggregation.aggregate_of, m, P);
    return P;
}

}  // namespace

template <typename V, typename I>
matrix::Csr<V, I> piecewise_constant(const graph::Aggregation<I>& aggregation)
{
    return tentative_pattern<V>(aggregation, 1);
}

template <typename V, typename I>
TentativeProlongator<V, I> orthonormal_tentative(const graph::Aggregation<I>& aggregation,
                                                 const matrix::Dense<V>& vectors)
{
    constexpr const char* where = "loom::multigrid::orthonormal_tentative";
    const auto& exec = aggregation.aggregate_of.executor();
    const matrix::Dense<V> B(exec, vectors);
    const size_type m = vectors.cols();
    const size_type count = aggregation.count();
    // Row a of the transposed piecewise-constant P: the rows of aggregate a, in order.
    const auto members = sparse::transpose(piecewise_constant<V>(aggregation));
    auto P = tentative_pattern<V>(aggregation, m);
    matrix::Dense<V> coarse(exec, dim2{count * m, m});
    const size_type failed =
        LOOM_RUN_KERNEL(where, *exec, orthonormalize_aggregates, members, B, P, coarse);
    if (failed < count) {
        const auto rows = detail::load_element(members.row_ptrs(), failed + 1) -
                          detail::load_element(members.row_ptrs(), failed);
        throw NumericalError(where, "aggregate " + std::to_string(failed) + " (" +
                                        std::to_string(rows) +
                                        " rows) cannot represent the near-null-space vectors "
                                        "independently of each other");
    }
    return {std::move(P), std::move(coarse)};
}

template <typename V, typename I>
Transposed<V, I> conj_transpose_with_positions(const matrix::Csr<V, I>& P)
{
    const auto& exec = P.executor();
    Transposed<V, I> result{sparse::conj_transpose(P), Array<I>(exec, P.nnz())};
    LOOM_RUN_KERNEL("loom::multigrid::conj_transpose_with_positions", *exec, transpose_positions,
                    P, result.R, result.positions);
    return result;
}

template <typename V, typename I>
void conj_transpose_values(const matrix::Csr<V, I>& P, const Array<I>& positions,
                           matrix::Csr<V, I>& R)
{
    const auto& exec = P.executor();
    LOOM_RUN_KERNEL("loom::multigrid::conj_transpose_values", *exec, conj_transpose_values, P,
                    positions, R);
}

template <typename V, typename I>
double spectral_radius(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal, int iterations)
{
    const auto& exec = A.executor();
    const size_type n = A.rows();
    if (n == 0) return 0;
    // Made where A is: a host-made vector would cost its generation and an upload per level.
    matrix::Dense<V> x(exec, dim2{n, 1});
    LOOM_RUN_KERNEL("loom::multigrid::spectral_radius", *exec, start_vector, x);
    matrix::Dense<V> y(exec, dim2{n, 1});
    matrix::Dense<remove_complex_t<V>> norm(exec, dim2{1, 1});
    const auto norm_of = [&](const matrix::Dense<V>& v) {
        blas::nrm2(v, norm);
        return static_cast<double>(norm.to_host()[0]);
    };
    // The norm is read back (a synchronization on a GPU) every few steps only, and the next
    // step's SpMV scales by its inverse: between reads the iterate grows by at most rho^5,
    // far from overflow. The last step starts from a unit vector, so its result's norm is
    // the estimate (the norm ratio of that step), as with a normalization every step.
    constexpr int steps_between_reads = 5;
    double scale = norm_of(x);
    if (!(scale > 0)) return 0;
    scale = 1.0 / scale;
    for (int it = 0; it < iterations; ++it) {
        sparse::spmv(sparse::Mode::none, static_cast<V>(scale), A, x, V{0}, y);
        sparse::apply_diagonal(sparse::Mode::none, V{1}, inverse_diagonal, y, V{0}, y);
        std::swap(x, y);
        scale = 1.0;
        if (it + 1 == iterations) return norm_of(x);
        if ((it + 1) % steps_between_reads == 0 || it + 2 == iterations) {
            const double size = norm_of(x);
            if (!(size > 0)) return 0;
            scale = 1.0 / size;
        }
    }
    return 0;
}

#define LOOM_INSTANTIATE_MULTIGRID_SETUP(V, I)                                              \
    template matrix::Csr<V, I> strength_graph(const matrix::Csr<V, I>&, double);            \
    template Array<V> l1_inverse_diagonal(const matrix::Csr<V, I>&);                        \
    template graph::Aggregation<I> pairwise_aggregation(const matrix::Csr<V, I>&, int);     \
    template graph::Aggregation<I> aggregate_nodes(const matrix::Csr<V, I>&, size_type,     \
                                                   const AggregationChoice&);               \
    template matrix::Csr<V, I> piecewise_constant<V, I>(const graph::Aggregation<I>&);      \
    template TentativeProlongator<V, I> orthonormal_tentative(const graph::Aggregation<I>&, \
                                                              const matrix::Dense<V>&);     \
    template Transposed<V, I> conj_transpose_with_positions(const matrix::Csr<V, I>&);      \
    template void conj_transpose_values(const matrix::Csr<V, I>&, const Array<I>&,          \
                                        matrix::Csr<V, I>&);                                \
    template double spectral_radius(const matrix::Csr<V, I>&, const Array<V>&, int);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_SETUP)

}  // namespace loom::multigrid
