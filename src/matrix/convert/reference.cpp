// Reference conversions: plain sequential loops, the oracle for the other backends.
#include <algorithm>
#include <vector>

#include "base/instantiate.hpp"
#include "matrix/convert/kernels.hpp"
#include "matrix/convert/rows.hpp"

namespace loom::matrix::reference {
namespace {

/// Rows [0, padded_rows) of source into the slots of result (an Ell or Sellp).
template <typename V, typename I, typename Slotted>
void fill_slots(const Csr<V, I>& source, Slotted& result, size_type padded_rows)
{
    const auto layout = format_rows::rows_of(result);
    for (size_type r = 0; r < padded_rows; ++r) {
        format_rows::fill_slots(format_rows::view_of(source), r, layout(r),
                                result.col_idxs().data(), result.values().data());
    }
}

}  // namespace

template <typename V, typename I>
void coo_to_csr(const ReferenceExecutor&, const Coo<V, I>& source, Csr<V, I>& result)
{
    // Counting sort by row: count, prefix sum, then place entries in stored order (stable).
    const auto rows = source.row_idxs().const_data();
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    auto row_ptrs = result.row_ptrs().data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    std::fill_n(row_ptrs, source.rows() + 1, I{0});
    for (size_type k = 0; k < source.nnz(); ++k) ++row_ptrs[rows[k] + 1];
    for (size_type r = 0; r < source.rows(); ++r) row_ptrs[r + 1] += row_ptrs[r];
    std::vector<I> next_in_row(row_ptrs, row_ptrs + source.rows());
    for (size_type k = 0; k < source.nnz(); ++k) {
        const auto at = next_in_row[rows[k]]++;
        out_cols[at] = cols[k];
        out_values[at] = values[k];
    }
}

template <typename V, typename I>
void csr_to_coo(const ReferenceExecutor&, const Csr<V, I>& source, Coo<V, I>& result)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    auto out_rows = result.row_idxs().data();
    for (size_type r = 0; r < source.rows(); ++r) {
        std::fill(out_rows + row_ptrs[r], out_rows + row_ptrs[r + 1], static_cast<I>(r));
    }
    std::copy_n(source.col_idxs().const_data(), source.nnz(), result.col_idxs().data());
    std::copy_n(source.values().const_data(), source.nnz(), result.values().data());
}

template <typename V, typename I>
size_type csr_max_row_nnz(const ReferenceExecutor&, const Csr<V, I>& source)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    size_type longest = 0;
    for (size_type r = 0; r < source.rows(); ++r) {
        longest = std::max<size_type>(longest, row_ptrs[r + 1] - row_ptrs[r]);
    }
    return longest;
}

template <typename V, typename I>
void csr_to_ell(const ReferenceExecutor&, const Csr<V, I>& source, Ell<V, I>& result)
{
    fill_slots(source, result, result.stride());
}

template <typename V, typename I>
void csr_slice_lengths(const ReferenceExecutor&, const Csr<V, I>& source, size_type slice_size,
                       size_type stride_factor, Array<I>& lengths, Array<I>& sets)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    for (size_type s = 0; s < lengths.size(); ++s) {
        lengths.data()[s] = sets.data()[s] = format_rows::slice_length(
            row_ptrs, source.rows(), s, slice_size, stride_factor);
    }
}

template <typename V, typename I>
void csr_to_sellp(const ReferenceExecutor&, const Csr<V, I>& source, Sellp<V, I>& result)
{
    // Every row of every slice, the padding rows of a last partial slice included.
    fill_slots(source, result, result.num_slices() * result.slice_size());
}

template <typename Matrix, typename I>
void row_nnz(const ReferenceExecutor&, const Matrix& source, Array<I>& row_nnz)
{
    const auto layout = format_rows::rows_of(source);
    for (size_type r = 0; r < source.rows(); ++r) {
        row_nnz.data()[r] = format_rows::count_stored(source.col_idxs().const_data(), layout(r));
    }
}

template <typename V, typename I>
void row_nnz(const ReferenceExecutor&, const Dense<V>& source, Array<I>& row_nnz)
{
    for (size_type r = 0; r < source.rows(); ++r) {
        row_nnz.data()[r] = format_rows::count_nonzeros<I>(&source.at(r, 0), source.cols());
    }
}

template <typename Matrix, typename V, typename I>
void fill_csr(const ReferenceExecutor&, const Matrix& source, Csr<V, I>& result)
{
    const auto layout = format_rows::rows_of(source);
    for (size_type r = 0; r < source.rows(); ++r) {
        format_rows::copy_stored(source.col_idxs().const_data(), source.values().const_data(),
                                 layout(r), result.row_ptrs().const_data()[r],
                                 result.col_idxs().data(), result.values().data());
    }
}

template <typename V, typename I>
void fill_csr(const ReferenceExecutor&, const Dense<V>& source, Csr<V, I>& result)
{
    for (size_type r = 0; r < source.rows(); ++r) {
        format_rows::copy_nonzeros(&source.at(r, 0), source.cols(),
                                   result.row_ptrs().const_data()[r], result.col_idxs().data(),
                                   result.values().data());
    }
}

template <typename Matrix, typename V>
void add_to_dense(const ReferenceExecutor&, const Matrix& source, Dense<V>& result)
{
    const auto layout = format_rows::rows_of(source);
    for (size_type r = 0; r < source.rows(); ++r) {
        format_rows::add_stored(source.col_idxs().const_data(), source.values().const_data(),
                                layout(r), &result.at(r, 0));
    }
}

}  // namespace loom::matrix::reference

namespace loom::matrix {
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_CONVERT_BACKEND,
                                      reference, reference, ReferenceExecutor)
}  // namespace loom::matrix
