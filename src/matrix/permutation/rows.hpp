// The per-row work of permuting a CSR matrix, written once for every backend: row k of the
// result is row old_row[k] of A (old_row null: row k), with column j renamed new_col[j]
// (new_col null: kept), entries in A's order.
#pragma once

#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"

namespace loom::matrix::permutation_detail {

/// A CSR matrix's arrays, raw, in the memory of the backend at work (`Value` is the device
/// value type on CUDA).
template <typename Value, typename I>
struct CsrArrays {
    const I* row_ptrs;
    const I* cols;
    const Value* values;
};

/// The row of A that becomes row k.
template <typename I>
LOOM_HOST_DEVICE inline size_type source_row(const I* old_row, size_type k)
{
    return old_row ? static_cast<size_type>(old_row[k]) : k;
}

template <typename I>
LOOM_HOST_DEVICE inline I permuted_row_length(const I* row_ptrs, const I* old_row, size_type k)
{
    const auto r = source_row(old_row, k);
    return row_ptrs[r + 1] - row_ptrs[r];
}

/// Writes row k of the result from out_ptrs[k] on.
template <typename Value, typename I>
LOOM_HOST_DEVICE inline void copy_permuted_row(const CsrArrays<Value, I>& A, const I* old_row,
                                               const I* new_col, const I* out_ptrs, I* out_cols,
                                               Value* out_values, size_type k)
{
    const auto r = source_row(old_row, k);
    auto at = out_ptrs[k];
    for (auto e = A.row_ptrs[r]; e < A.row_ptrs[r + 1]; ++e, ++at) {
        out_cols[at] = new_col ? new_col[A.cols[e]] : A.cols[e];
        out_values[at] = A.values[e];
    }
}

}  // namespace loom::matrix::permutation_detail
