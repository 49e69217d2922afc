// The row kernels of the conversions (declared in kernels.hpp), written once for OpenMP and
// CUDA on the unified launchers (base/parallel.hpp) around the row bodies of rows.hpp:
// omp.cpp and cuda.cu include this header and instantiate them. Each thread takes whole
// rows, which keeps the entries in order and sums duplicates in stored order without
// atomics. ELL and SELL-P store slot k of consecutive rows at consecutive addresses:
// coalesced on CUDA. Rows of CSR and SELL-P differ in length: on the host they are handed
// out dynamically (parallel_for_uneven).
#pragma once

#include "base/parallel.hpp"
#include "matrix/convert/kernels.hpp"
#include "matrix/convert/rows.hpp"

namespace loom::matrix::unified {

/// f(r) for every row r < rows of a matrix whose rows are laid out as Rows says.
template <typename Rows, typename Exec, typename F>
void for_each_row(const Exec& exec, size_type rows, F f, const char* where)
{
    if constexpr (Rows::uneven) {
        loom::detail::parallel_for_uneven(exec, rows, f, where);
    } else {
        loom::detail::parallel_for(exec, rows, f, where);
    }
}

template <typename Exec, typename V, typename I>
size_type csr_max_row_nnz(const Exec& exec, const Csr<V, I>& source)
{
    const I* row_ptrs = source.row_ptrs().const_data();
    return loom::detail::parallel_reduce(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) { return static_cast<I>(row_ptrs[r + 1] - row_ptrs[r]); },
        I{0}, loom::detail::Max{}, "loom::matrix::to_ell");
}

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
            out_lengths[s] = out_sets[s] =
                format_rows::slice_length(row_ptrs, rows, s, slice_size, stride_factor);
        },
        "loom::matrix::to_sellp");
}

template <typename Exec, typename Matrix, typename I>
void row_nnz(const Exec& exec, const Matrix& source, Array<I>& row_nnz)
{
    const auto layout = format_rows::rows_of(source);
    const I* cols = source.col_idxs().const_data();
    I* out = row_nnz.data();
    for_each_row<decltype(layout)>(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) { out[r] = format_rows::count_stored(cols, layout(r)); },
        "loom::matrix::to_csr");
}

template <typename Exec, typename Matrix, typename V, typename I>
void fill_csr(const Exec& exec, const Matrix& source, Csr<V, I>& result)
{
    const auto layout = format_rows::rows_of(source);
    const I* cols = source.col_idxs().const_data();
    const auto values = loom::detail::kernel_data(exec, source.values().const_data());
    const I* row_ptrs = result.row_ptrs().const_data();
    I* out_cols = result.col_idxs().data();
    const auto out_values = loom::detail::kernel_data(exec, result.values().data());
    for_each_row<decltype(layout)>(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            format_rows::copy_stored(cols, values, layout(r), row_ptrs[r], out_cols, out_values);
        },
        "loom::matrix::to_csr");
}

template <typename Exec, typename Matrix, typename V>
void add_to_dense(const Exec& exec, const Matrix& source, Dense<V>& result)
{
    const auto layout = format_rows::rows_of(source);
    const auto cols = source.col_idxs().const_data();
    const auto values = loom::detail::kernel_data(exec, source.values().const_data());
    const size_type stride = result.stride();
    const auto out = loom::detail::kernel_data(exec, result.data());
    for_each_row<decltype(layout)>(
        exec, source.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            format_rows::add_stored(cols, values, layout(r), out + r * stride);
        },
        "loom::matrix::to_dense");
}

}  // namespace loom::matrix::unified
