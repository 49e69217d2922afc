// The conversion kernels written once for OpenMP and CUDA on the unified launchers
// (base/parallel.hpp): omp.cpp and cuda.cu forward to them. Those that compact or sum a row
// give one thread the row, which keeps the entries in order and sums duplicates in stored
// order without atomics. ELL and SELL-P store slot k of consecutive rows at consecutive
// addresses: coalesced on CUDA. Rows of CSR and SELL-P differ in length: on the host they are
// handed out dynamically (parallel_for_uneven).
#pragma once

#include "base/parallel.hpp"
#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"

namespace loom::matrix::unified {

// ELL and SELL-P ("slotted" formats) differ only in where a row's slots lie: the kernels
// below take that as a functor (EllRows, SellpRows).

/// The slots of one row of ELL or SELL-P: first + k * step for k < count; unused slots hold
/// column invalid_index.
struct RowSlots {
    size_type first;
    size_type step;
    size_type count;
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

/// f(r) for every row of a matrix whose rows are laid out as Rows says.
template <typename Rows, typename Exec, typename F>
void for_each_row(const Exec& exec, size_type rows, F f, const char* where)
{
    if constexpr (Rows::uneven) {
        loom::detail::parallel_for_uneven(exec, rows, f, where);
    } else {
        loom::detail::parallel_for(exec, rows, f, where);
    }
}

/// row_nnz[r] = the stored entries of row r.
template <typename Exec, typename I, typename Rows>
void stored_row_nnz(const Exec& exec, size_type rows, const I* cols, Rows row_slots, I* row_nnz)
{
    for_each_row<Rows>(
        exec, rows,
        [=] LOOM_HOST_DEVICE(size_type r) {
            const RowSlots row = row_slots(r);
            I count = 0;
            for (size_type k = 0; k < row.count; ++k) {
                count += cols[row.first + k * row.step] != invalid_index;
            }
            row_nnz[r] = count;
        },
        "loom::matrix::to_csr");
}

/// The stored entries of each row, in slot order, into CSR arrays from row_ptrs[r] on.
template <typename Exec, typename T, typename I, typename Rows>
void stored_to_csr(const Exec& exec, size_type rows, const I* cols, const T* values, Rows row_slots,
                   const I* row_ptrs, I* out_cols, T* out_values)
{
    for_each_row<Rows>(
        exec, rows,
        [=] LOOM_HOST_DEVICE(size_type r) {
            const RowSlots row = row_slots(r);
            auto at = row_ptrs[r];
            for (size_type k = 0; k < row.count; ++k) {
                const size_type slot = row.first + k * row.step;
                if (cols[slot] != invalid_index) {
                    out_cols[at] = cols[slot];
                    out_values[at] = values[slot];
                    ++at;
                }
            }
        },
        "loom::matrix::to_csr");
}

/// out += the stored entries, row r at out + r * stride (out holds zeros; duplicates add up
/// in slot order).
template <typename Exec, typename T, typename I, typename Rows>
void stored_to_dense(const Exec& exec, size_type rows, const I* cols, const T* values,
                     Rows row_slots, size_type stride, T* out)
{
    for_each_row<Rows>(
        exec, rows,
        [=] LOOM_HOST_DEVICE(size_type r) {
            const RowSlots row = row_slots(r);
            for (size_type k = 0; k < row.count; ++k) {
                const size_type slot = row.first + k * row.step;
                if (cols[slot] != invalid_index) out[r * stride + cols[slot]] += values[slot];
            }
        },
        "loom::matrix::to_dense");
}

template <typename V, typename I>
EllRows slots_of(const Ell<V, I>& source)
{
    return {source.stride(), source.width()};
}

template <typename V, typename I>
SellpRows<I> slots_of(const Sellp<V, I>& source)
{
    return {source.slice_sets().const_data(), source.slice_lengths().const_data(),
            source.slice_size()};
}

/// row_nnz[r] = the stored entries of row r of an Ell or Sellp matrix.
template <typename Exec, typename Slotted, typename I>
void slotted_row_nnz(const Exec& exec, const Slotted& source, Array<I>& row_nnz)
{
    stored_row_nnz(exec, source.rows(), source.col_idxs().const_data(), slots_of(source),
                   row_nnz.data());
}

/// An Ell or Sellp matrix into result, whose row pointers are set.
template <typename Exec, typename Slotted, typename V, typename I>
void slotted_to_csr(const Exec& exec, const Slotted& source, Csr<V, I>& result)
{
    stored_to_csr(exec, source.rows(), source.col_idxs().const_data(),
                  loom::detail::kernel_data(exec, source.values().const_data()), slots_of(source),
                  result.row_ptrs().const_data(), result.col_idxs().data(),
                  loom::detail::kernel_data(exec, result.values().data()));
}

/// result += an Ell or Sellp matrix (result holds zeros).
template <typename Exec, typename Slotted, typename V>
void slotted_to_dense(const Exec& exec, const Slotted& source, Dense<V>& result)
{
    stored_to_dense(exec, source.rows(), source.col_idxs().const_data(),
                    loom::detail::kernel_data(exec, source.values().const_data()), slots_of(source),
                    result.stride(), loom::detail::kernel_data(exec, result.data()));
}

/// The longest row of a CSR matrix (ELL's width).
template <typename Exec, typename V, typename I>
size_type csr_max_row_nnz(const Exec& exec, const Csr<V, I>& source)
{
    const I* row_ptrs = source.row_ptrs().const_data();
    return loom::detail::parallel_reduce(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) { return static_cast<I>(row_ptrs[r + 1] - row_ptrs[r]); },
        I{0}, loom::detail::Max{}, "loom::matrix::to_ell");
}

/// lengths[s] = sets[s] = the longest row of slice s rounded up to stride_factor (the
/// prefix sum of sets then gives each slice's first column).
template <typename Exec, typename V, typename I>
void csr_slice_lengths(const Exec& exec, const Csr<V, I>& source, size_type slice_size,
                       size_type stride_factor, Array<I>& lengths, Array<I>& sets)
{
    const size_type rows = source.rows();
    const I* row_ptrs = source.row_ptrs().const_data();
    I* out_lengths = lengths.data();
    I* out_sets = sets.data();
    loom::detail::parallel_for(
        exec, lengths.size(),
        [=] LOOM_HOST_DEVICE(size_type s) {
            const size_type slice_end = (s + 1) * slice_size;
            const size_type end = slice_end < rows ? slice_end : rows;
            size_type longest = 0;
            for (size_type r = s * slice_size; r < end; ++r) {
                const size_type length = row_ptrs[r + 1] - row_ptrs[r];
                longest = length > longest ? length : longest;
            }
            const auto rounded =
                static_cast<I>((longest + stride_factor - 1) / stride_factor * stride_factor);
            out_lengths[s] = rounded;
            out_sets[s] = rounded;
        },
        "loom::matrix::to_sellp");
}

/// result += the entries of each row (result holds zeros; duplicates add up in stored order).
template <typename Exec, typename V, typename I>
void csr_to_dense(const Exec& exec, const Csr<V, I>& source, Dense<V>& result)
{
    const size_type stride = result.stride();
    const I* row_ptrs = source.row_ptrs().const_data();
    const I* cols = source.col_idxs().const_data();
    const auto values = loom::detail::kernel_data(exec, source.values().const_data());
    const auto out = loom::detail::kernel_data(exec, result.data());
    loom::detail::parallel_for_uneven(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
                out[r * stride + cols[k]] += values[k];
            }
        },
        "loom::matrix::to_dense");
}

}  // namespace loom::matrix::unified
