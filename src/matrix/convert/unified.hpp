// The conversion kernels written once for OpenMP and CUDA on the unified launchers
// (base/parallel.hpp): omp.cpp and cuda.cu forward to them. Those from ELL give one thread a
// row: ELL stores slot k of row r at k * stride + r, so consecutive rows are consecutive
// addresses, coalesced on CUDA, contiguous in each thread's static share on the host.
#pragma once

#include "base/parallel.hpp"
#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"

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

}  // namespace loom::matrix::unified
