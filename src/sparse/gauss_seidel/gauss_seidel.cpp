// Multicolor Gauss-Seidel: the sweep orders (built on the host at setup, from a coloring or
// an MIS-2 aggregation) and the checked entry point of the sweep kernels.
#include "loom/sparse/gauss_seidel.hpp"

#include <string>
#include <vector>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/graph/mis2.hpp"
#include "sparse/gauss_seidel/kernels.hpp"

namespace loom::sparse {
namespace {

template <typename V, typename I>
void check_square(const char* where, const matrix::Csr<V, I>& A)
{
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(
            where, "A is " + loom::to_string(A.size()) + "; Gauss-Seidel needs a square matrix");
    }
    if (!A.executor()) throw BadInput(where, "A has no executor");
}

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

}  // namespace

template <typename V, typename I>
SweepOrder<I> point_sweep_order(const matrix::Csr<V, I>& A, graph::ColoringHandle& handle)
{
    check_square("loom::sparse::point_sweep_order", A);
    const auto coloring = graph::color(handle, A);
    std::vector<I> rows;
    auto color_ptrs = group_items(coloring.colors.to_host(), coloring.num_colors, rows);
    return {Array<I>(A.executor(), rows), Array<I>(A.executor(), 0), std::move(color_ptrs)};
}

template <typename V, typename I>
SweepOrder<I> cluster_sweep_order(const matrix::Csr<V, I>& A, graph::ColoringHandle& handle)
{
    check_square("loom::sparse::cluster_sweep_order", A);
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

template <typename V, typename I>
void gauss_seidel_sweep(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal,
                        const SweepOrder<I>& order, SweepDirection direction, V omega,
                        const matrix::Dense<V>& b, matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::sparse::gauss_seidel_sweep";
    check_square(where, A);
    const auto n = A.rows();
    const auto clusters = order.is_point() ? n : order.cluster_ptrs.size() - 1;
    if (inverse_diagonal.size() != n || order.rows.size() != n ||
        (!order.is_point() && order.cluster_ptrs.size() == 0) ||
        (order.num_colors() > 0 ? order.color_ptrs.back() != clusters : n != 0)) {
        throw BadInput(where, "the inverse diagonal or the sweep order does not belong to the " +
                                  std::to_string(n) + "-row matrix");
    }
    if (b.rows() != n || x.rows() != n || b.cols() != x.cols()) {
        throw DimensionMismatch(
            where, "b", b.size(), "x", x.size(),
            "b and x need A's " + std::to_string(n) + " rows and the same number of columns");
    }
    const auto& exec = A.executor();
    for (const auto* other :
         {&inverse_diagonal.executor(), &order.rows.executor(), &b.executor(), &x.executor()}) {
        if (!*other || !exec->same_memory_as(**other)) {
            throw BadInput(where,
                           "A, the inverse diagonal, the order, b and x must live in "
                           "one executor's memory");
        }
    }
    if (n == 0 || b.cols() == 0) return;
    LOOM_RUN_KERNEL(where, *exec, gauss_seidel_sweep, A, inverse_diagonal, order, direction, omega,
                    b, x);
}

#define LOOM_INSTANTIATE_GAUSS_SEIDEL(V, I)                                                       \
    template SweepOrder<I> point_sweep_order(const matrix::Csr<V, I>&, graph::ColoringHandle&);   \
    template SweepOrder<I> cluster_sweep_order(const matrix::Csr<V, I>&, graph::ColoringHandle&); \
    template void gauss_seidel_sweep(const matrix::Csr<V, I>&, const Array<V>&,                   \
                                     const SweepOrder<I>&, SweepDirection, V,                     \
                                     const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GAUSS_SEIDEL)

}  // namespace loom::sparse
