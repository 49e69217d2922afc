// What one row of a CSR matrix contributes to the row-wise CSR utilities, written once for the
// reference and OpenMP backends: the reference visits the rows in order, OpenMP hands them
// out dynamically. (CUDA works on a row with a group of threads, in csr_utils/cuda.cu.)
#pragma once

#include <cmath>

#include "loom/base/types.hpp"

namespace loom::sparse::csr_rows {

template <typename V>
V conj_if(bool conjugate, const V& value)
{
    return conjugate ? loom::conj(value) : value;
}

/// Whether drop_small_entries keeps an entry of row `row`.
template <typename V, typename I>
bool is_kept(const V& value, size_type row, I col, remove_complex_t<V> threshold,
             bool keep_diagonal)
{
    return !(std::abs(value) < threshold) || (keep_diagonal && col == row);
}

/// The entries of row r, its columns sorted, once duplicates are merged.
template <typename I>
I merged_count(const I* row_ptrs, const I* cols, size_type r)
{
    I count = 0;
    for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
        count += k == row_ptrs[r] || cols[k] != cols[k - 1];
    }
    return count;
}

/// Row r, its columns sorted, with duplicates summed, into CSR arrays from position at on.
template <typename V, typename I>
void merge_row(const I* row_ptrs, const I* cols, const V* values, size_type r, I at, I* out_cols,
               V* out_values)
{
    --at;
    for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
        if (k == row_ptrs[r] || cols[k] != cols[k - 1]) {
            ++at;
            out_cols[at] = cols[k];
            out_values[at] = values[k];
        } else {
            out_values[at] += values[k];
        }
    }
}

/// The sum of row r's entries on the diagonal (duplicates included).
template <typename V, typename I>
V diagonal_sum(const I* row_ptrs, const I* cols, const V* values, size_type r)
{
    V sum{};
    for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
        if (cols[k] == r) sum += values[k];
    }
    return sum;
}

/// Row r's entries on the diagonal *= factor.
template <typename V, typename I>
void scale_diagonal(const I* row_ptrs, const I* cols, V* values, size_type r, V factor)
{
    for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
        if (cols[k] == r) values[k] *= factor;
    }
}

/// The entries of row r that drop_small_entries keeps.
template <typename V, typename I>
I kept_count(const I* row_ptrs, const I* cols, const V* values, size_type r,
             remove_complex_t<V> threshold, bool keep_diagonal)
{
    I count = 0;
    for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
        count += is_kept(values[k], r, cols[k], threshold, keep_diagonal);
    }
    return count;
}

/// The entries of row r that drop_small_entries keeps, into CSR arrays from position at on.
template <typename V, typename I>
void copy_kept(const I* row_ptrs, const I* cols, const V* values, size_type r,
               remove_complex_t<V> threshold, bool keep_diagonal, I at, I* out_cols, V* out_values)
{
    for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
        if (is_kept(values[k], r, cols[k], threshold, keep_diagonal)) {
            out_cols[at] = cols[k];
            out_values[at] = values[k];
            ++at;
        }
    }
}

}  // namespace loom::sparse::csr_rows
