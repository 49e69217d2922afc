// Sequential CSR utilities: plain loops, the oracle for the other backends.
#include <algorithm>
#include <numeric>
#include <vector>

#include "base/instantiate_storage.hpp"
#include "sparse/csr_utils/kernels.hpp"
#include "sparse/csr_utils/rows.hpp"

namespace loom::sparse::reference {
using csr_rows::conj_if;

template <typename V, typename I>
void transpose(const ReferenceExecutor&, const matrix::Csr<V, I>& A, bool conjugate,
               matrix::Csr<V, I>& result)
{
    // Counting sort by column: rows are visited in order, so every result row comes out
    // sorted, and duplicates keep A's order.
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    I* out_ptrs = result.row_ptrs().data();
    std::fill_n(out_ptrs, A.cols() + 1, I{0});
    for (size_type k = 0; k < A.nnz(); ++k) ++out_ptrs[cols[k] + 1];
    std::partial_sum(out_ptrs, out_ptrs + A.cols() + 1, out_ptrs);
    std::vector<I> next(out_ptrs, out_ptrs + A.cols());
    I* out_cols = result.col_idxs().data();
    V* out_values = result.values().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
            const auto at = next[cols[k]]++;
            out_cols[at] = static_cast<I>(r);
            out_values[at] = conj_if(conjugate, values[k]);
        }
    }
}

template <typename V, typename I>
ColumnOrder column_order(const ReferenceExecutor&, const matrix::Csr<V, I>& A)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    auto order = ColumnOrder::increasing;
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = row_ptrs[r] + 1; k < row_ptrs[r + 1]; ++k) {
            if (cols[k] < cols[k - 1]) return ColumnOrder::unordered;
            if (cols[k] == cols[k - 1]) order = ColumnOrder::nondecreasing;
        }
    }
    return order;
}

template <typename V, typename I>
void sort_columns(const ReferenceExecutor&, matrix::Csr<V, I>& A)
{
    const I* row_ptrs = A.row_ptrs().data();
    I* cols = A.col_idxs().data();
    V* values = A.values().data();
    std::vector<std::pair<I, V>> row;
    for (size_type r = 0; r < A.rows(); ++r) {
        row.clear();
        for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) row.emplace_back(cols[k], values[k]);
        std::stable_sort(row.begin(), row.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t i = 0; i < row.size(); ++i) {
            cols[row_ptrs[r] + i] = row[i].first;
            values[row_ptrs[r] + i] = row[i].second;
        }
    }
}

template <typename V, typename I>
void merged_row_nnz(const ReferenceExecutor&, const matrix::Csr<V, I>& sorted, Array<I>& row_nnz)
{
    const I* row_ptrs = sorted.row_ptrs().data();
    const I* cols = sorted.col_idxs().data();
    for (size_type r = 0; r < sorted.rows(); ++r) {
        row_nnz.data()[r] = csr_rows::merged_count(row_ptrs, cols, r);
    }
}

template <typename V, typename I>
void merge_sorted_duplicates(const ReferenceExecutor&, const matrix::Csr<V, I>& sorted,
                             matrix::Csr<V, I>& result)
{
    const I* out_ptrs = result.row_ptrs().data();
    for (size_type r = 0; r < sorted.rows(); ++r) {
        csr_rows::merge_row(sorted.row_ptrs().data(), sorted.col_idxs().data(),
                            sorted.values().data(), r, out_ptrs[r], result.col_idxs().data(),
                            result.values().data());
    }
}

template <typename V, typename I>
void extract_diagonal(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                      matrix::Dense<V>& diagonal)
{
    for (size_type r = 0; r < diagonal.rows(); ++r) {
        diagonal.at(r, 0) =
            csr_rows::diagonal_sum(A.row_ptrs().data(), A.col_idxs().data(), A.values().data(), r);
    }
}

template <typename V, typename I>
void scale_diagonal(const ReferenceExecutor&, matrix::Csr<V, I>& A, V factor)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    V* values = A.values().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        csr_rows::scale_diagonal(row_ptrs, cols, values, r, factor);
    }
}

template <typename V, typename I>
void scale_rows(const ReferenceExecutor&, matrix::Csr<V, I>& A, const matrix::Dense<V>& s)
{
    const I* row_ptrs = A.row_ptrs().data();
    V* values = A.values().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) values[k] *= s.at(r, 0);
    }
}

template <typename V, typename I>
void scale_columns(const ReferenceExecutor&, matrix::Csr<V, I>& A, const matrix::Dense<V>& s)
{
    const I* cols = A.col_idxs().data();
    V* values = A.values().data();
    for (size_type k = 0; k < A.nnz(); ++k) values[k] *= s.at(cols[k], 0);
}

template <typename V, typename I>
void kept_row_nnz(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                  remove_complex_t<V> threshold, bool keep_diagonal, Array<I>& row_nnz)
{
    for (size_type r = 0; r < A.rows(); ++r) {
        row_nnz.data()[r] = csr_rows::kept_count(A.row_ptrs().data(), A.col_idxs().data(),
                                                 A.values().data(), r, threshold, keep_diagonal);
    }
}

template <typename V, typename I>
void drop_small_entries(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                        remove_complex_t<V> threshold, bool keep_diagonal,
                        matrix::Csr<V, I>& result)
{
    const I* out_ptrs = result.row_ptrs().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        csr_rows::copy_kept(A.row_ptrs().data(), A.col_idxs().data(), A.values().data(), r,
                            threshold, keep_diagonal, out_ptrs[r], result.col_idxs().data(),
                            result.values().data());
    }
}

#define LOOM_INSTANTIATE_CSR_UTILS_REFERENCE(V, I) \
    LOOM_INSTANTIATE_CSR_UTILS_KERNELS(ReferenceExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_UTILS_REFERENCE)
#define LOOM_INSTANTIATE_CSR_TRANSPOSE_REFERENCE(V, I) \
    LOOM_INSTANTIATE_CSR_TRANSPOSE_KERNEL(ReferenceExecutor, V, I)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_TRANSPOSE_REFERENCE)

}  // namespace loom::sparse::reference

namespace loom::sparse {
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_CSR_SCALE_COLUMNS, reference,
                                      ReferenceExecutor)
}
