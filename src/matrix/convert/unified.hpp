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

/// row_nnz[r] = the stored entries of row r.
template <typename Exec, typename V, typename I>
void ell_row_nnz(const Exec& exec, const Ell<V, I>& source, Array<I>& row_nnz)
{
    const size_type width = source.width();
    const size_type stride = source.stride();
    const I* cols = source.col_idxs().const_data();
    I* out = row_nnz.data();
    loom::detail::parallel_for(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            I count = 0;
            for (size_type k = 0; k < width; ++k) count += cols[k * stride + r] != invalid_index;
            out[r] = count;
        },
        "loom::matrix::to_csr");
}

/// The stored entries of each row, in slot order, from result's row pointers on.
template <typename Exec, typename V, typename I>
void ell_to_csr(const Exec& exec, const Ell<V, I>& source, Csr<V, I>& result)
{
    const size_type width = source.width();
    const size_type stride = source.stride();
    const I* cols = source.col_idxs().const_data();
    const auto values = loom::detail::kernel_data(exec, source.values().const_data());
    const I* row_ptrs = result.row_ptrs().const_data();
    I* out_cols = result.col_idxs().data();
    const auto out_values = loom::detail::kernel_data(exec, result.values().data());
    loom::detail::parallel_for(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            auto at = row_ptrs[r];
            for (size_type k = 0; k < width; ++k) {
                const size_type slot = k * stride + r;
                if (cols[slot] != invalid_index) {
                    out_cols[at] = cols[slot];
                    out_values[at] = values[slot];
                    ++at;
                }
            }
        },
        "loom::matrix::to_csr");
}

/// result += the stored entries (result holds zeros; duplicates add up).
template <typename Exec, typename V, typename I>
void ell_to_dense(const Exec& exec, const Ell<V, I>& source, Dense<V>& result)
{
    const size_type width = source.width();
    const size_type ell_stride = source.stride();
    const size_type stride = result.stride();
    const I* cols = source.col_idxs().const_data();
    const auto values = loom::detail::kernel_data(exec, source.values().const_data());
    const auto out = loom::detail::kernel_data(exec, result.data());
    loom::detail::parallel_for(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            for (size_type k = 0; k < width; ++k) {
                const size_type slot = k * ell_stride + r;
                if (cols[slot] != invalid_index) out[r * stride + cols[slot]] += values[slot];
            }
        },
        "loom::matrix::to_dense");
}

/// row_nnz[r] = the stored entries of row r.
template <typename Exec, typename V, typename I>
void sellp_row_nnz(const Exec& exec, const Sellp<V, I>& source, Array<I>& row_nnz)
{
    const size_type slice_size = source.slice_size();
    const I* cols = source.col_idxs().const_data();
    const I* lengths = source.slice_lengths().const_data();
    const I* sets = source.slice_sets().const_data();
    I* out = row_nnz.data();
    loom::detail::parallel_for_uneven(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            const size_type s = r / slice_size;
            const size_type first = sets[s] * slice_size + r % slice_size;
            I count = 0;
            for (size_type k = 0; k < lengths[s]; ++k) {
                count += cols[first + k * slice_size] != invalid_index;
            }
            out[r] = count;
        },
        "loom::matrix::to_csr");
}

/// The stored entries of each row, in slot order, from result's row pointers on.
template <typename Exec, typename V, typename I>
void sellp_to_csr(const Exec& exec, const Sellp<V, I>& source, Csr<V, I>& result)
{
    const size_type slice_size = source.slice_size();
    const I* cols = source.col_idxs().const_data();
    const auto values = loom::detail::kernel_data(exec, source.values().const_data());
    const I* lengths = source.slice_lengths().const_data();
    const I* sets = source.slice_sets().const_data();
    const I* row_ptrs = result.row_ptrs().const_data();
    I* out_cols = result.col_idxs().data();
    const auto out_values = loom::detail::kernel_data(exec, result.values().data());
    loom::detail::parallel_for_uneven(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            const size_type s = r / slice_size;
            const size_type first = sets[s] * slice_size + r % slice_size;
            auto at = row_ptrs[r];
            for (size_type k = 0; k < lengths[s]; ++k) {
                const size_type slot = first + k * slice_size;
                if (cols[slot] != invalid_index) {
                    out_cols[at] = cols[slot];
                    out_values[at] = values[slot];
                    ++at;
                }
            }
        },
        "loom::matrix::to_csr");
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

/// result += the stored entries (result holds zeros; duplicates add up in slot order).
template <typename Exec, typename V, typename I>
void sellp_to_dense(const Exec& exec, const Sellp<V, I>& source, Dense<V>& result)
{
    const size_type slice_size = source.slice_size();
    const size_type stride = result.stride();
    const I* cols = source.col_idxs().const_data();
    const auto values = loom::detail::kernel_data(exec, source.values().const_data());
    const I* lengths = source.slice_lengths().const_data();
    const I* sets = source.slice_sets().const_data();
    const auto out = loom::detail::kernel_data(exec, result.data());
    loom::detail::parallel_for_uneven(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            const size_type s = r / slice_size;
            const size_type first = sets[s] * slice_size + r % slice_size;
            for (size_type k = 0; k < lengths[s]; ++k) {
                const size_type slot = first + k * slice_size;
                if (cols[slot] != invalid_index) out[r * stride + cols[slot]] += values[slot];
            }
        },
        "loom::matrix::to_dense");
}

}  // namespace loom::matrix::unified
