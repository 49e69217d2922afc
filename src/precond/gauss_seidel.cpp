#include "loom/precond/gauss_seidel.hpp"

#include <string>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "precond/system_matrix.hpp"
#include "solver/scaled_apply.hpp"

namespace loom::precond {
namespace {

// The sweep orders are built here, on the host at setup, from graph kernels: the sweep kernel
// (sparse::gauss_seidel_sweep) takes the order as input, so Sparse does not call Graph.

/// Counting sort of items 0..n-1 by group, ascending inside a group: fills `sorted` and
/// returns the group boundaries (num_groups + 1).
template <typename I>
std::vector<size_type> group_items(const std::vector<I>& group_of, size_type num_groups,
                                   std::vector<I>& sorted)
{
    std::vector<size_type> ptrs(num_groups + 1, 0);
    for (const auto g : group_of) ++ptrs[static_cast<size_type>(g) + 1];
    for (size_type g = 0; g < num_groups; ++g) ptrs[g + 1] += ptrs[g];
    sorted.assign(group_of.size(), I{});
    auto next = ptrs;
    for (std::size_t item = 0; item < group_of.size(); ++item) {
        sorted[next[static_cast<size_type>(group_of[item])]++] = static_cast<I>(item);
    }
    return ptrs;
}

/// Rows grouped by a distance-1 coloring of A's (symmetrized) pattern.
template <typename V, typename I>
sparse::SweepOrder<I> point_sweep_order(const matrix::Csr<V, I>& A,
                                        graph::ColoringHandle& handle)
{
    const auto coloring = graph::color(handle, A);
    std::vector<I> rows;
    auto color_ptrs = group_items(coloring.colors.to_host(), coloring.num_colors, rows);
    return {Array<I>(A.executor(), rows), Array<I>(A.executor(), 0), std::move(color_ptrs)};
}

/// Clusters = the MIS-2 aggregates of A's graph, colored by a distance-1 coloring of the
/// coarse graph; a cluster's rows ascending.
template <typename V, typename I>
sparse::SweepOrder<I> cluster_sweep_order(const matrix::Csr<V, I>& A,
                                          graph::ColoringHandle& handle)
{
    const auto aggregation = graph::mis2_aggregation(A);
    const auto coloring = graph::color(handle, graph::coarse_graph(A, aggregation));
    std::vector<I> clusters;  // aggregates grouped by color
    auto color_ptrs = group_items(coloring.colors.to_host(), coloring.num_colors, clusters);
    std::vector<I> rows_by_aggregate;
    const auto aggregate_ptrs =
        group_items(aggregation.aggregate_of.to_host(), aggregation.count(), rows_by_aggregate);
    std::vector<I> rows;
    std::vector<I> cluster_ptrs{0};
    rows.reserve(rows_by_aggregate.size());
    for (const auto a : clusters) {
        const auto k = static_cast<size_type>(a);
        rows.insert(rows.end(), rows_by_aggregate.begin() + aggregate_ptrs[k],
                    rows_by_aggregate.begin() + aggregate_ptrs[k + 1]);
        cluster_ptrs.push_back(static_cast<I>(rows.size()));
    }
    return {Array<I>(A.executor(), rows), Array<I>(A.executor(), cluster_ptrs),
            std::move(color_ptrs)};
}

}  // namespace

GaussSeidelDirection parse_gauss_seidel_direction(const std::string& text)
{
    return names_of(GaussSeidelDirection{})
        .parse(text, "loom::precond::parse_gauss_seidel_direction");
}

template <typename V, typename I>
auto GaussSeidel<V, I>::Builder::with_relaxation(double omega) -> Builder&
{
    if (!(omega > 0 && omega < 2)) {
        throw BadInput("loom::precond::GaussSeidel::Builder::with_relaxation",
                       "relaxation factor " + std::to_string(omega) + " is outside (0, 2)");
    }
    return this->set(&Parameters::relaxation, omega);
}

template <typename V, typename I>
auto GaussSeidel<V, I>::Builder::with_sweeps(size_type sweeps) -> Builder&
{
    if (sweeps == 0) {
        throw BadInput("loom::precond::GaussSeidel::Builder::with_sweeps",
                       "at least one sweep is needed");
    }
    return this->set(&Parameters::sweeps, sweeps);
}

template <typename V, typename I>
GaussSeidel<V, I>::GaussSeidel(std::shared_ptr<const Executor> exec,
                               std::shared_ptr<const LinOp<V>> system, const Parameters& params)
    : EnableGenerated<GaussSeidel, V, Parameters>(exec, {}, params)
{
    auto A = detail::square_csr_system<V, I>("loom::precond::GaussSeidel", system, exec);
    this->set_size(A->size());
    inverse_diagonal_ = sparse::invert_diagonal(*A);
    graph::ColoringHandle handle({.algorithm = params.coloring});
    order_ = params.variant == GaussSeidelVariant::point ? point_sweep_order(*A, handle)
                                                         : cluster_sweep_order(*A, handle);
    matrix_ = std::move(A);
}

template <typename V, typename I>
void GaussSeidel<V, I>::smooth(const matrix::Dense<V>& b, matrix::Dense<V>& x,
                               size_type sweeps) const
{
    const V omega = static_cast<V>(this->parameters().relaxation);
    const auto sweep = [&](sparse::SweepDirection direction) {
        sparse::gauss_seidel_sweep(*matrix_, inverse_diagonal_, order_, direction, omega, b, x);
    };
    for (size_type s = 0; s < sweeps; ++s) {
        if (this->parameters().direction != GaussSeidelDirection::backward) {
            sweep(sparse::SweepDirection::forward);
        }
        if (this->parameters().direction != GaussSeidelDirection::forward) {
            sweep(sparse::SweepDirection::backward);
        }
    }
}

template <typename V, typename I>
void GaussSeidel<V, I>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    x.fill(V{0});
    smooth(b, x, this->parameters().sweeps);
}

template <typename V, typename I>
void GaussSeidel<V, I>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                                   matrix::Dense<V>& x) const
{
    loom::detail::scaled_apply(this->executor(), alpha, b, beta, x,
                               [this](const auto& in, auto& out) { apply_impl(in, out); });
}

#define LOOM_INSTANTIATE_GAUSS_SEIDEL_PRECOND(V, I) template class GaussSeidel<V, I>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GAUSS_SEIDEL_PRECOND)

}  // namespace loom::precond
