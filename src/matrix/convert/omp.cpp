// OpenMP conversions. Most kernels give each thread whole rows (or slices), so that every
// entry keeps its place within its row without synchronisation; rows of very different
// lengths are handed out dynamically.
#include <omp.h>

#include <algorithm>

#include "base/instantiate.hpp"
#include "base/omp/bucket_by_chunks.hpp"
#include "base/omp/launch.hpp"
#include "base/prefix_sum.hpp"
#include "matrix/convert/kernels.hpp"
#include "matrix/convert/unified.hpp"

namespace loom::matrix::omp {
namespace {

using loom::omp::bucket_by_chunks;
using loom::omp::exclusive_prefix_sum;
using loom::omp::parallel_for;
using loom::omp::uneven_chunk;

/// Rows [0, padded_rows) of source into the slots of result (an Ell or Sellp); SELL-P's
/// slices differ in length, so its rows are handed out dynamically.
template <typename V, typename I, typename Slotted>
void fill_slots(const OmpExecutor& exec, const Csr<V, I>& source, Slotted& result,
                size_type padded_rows)
{
    const auto layout = format_rows::rows_of(result);
    const auto csr = format_rows::view_of(source);
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    unified::for_each_row<decltype(layout)>(
        exec, padded_rows,
        [=](size_type r) { format_rows::fill_slots(csr, r, layout(r), out_cols, out_values); },
        "loom::matrix::convert");
}

template <typename T>
void parallel_copy(const OmpExecutor& exec, const T* from, size_type n, T* to)
{
    parallel_for(exec, n, [&](size_type i) { to[i] = from[i]; });
}

}  // namespace

template <typename V, typename I>
void coo_to_csr(const OmpExecutor& exec, const Coo<V, I>& source, Csr<V, I>& result)
{
    // A stable counting sort of the entries by row (base/omp/bucket_by_chunks.hpp). So that
    // the per-chunk counters take no more memory than the entries, there are at most
    // nnz / rows chunks.
    const size_type rows = source.rows();
    const size_type nnz = source.nnz();
    const auto row_idxs = source.row_idxs().const_data();
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    const auto chunks = static_cast<int>(
        std::clamp<size_type>(nnz / std::max<size_type>(rows, 1), 1, exec.num_threads()));
    const auto chunk_begin = [&](size_type c) {
        return nnz / chunks * c + std::min<size_type>(c, nnz % chunks);
    };
    bucket_by_chunks(
        exec, chunks, rows, result.row_ptrs().data(),
        [&](int c, auto&& visit) {
            for (size_type k = chunk_begin(c); k < chunk_begin(c + 1); ++k) visit(row_idxs[k], k);
        },
        [&](I at, size_type k) {
            out_cols[at] = cols[k];
            out_values[at] = values[k];
        });
}

template <typename V, typename I>
void csr_to_coo(const OmpExecutor& exec, const Csr<V, I>& source, Coo<V, I>& result)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    auto out_rows = result.row_idxs().data();
#pragma omp parallel for schedule(dynamic, uneven_chunk) num_threads(exec.num_threads())
    for (size_type r = 0; r < source.rows(); ++r) {
        std::fill(out_rows + row_ptrs[r], out_rows + row_ptrs[r + 1], static_cast<I>(r));
    }
    parallel_copy(exec, source.col_idxs().const_data(), source.nnz(), result.col_idxs().data());
    parallel_copy(exec, source.values().const_data(), source.nnz(), result.values().data());
}

template <typename V, typename I>
void csr_to_ell(const OmpExecutor& exec, const Csr<V, I>& source, Ell<V, I>& result)
{
    fill_slots(exec, source, result, result.stride());
}

template <typename V, typename I>
void csr_to_sellp(const OmpExecutor& exec, const Csr<V, I>& source, Sellp<V, I>& result)
{
    fill_slots(exec, source, result, result.num_slices() * result.slice_size());
}

template <typename V, typename I>
void row_nnz(const OmpExecutor& exec, const Dense<V>& source, Array<I>& row_nnz)
{
    auto out = row_nnz.data();
    parallel_for(exec, source.rows(), [&](size_type r) {
        out[r] = format_rows::count_nonzeros<I>(&source.at(r, 0), source.cols());
    });
}

template <typename V, typename I>
void fill_csr(const OmpExecutor& exec, const Dense<V>& source, Csr<V, I>& result)
{
    const auto row_ptrs = result.row_ptrs().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    parallel_for(exec, source.rows(), [&](size_type r) {
        format_rows::copy_nonzeros(&source.at(r, 0), source.cols(), row_ptrs[r], out_cols,
                                   out_values);
    });
}

}  // namespace loom::matrix::omp

namespace loom::matrix {
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_CONVERT_BACKEND, omp, unified, OmpExecutor)
}  // namespace loom::matrix
