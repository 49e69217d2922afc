// What one row of a sparse format holds and what a conversion does with it, written once for
// every backend: the reference loops over rows serially, OpenMP and the unified kernels
// (unified.hpp) hand the same row bodies to their launchers. A row is a RowSlots: the
// positions of its entries in the format's arrays. CSR, ELL and SELL-P differ only in where
// a row's positions lie (CsrRows, EllRows, SellpRows); padding slots hold column
// invalid_index.
#pragma once

#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"

namespace loom::matrix::format_rows {

/// The positions of one row's entries: first + k * step for k < count.
struct RowSlots {
    size_type first;
    size_type step;
    size_type count;
    LOOM_HOST_DEVICE size_type operator[](size_type k) const { return first + k * step; }
};

/// Row r of a CSR matrix: its entries one after the other. Rows differ in length.
template <typename I>
struct CsrRows {
    static constexpr bool uneven = true;
    const I* row_ptrs;
    LOOM_HOST_DEVICE RowSlots operator()(size_type r) const
    {
        return {static_cast<size_type>(row_ptrs[r]), 1,
                static_cast<size_type>(row_ptrs[r + 1] - row_ptrs[r])};
    }
};

/// Row r of an ELL matrix: slot k at k * stride + r. Every row has width slots.
struct EllRows {
    static constexpr bool uneven = false;
    size_type stride;
    size_type width;
    LOOM_HOST_DEVICE RowSlots operator()(size_type r) const { return {r, stride, width}; }
};

/// Row r of a SELL-P matrix: the slot columns of its slice, from sets[s] on, lengths[s] of
/// them. Slices differ in length.
template <typename I>
struct SellpRows {
    static constexpr bool uneven = true;
    const I* sets;
    const I* lengths;
    size_type slice_size;
    LOOM_HOST_DEVICE RowSlots operator()(size_type r) const
    {
        const size_type s = r / slice_size;
        return {sets[s] * slice_size + r % slice_size, slice_size,
                static_cast<size_type>(lengths[s])};
    }
};

template <typename V, typename I>
CsrRows<I> rows_of(const Csr<V, I>& source)
{
    return {source.row_ptrs().const_data()};
}

template <typename V, typename I>
EllRows rows_of(const Ell<V, I>& source)
{
    return {source.stride(), source.width()};
}

template <typename V, typename I>
SellpRows<I> rows_of(const Sellp<V, I>& source)
{
    return {source.slice_sets().const_data(), source.slice_lengths().const_data(),
            source.slice_size()};
}

/// The stored (non-padding) entries of a row.
template <typename I>
LOOM_HOST_DEVICE I count_stored(const I* cols, RowSlots row)
{
    I count = 0;
    for (size_type k = 0; k < row.count; ++k) count += cols[row[k]] != invalid_index;
    return count;
}

/// The stored entries of a row, in slot order, into CSR arrays from position at on.
template <typename I, typename T>
LOOM_HOST_DEVICE void copy_stored(const I* cols, const T* values, RowSlots row, I at, I* out_cols,
                                  T* out_values)
{
    for (size_type k = 0; k < row.count; ++k) {
        const size_type slot = row[k];
        const I col = cols[slot];
        if (col != invalid_index) {
            out_cols[at] = col;
            out_values[at] = values[slot];
            ++at;
        }
    }
}

/// out_row[c] += the stored entries of column c, duplicates in slot order.
template <typename I, typename T>
LOOM_HOST_DEVICE void add_stored(const I* cols, const T* values, RowSlots row, T* out_row)
{
    for (size_type k = 0; k < row.count; ++k) {
        const size_type slot = row[k];
        const I col = cols[slot];
        if (col != invalid_index) out_row[col] += values[slot];
    }
}

/// Row r of a CSR matrix with `rows` rows as the source of ELL or SELL-P slots: its entries
/// from begin on; rows past the end (padding) are empty.
struct PaddedRow {
    size_type begin;
    size_type length;
};

template <typename I>
LOOM_HOST_DEVICE PaddedRow padded_row(const I* row_ptrs, size_type rows, size_type r)
{
    return r < rows ? PaddedRow{static_cast<size_type>(row_ptrs[r]),
                                static_cast<size_type>(row_ptrs[r + 1] - row_ptrs[r])}
                    : PaddedRow{0, 0};
}

/// Slot `slot` of an ELL or SELL-P row: the row's k-th entry, or padding past its end.
template <typename I, typename T>
LOOM_HOST_DEVICE void fill_slot(const I* cols, const T* values, PaddedRow row, size_type k,
                                size_type slot, I* out_cols, T* out_values)
{
    const bool stored = k < row.length;
    out_cols[slot] = stored ? cols[row.begin + k] : I{invalid_index};
    out_values[slot] = stored ? values[row.begin + k] : T{};
}

/// A host CSR matrix as the row bodies read it, captured by value into a kernel.
template <typename V, typename I>
struct CsrView {
    size_type rows;
    const I* row_ptrs;
    const I* cols;
    const V* values;
};

template <typename V, typename I>
CsrView<V, I> view_of(const Csr<V, I>& source)
{
    return {source.rows(), source.row_ptrs().const_data(), source.col_idxs().const_data(),
            source.values().const_data()};
}

/// Every slot of row r of an ELL or SELL-P from a CSR matrix (r may be a padding row).
template <typename V, typename I>
void fill_slots(CsrView<V, I> csr, size_type r, RowSlots slots, I* out_cols, V* out_values)
{
    const PaddedRow row = padded_row(csr.row_ptrs, csr.rows, r);
    for (size_type k = 0; k < slots.count; ++k) {
        fill_slot(csr.cols, csr.values, row, k, slots[k], out_cols, out_values);
    }
}

/// The longest row of slice s of a CSR matrix, rounded up to stride_factor (SELL-P's
/// slice length).
template <typename I>
LOOM_HOST_DEVICE I slice_length(const I* row_ptrs, size_type rows, size_type s,
                                size_type slice_size, size_type stride_factor)
{
    const size_type slice_end = (s + 1) * slice_size;
    const size_type end = slice_end < rows ? slice_end : rows;
    size_type longest = 0;
    for (size_type r = s * slice_size; r < end; ++r) {
        const size_type length = row_ptrs[r + 1] - row_ptrs[r];
        longest = length > longest ? length : longest;
    }
    return static_cast<I>((longest + stride_factor - 1) / stride_factor * stride_factor);
}

/// The non-zeros of a dense row of `cols` values.
template <typename I, typename V>
I count_nonzeros(const V* row, size_type cols)
{
    I count = 0;
    for (size_type c = 0; c < cols; ++c) count += row[c] != V{};
    return count;
}

/// The non-zeros of a dense row into CSR arrays from position at on.
template <typename I, typename V>
void copy_nonzeros(const V* row, size_type cols, I at, I* out_cols, V* out_values)
{
    for (size_type c = 0; c < cols; ++c) {
        if (row[c] != V{}) {
            out_cols[at] = static_cast<I>(c);
            out_values[at] = row[c];
            ++at;
        }
    }
}

}  // namespace loom::matrix::format_rows
