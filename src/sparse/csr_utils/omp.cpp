// OpenMP CSR utilities. Row-wise utilities split the rows over the threads (dynamically, so
// that a long row does not hold up a whole static share). Transposition splits the rows
// into one contiguous chunk per thread and gives every chunk its own column counters, so
// that each thread fills its share of every result row in row order: results are sorted
// and identical for any thread count, with no atomics and no sort.
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "base/instantiate_storage.hpp"
#include "base/omp/bucket_by_chunks.hpp"
#include "base/omp/launch.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/csr_utils/kernels.hpp"
#include "sparse/csr_utils/rows.hpp"
#include "sparse/csr_utils/unified.hpp"

namespace loom::sparse::omp {
namespace {

using csr_rows::conj_if;

/// Rows handed out at a time by the dynamically scheduled loops.
constexpr size_type row_chunk = 256;

/// f(r) for every row, dynamically scheduled over the executor's threads.
template <typename F>
void for_each_row(const OmpExecutor& exec, size_type rows, F&& f)
{
#pragma omp parallel for schedule(dynamic, row_chunk) num_threads(exec.num_threads())
    for (size_type r = 0; r < rows; ++r) f(r);
}

/// Chunks for the transposition: as many as threads, but no more than keep the column
/// counters (chunks x cols of them) within a few times the matrix's own size.
int transpose_chunks(const OmpExecutor& exec, size_type nnz, size_type cols)
{
    const int threads = std::max(exec.num_threads(), 1);
    const size_type affordable = cols == 0 ? 1 : std::max<size_type>(1, 4 * nnz / cols);
    return static_cast<int>(std::clamp<size_type>(affordable, 1, threads));
}

}  // namespace

template <typename V, typename I>
void transpose(const OmpExecutor& exec, const matrix::Csr<V, I>& A, bool conjugate,
               matrix::Csr<V, I>& result)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const size_type n_cols = A.cols();
    const int chunks = transpose_chunks(exec, A.nnz(), n_cols);
    const auto first_row = [&](int c) { return A.rows() * c / chunks; };
    // A stable counting sort of the entries by column over chunks of rows
    // (base/omp/bucket_by_chunks.hpp): result row j holds column j's entries by row.
    I* out_cols = result.col_idxs().data();
    V* out_values = result.values().data();
    loom::omp::bucket_by_chunks(
        exec, chunks, n_cols, result.row_ptrs().data(),
        [&](int c, auto&& visit) {
            for (size_type r = first_row(c); r < first_row(c + 1); ++r) {
                for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) visit(cols[k], r, k);
            }
        },
        [&](I at, size_type r, I k) {
            out_cols[at] = static_cast<I>(r);
            out_values[at] = conj_if(conjugate, values[k]);
        });
}

template <typename V, typename I>
ColumnOrder column_order(const OmpExecutor& exec, const matrix::Csr<V, I>& A)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    // 0 increasing, 1 nondecreasing, 2 unordered: the worst row decides.
    int worst = 0;
#pragma omp parallel for schedule(dynamic, row_chunk) reduction(max : worst) \
    num_threads(exec.num_threads())
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = row_ptrs[r] + 1; k < row_ptrs[r + 1]; ++k) {
            worst = std::max(worst, cols[k] < cols[k - 1] ? 2 : cols[k] == cols[k - 1] ? 1 : 0);
        }
    }
    return worst == 2 ? ColumnOrder::unordered
                      : worst == 1 ? ColumnOrder::nondecreasing : ColumnOrder::increasing;
}

