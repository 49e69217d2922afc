// Supernodal SpTRSV, written once for the reference, OpenMP and CUDA backends (the unified
// launchers of base/parallel.hpp; the reference runs the same bodies in plain loops).
//
// op(T)'s rows are cut into supernodes whose diagonal blocks D_s are dense and kept
// inverted (the partitioned inverse, sptrsv.cpp). A solve walks the levels of the supernodal
// elimination tree; per level, two launches over the level's rows and right-hand sides:
//   1. work_r = b_r - sum of a_rc x_c over row r's entries outside its diagonal block (the
//      panel, read in place from T's rows: no copy of the factor, no padded zeros);
//   2. x_r = row r - first of inv(D_s) times work_s (a dense GEMV per supernode).
// Supernodes of one level depend only on lower levels, so both steps are independent per row.
#pragma once

#include <type_traits>

#include "base/parallel.hpp"
#include "loom/matrix/dense.hpp"
#include "sparse/sptrsv/kernels.hpp"

namespace loom::sparse::unified {

constexpr const char* supernodal_where = "loom::sparse::sptrsv (supernodal)";

/// f(i, j) over a rows x cols range: plain loops on the reference, a parallel launch else.
template <typename Exec, typename F>
void for_each_row(const Exec& exec, size_type rows, size_type cols, F f)
{
    if constexpr (std::is_same_v<Exec, ReferenceExecutor>) {
        for (size_type i = 0; i < rows; ++i) {
            for (size_type j = 0; j < cols; ++j) f(i, j);
        }
    } else {
        loom::detail::parallel_for(exec, rows, cols, f, supernodal_where);
    }
}

/// op(T)'s rows with values of the type kernels see on exec.
template <typename Exec, typename V, typename I>
detail::TriangularRows<loom::detail::kernel_type_t<Exec, V>, I> kernel_rows(
    const Exec& exec, const detail::TriangularRows<V, I>& rows)
{
    detail::TriangularRows<loom::detail::kernel_type_t<Exec, V>, I> view;
    view.n = rows.n;
    view.nnz = rows.nnz;
    view.row_ptrs = rows.row_ptrs;
    view.col_idxs = rows.col_idxs;
    view.values = loom::detail::kernel_data(exec, rows.values);
    view.value_index = rows.value_index;
    view.lower = rows.lower;
    view.unit = rows.unit;
    view.conjugate = rows.conjugate;
    return view;
}

/// a, conjugated when the op says so (ADL finds std::conj or thrust::conj).
template <typename K, typename I>
LOOM_HOST_DEVICE LOOM_INLINE K entry(const detail::TriangularRows<K, I>& rows, I k)
{
    const K a = rows.value(k);
    if constexpr (std::is_arithmetic_v<K>) {
        return a;
    } else {
        return rows.conjugate ? conj(a) : a;
    }
}

template <typename Exec, typename V, typename I>
void sptrsv_supernodal_blocks(const Exec& exec, const detail::TriangularRows<V, I>& host_rows,
                              detail::Supernodes<V, I>& supernodes)
{
    const auto rows = kernel_rows(exec, host_rows);
    const I* first_row = supernodes.first_row.const_data();
    const I* row_super = supernodes.row_super.const_data();
    const size_type* offset = supernodes.block_offset.const_data();
    const I* width = supernodes.block_width.const_data();
    const auto blocks = loom::detail::kernel_data(exec, supernodes.blocks.data());
    using K = std::remove_pointer_t<decltype(blocks)>;
    for_each_row(exec, static_cast<size_type>(rows.n), 1,
                 [=] LOOM_HOST_DEVICE(size_type i, size_type) {
                     const auto r = static_cast<I>(i);
                     const auto s = row_super[r];
                     const auto first = first_row[s];
                     const auto last = first_row[s + 1];
                     K* row = blocks + offset[s] + static_cast<size_type>(r - first) * width[s];
                     for (I c = 0; c < width[s]; ++c) row[c] = K{0};
                     if (rows.unit) row[r - first] = K{1};
                     for (auto k = rows.row_ptrs[r]; k < rows.row_ptrs[r + 1]; ++k) {
                         const auto c = rows.col_idxs[k];
                         if (c < first || c >= last || (rows.unit && c == r)) continue;
                         row[c - first] += entry(rows, k);
                     }
                 });
}

template <typename Exec, typename V, typename I>
void sptrsv_supernodal(const Exec& exec, const detail::TriangularRows<V, I>& host_rows,
                       const detail::Supernodes<V, I>& supernodes, const matrix::Dense<V>& b,
                       matrix::Dense<V>& x, matrix::Dense<V>& work)
{
    const auto rows = kernel_rows(exec, host_rows);
    const I* first_row = supernodes.first_row.const_data();
    const I* row_super = supernodes.row_super.const_data();
    const I* order = supernodes.order.const_data();
    const size_type* offset = supernodes.block_offset.const_data();
    const I* width = supernodes.block_width.const_data();
    const auto blocks = loom::detail::kernel_data(exec, supernodes.blocks.const_data());
    const auto bd = loom::detail::kernel_data(exec, b.data());
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const auto wd = loom::detail::kernel_data(exec, work.data());
    using K = std::remove_const_t<std::remove_pointer_t<decltype(bd)>>;
    const size_type bs = b.stride();
    const size_type xs = x.stride();
    const size_type ws = work.stride();
    const auto& level_ptrs = supernodes.host_level_ptrs;
    for (size_type l = 0; l < supernodes.levels(); ++l) {
        const I* level = order + level_ptrs[l];
        const size_type count = level_ptrs[l + 1] - level_ptrs[l];
        for_each_row(exec, count, b.cols(), [=] LOOM_HOST_DEVICE(size_type i, size_type j) {
            const auto r = level[i];
            const auto s = row_super[r];
            const auto first = first_row[s];
            const auto last = first_row[s + 1];
            K sum = bd[r * bs + j];
            for (auto k = rows.row_ptrs[r]; k < rows.row_ptrs[r + 1]; ++k) {
                const auto c = rows.col_idxs[k];
                if (c < first || c >= last) sum -= entry(rows, k) * xd[c * xs + j];
            }
            wd[r * ws + j] = sum;
        });
        for_each_row(exec, count, b.cols(), [=] LOOM_HOST_DEVICE(size_type i, size_type j) {
            const auto r = level[i];
            const auto s = row_super[r];
            const auto first = first_row[s];
            const auto last = first_row[s + 1];
            const auto* row = blocks + offset[s] + static_cast<size_type>(r - first) * width[s];
            // inv(D_s) is triangular like D_s: row r reaches first .. r (lower) or r .. last - 1.
            const auto begin = rows.lower ? first : r;
            const auto end = rows.lower ? r + 1 : last;
            K sum{0};
            for (auto c = begin; c < end; ++c) sum += row[c - first] * wd[c * ws + j];
            xd[r * xs + j] = sum;
        });
    }
}

}  // namespace loom::sparse::unified

/// The backend entry points of kernels.hpp for Exec, in its backend's namespace: forwarders to
/// the templates above.
#define LOOM_DEFINE_SPTRSV_SUPERNODAL(Exec)                                                     \
    template <typename V, typename I>                                                          \
    void sptrsv_supernodal_blocks(const Exec& exec, const detail::TriangularRows<V, I>& rows,  \
                                  detail::Supernodes<V, I>& supernodes)                        \
    {                                                                                          \
        unified::sptrsv_supernodal_blocks(exec, rows, supernodes);                             \
    }                                                                                          \
    template <typename V, typename I>                                                          \
    void sptrsv_supernodal(const Exec& exec, const detail::TriangularRows<V, I>& rows,         \
                           const detail::Supernodes<V, I>& supernodes,                         \
                           const matrix::Dense<V>& b, matrix::Dense<V>& x,                     \
                           matrix::Dense<V>& work)                                             \
    {                                                                                          \
        unified::sptrsv_supernodal(exec, rows, supernodes, b, x, work);                        \
    }
