// spmv_reorder (include/loom/sparse/spmv.hpp): a symmetric renumbering computed once, before
// many SpMVs, so that the x values rows read lie in fewer cache lines.
#include <algorithm>
#include <numeric>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/graph/rcm.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::sparse {
namespace {

constexpr const char* reorder_where = "loom::sparse::spmv_reorder";

/// Rows by decreasing length, equal lengths in index order: in a power-law graph the hubs,
/// whose x values most rows read, come first and share cache lines.
template <typename V, typename I>
Array<I> degree_order(const matrix::Csr<V, I>& A)
{
    const auto ptrs = A.row_ptrs().to_host();
    std::vector<I> order(static_cast<std::size_t>(A.rows()));
    std::iota(order.begin(), order.end(), I{0});
    std::stable_sort(order.begin(), order.end(), [&](I a, I b) {
        return ptrs[a + 1] - ptrs[a] > ptrs[b + 1] - ptrs[b];
    });
    return Array<I>(A.executor(), order);
}

}  // namespace

ReorderKind parse_reorder_kind(const std::string& text)
{
    return names_of(ReorderKind{}).parse(text, "loom::sparse::parse_reorder_kind");
}

template <typename V, typename I>
SpmvReordering<V, I> spmv_reorder(const matrix::Csr<V, I>& A, ReorderKind kind)
{
    if (!A.executor()) throw BadInput(reorder_where, "A has no executor");
    if (A.rows() != A.cols()) {
        throw BadInput(reorder_where, "a symmetric renumbering needs a square matrix, A is " +
                                          to_string(A.size()));
    }
    auto order = kind == ReorderKind::rcm ? graph::rcm(A) : degree_order(A);
    matrix::Permutation<I> permutation(A.executor(), std::move(order));
    auto permuted = permutation.permute(A);
    return {std::move(permuted), std::move(permutation)};
}

#define LOOM_INSTANTIATE_SPMV_REORDER(V, I)                                                    \
    template SpmvReordering<V, I> spmv_reorder(const matrix::Csr<V, I>&, ReorderKind);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_REORDER)

}  // namespace loom::sparse