template <typename V, typename I>
void sort_columns(const OmpExecutor& exec, matrix::Csr<V, I>& A)
{
    const I* row_ptrs = A.row_ptrs().data();
    I* cols = A.col_idxs().data();
    V* values = A.values().data();
#pragma omp parallel num_threads(exec.num_threads())
    {
        std::vector<std::pair<I, V>> row;
#pragma omp for schedule(dynamic, row_chunk)
        for (size_type r = 0; r < A.rows(); ++r) {
            const auto begin = row_ptrs[r];
            const auto end = row_ptrs[r + 1];
            if (std::is_sorted(cols + begin, cols + end)) continue;
            row.clear();
            for (auto k = begin; k < end; ++k) row.emplace_back(cols[k], values[k]);
            std::stable_sort(row.begin(), row.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            for (std::size_t i = 0; i < row.size(); ++i) {
                cols[begin + i] = row[i].first;
                values[begin + i] = row[i].second;
            }
        }
    }
}

template <typename V, typename I>
void merged_row_nnz(const OmpExecutor& exec, const matrix::Csr<V, I>& sorted, Array<I>& row_nnz)
{
    const I* row_ptrs = sorted.row_ptrs().data();
    const I* cols = sorted.col_idxs().data();
    I* out = row_nnz.data();
    for_each_row(exec, sorted.rows(),
                 [&](size_type r) { out[r] = csr_rows::merged_count(row_ptrs, cols, r); });
}

template <typename V, typename I>
void merge_sorted_duplicates(const OmpExecutor& exec, const matrix::Csr<V, I>& sorted,
                             matrix::Csr<V, I>& result)
{
    const I* row_ptrs = sorted.row_ptrs().data();
    const I* cols = sorted.col_idxs().data();
    const V* values = sorted.values().data();
    const I* out_ptrs = result.row_ptrs().data();
    I* out_cols = result.col_idxs().data();
    V* out_values = result.values().data();
    for_each_row(exec, sorted.rows(), [&](size_type r) {
        csr_rows::merge_row(row_ptrs, cols, values, r, out_ptrs[r], out_cols, out_values);
    });
}

template <typename V, typename I>
void extract_diagonal(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                      matrix::Dense<V>& diagonal)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    V* out = diagonal.data();
    const size_type stride = diagonal.stride();
    for_each_row(exec, diagonal.rows(), [&](size_type r) {
        out[r * stride] = csr_rows::diagonal_sum(row_ptrs, cols, values, r);
    });
}

template <typename V, typename I>
void scale_diagonal(const OmpExecutor& exec, matrix::Csr<V, I>& A, V factor)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    V* values = A.values().data();
    for_each_row(exec, A.rows(), [&](size_type r) {
        csr_rows::scale_diagonal(row_ptrs, cols, values, r, factor);
    });
}

template <typename V, typename I>
void scale_rows(const OmpExecutor& exec, matrix::Csr<V, I>& A, const matrix::Dense<V>& s)
{
    const I* row_ptrs = A.row_ptrs().data();
    V* values = A.values().data();
    const V* scale = s.data();
    const size_type stride = s.stride();
    for_each_row(exec, A.rows(), [&](size_type r) {
        const V factor = scale[r * stride];
        for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) values[k] *= factor;
    });
}

template <typename V, typename I>
void kept_row_nnz(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                  remove_complex_t<V> threshold, bool keep_diagonal, Array<I>& row_nnz)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    I* out = row_nnz.data();
    for_each_row(exec, A.rows(), [&](size_type r) {
        out[r] = csr_rows::kept_count(row_ptrs, cols, values, r, threshold, keep_diagonal);
    });
}

template <typename V, typename I>
void drop_small_entries(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                        remove_complex_t<V> threshold, bool keep_diagonal,
                        matrix::Csr<V, I>& result)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const I* out_ptrs = result.row_ptrs().data();
    I* out_cols = result.col_idxs().data();
    V* out_values = result.values().data();
    for_each_row(exec, A.rows(), [&](size_type r) {
        csr_rows::copy_kept(row_ptrs, cols, values, r, threshold, keep_diagonal, out_ptrs[r],
                            out_cols, out_values);
    });
}

#define LOOM_INSTANTIATE_CSR_UTILS_OMP(V, I) LOOM_INSTANTIATE_CSR_UTILS_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_UTILS_OMP)
#define LOOM_INSTANTIATE_CSR_TRANSPOSE_OMP(V, I) \
    LOOM_INSTANTIATE_CSR_TRANSPOSE_KERNEL(OmpExecutor, V, I)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_TRANSPOSE_OMP)

}  // namespace loom::sparse::omp

namespace loom::sparse {
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_CSR_SCALE_COLUMNS, unified, OmpExecutor)
}
