// Argument checks, result sizing and backend dispatch of the CSR utilities.
#include "loom/sparse/csr_utils.hpp"

#include <cmath>
#include <string>

#include "base/dispatch.hpp"
#include "base/executor_of.hpp"
#include "base/instantiate_storage.hpp"
#include "base/prefix_sum.hpp"
#include "loom/base/error.hpp"
#include "sparse/csr_utils/kernels.hpp"

namespace loom::sparse {
namespace {

using loom::detail::executor_of;

/// A column vector of `rows` entries in A's memory.
template <typename V, typename Matrix>
void check_vector(const char* where, const Matrix& A, const matrix::Dense<V>& v,
                  const char* name, size_type rows, const char* what)
{
    if (v.rows() != rows || v.cols() != 1) {
        throw DimensionMismatch(where, "A", A.size(), name, v.size(), what);
    }
    if (!v.executor() || !v.executor()->same_memory_as(*A.executor())) {
        throw BadInput(where, std::string(name) + " must live in A's memory (A is on " +
                                  A.executor()->name() + ", " + name + " on " +
                                  (v.executor() ? v.executor()->name() : "none") + ")");
    }
}

/// A Csr of `size` whose row pointers are the exclusive prefix sum of the counts that
/// count(row_ptrs) writes; fill(result) fills its entries.
template <typename V, typename I, typename Count, typename Fill>
matrix::Csr<V, I> csr_from_row_counts(const std::shared_ptr<const Executor>& exec, dim2 size,
                                      Count&& count, Fill&& fill)
{
    Array<I> row_ptrs(exec, size.rows + 1);
    count(row_ptrs);
    detail::exclusive_prefix_sum(row_ptrs);
    matrix::Csr<V, I> result(exec, size, detail::load_element(row_ptrs, size.rows));
    result.row_ptrs() = std::move(row_ptrs);
    fill(result);
    return result;
}

template <typename V, typename I>
matrix::Csr<V, I> transposed(const char* where, const matrix::Csr<V, I>& A, bool conjugate)
{
    const auto& exec = executor_of(where, A);
    matrix::Csr<V, I> result(exec, A.size().transposed(), A.nnz());
    LOOM_RUN_KERNEL(where, *exec, transpose, A, conjugate, result);
    return result;
}

}  // namespace

const char* to_string(ColumnOrder order)
{
    switch (order) {
    case ColumnOrder::unordered: return "unordered";
    case ColumnOrder::nondecreasing: return "nondecreasing";
    case ColumnOrder::increasing: return "increasing";
    }
    return "unknown";
}

template <typename V, typename I>
matrix::Csr<V, I> transpose(const matrix::Csr<V, I>& A)
{
    return transposed("loom::sparse::transpose", A, false);
}

template <typename V, typename I>
matrix::Csr<V, I> conj_transpose(const matrix::Csr<V, I>& A)
{
    return transposed("loom::sparse::conj_transpose", A, is_complex_v<V>);
}

template <typename V, typename I>
ColumnOrder column_order(const matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::sparse::column_order";
    const auto& exec = executor_of(where, A);
    if (A.nnz() < 2) return ColumnOrder::increasing;
    return LOOM_RUN_KERNEL(where, *exec, column_order, A);
}

template <typename V, typename I>
void sort_columns(matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::sparse::sort_columns";
    const auto& exec = executor_of(where, A);
    if (column_order(A) != ColumnOrder::unordered) return;
    LOOM_RUN_KERNEL(where, *exec, sort_columns, A);
}

template <typename V, typename I>
void merge_duplicates(matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::sparse::merge_duplicates";
    const auto& exec = executor_of(where, A);
    const auto order = column_order(A);
    if (order == ColumnOrder::increasing) return;
    auto merge = [&](const matrix::Csr<V, I>& sorted) {
        return csr_from_row_counts<V, I>(
            exec, A.size(),
            [&](Array<I>& row_nnz) {
                LOOM_RUN_KERNEL(where, *exec, merged_row_nnz, sorted, row_nnz);
            },
            [&](matrix::Csr<V, I>& result) {
                LOOM_RUN_KERNEL(where, *exec, merge_sorted_duplicates, sorted, result);
            });
    };
    if (order == ColumnOrder::nondecreasing) {
        A = merge(A);
        return;
    }
    matrix::Csr<V, I> sorted(A);  // a copy: A is left as it is if anything below throws
    LOOM_RUN_KERNEL(where, *exec, sort_columns, sorted);
    A = merge(sorted);
}

template <typename V, typename I>
matrix::Dense<V> extract_diagonal(const matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::sparse::extract_diagonal";
    const auto& exec = executor_of(where, A);
    matrix::Dense<V> diagonal(exec, dim2{std::min(A.rows(), A.cols()), 1});
    LOOM_RUN_KERNEL(where, *exec, extract_diagonal, A, diagonal);
    return diagonal;
}

template <typename V, typename I>
void extract_diagonal(const matrix::Csr<V, I>& A, matrix::Dense<V>& diagonal)
{
    constexpr const char* where = "loom::sparse::extract_diagonal";
    const auto& exec = executor_of(where, A);
    check_vector(where, A, diagonal, "diagonal", std::min(A.rows(), A.cols()),
                 "the diagonal needs min(rows, cols) rows and one column");
    LOOM_RUN_KERNEL(where, *exec, extract_diagonal, A, diagonal);
}

template <typename V, typename I>
void scale_diagonal(matrix::Csr<V, I>& A, V factor)
{
    constexpr const char* where = "loom::sparse::scale_diagonal";
    const auto& exec = executor_of(where, A);
    if (factor == V{1}) return;
    LOOM_RUN_KERNEL(where, *exec, scale_diagonal, A, factor);
}

template <typename V, typename I>
void scale_rows(matrix::Csr<V, I>& A, const matrix::Dense<V>& s)
{
    constexpr const char* where = "loom::sparse::scale_rows";
    const auto& exec = executor_of(where, A);
    check_vector(where, A, s, "s", A.rows(), "s needs one row per row of A and one column");
    LOOM_RUN_KERNEL(where, *exec, scale_rows, A, s);
}

template <typename V, typename I>
void scale_columns(matrix::Csr<V, I>& A, const matrix::Dense<V>& s)
{
    constexpr const char* where = "loom::sparse::scale_columns";
    const auto& exec = executor_of(where, A);
    check_vector(where, A, s, "s", A.cols(), "s needs one row per column of A and one column");
    LOOM_RUN_KERNEL(where, *exec, scale_columns, A, s);
}

template <typename V, typename I>
void drop_small_entries(matrix::Csr<V, I>& A, remove_complex_t<V> threshold, bool keep_diagonal)
{
    constexpr const char* where = "loom::sparse::drop_small_entries";
    const auto& exec = executor_of(where, A);
    if (std::isnan(threshold) || threshold < 0) {
        throw BadInput(where, "the threshold must be a non-negative number, got " +
                                  std::to_string(threshold));
    }
    if (threshold == 0 || A.nnz() == 0) return;  // nothing is below 0 in absolute value
    A = csr_from_row_counts<V, I>(
        exec, A.size(),
        [&](Array<I>& row_nnz) {
            LOOM_RUN_KERNEL(where, *exec, kept_row_nnz, A, threshold, keep_diagonal, row_nnz);
        },
        [&](matrix::Csr<V, I>& result) {
            LOOM_RUN_KERNEL(where, *exec, drop_small_entries, A, threshold, keep_diagonal, result);
        });
}

#define LOOM_INSTANTIATE_CSR_UTILS(V, I)                                                       \
    template matrix::Csr<V, I> transpose(const matrix::Csr<V, I>&);                            \
    template matrix::Csr<V, I> conj_transpose(const matrix::Csr<V, I>&);                       \
    template ColumnOrder column_order(const matrix::Csr<V, I>&);                               \
    template void sort_columns(matrix::Csr<V, I>&);                                            \
    template void merge_duplicates(matrix::Csr<V, I>&);                                        \
    template matrix::Dense<V> extract_diagonal(const matrix::Csr<V, I>&);                      \
    template void extract_diagonal(const matrix::Csr<V, I>&, matrix::Dense<V>&);               \
    template void scale_diagonal(matrix::Csr<V, I>&, V);                                       \
    template void scale_rows(matrix::Csr<V, I>&, const matrix::Dense<V>&);                     \
    template void scale_columns(matrix::Csr<V, I>&, const matrix::Dense<V>&);                  \
    template void drop_small_entries(matrix::Csr<V, I>&, remove_complex_t<V>, bool);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_UTILS)
// 16-bit storage: the transpose alone (it moves values; SpMM's transposing modes use it).
#define LOOM_INSTANTIATE_CSR_TRANSPOSE(V, I) \
    template matrix::Csr<V, I> transpose(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_TRANSPOSE)

}  // namespace loom::sparse
