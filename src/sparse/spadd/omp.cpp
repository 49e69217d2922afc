// OpenMP SpAdd. Symbolic: rows in parallel, each merged (sorted rows) or sorted (unsorted
// ones, in a buffer of the thread's), counted in a first pass and written with every
// entry's slot in a second after the prefix sum. Numeric: rows in parallel, each row of C zeroed and then added into
// through the stored positions, so that a row is written by one thread while in its cache.
#include <algorithm>
#include <utility>
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/arithmetic.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spadd/kernels.hpp"

namespace loom::sparse::omp {
namespace {

using loom::omp::mul;

constexpr size_type row_chunk = 256;

/// One entry of a row of A or B: its column, which matrix holds it and where.
template <typename I>
struct Entry {
    I col;
    bool from_a;
    I k;
};

/// Row r of C from row r of A and of B: walks their entries in column order, numbering the
/// distinct columns. Writes C's columns to out_cols and each entry's slot to a_pos / b_pos
/// when those are given; returns the row's length. Sorted rows are merged; others are
/// sorted in `scratch` first.
template <typename I>
I unite_row(const I* a_ptrs, const I* a_cols, const I* b_ptrs, const I* b_cols, size_type r,
            I* out_cols, I* a_pos, I* b_pos, std::vector<Entry<I>>& scratch)
{
    I count = 0;
    I last = 0;
    const auto take = [&](bool from_a, I k, I col) {
        if (count == 0 || col != last) {
            if (out_cols != nullptr) out_cols[count] = col;
            ++count;
            last = col;
        }
        if (a_pos != nullptr) (from_a ? a_pos : b_pos)[k] = count - 1;
    };
    const I a_begin = a_ptrs[r], a_end = a_ptrs[r + 1];
    const I b_begin = b_ptrs[r], b_end = b_ptrs[r + 1];
    if (std::is_sorted(a_cols + a_begin, a_cols + a_end) &&
        std::is_sorted(b_cols + b_begin, b_cols + b_end)) {
        I i = a_begin;
        I j = b_begin;
        while (i < a_end || j < b_end) {
            if (j == b_end || (i < a_end && a_cols[i] <= b_cols[j])) {
                take(true, i, a_cols[i]);
                ++i;
            } else {
                take(false, j, b_cols[j]);
                ++j;
            }
        }
        return count;
    }
    scratch.clear();
    for (I k = a_begin; k < a_end; ++k) scratch.push_back({a_cols[k], true, k});
    for (I k = b_begin; k < b_end; ++k) scratch.push_back({b_cols[k], false, k});
    std::sort(scratch.begin(), scratch.end(),
              [](const Entry<I>& x, const Entry<I>& y) { return x.col < y.col; });
    for (const auto& e : scratch) take(e.from_a, e.k, e.col);
    return count;
}

}  // namespace

template <typename V, typename I>
void spadd_symbolic(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                    const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C, Array<I>& a_positions,
                    Array<I>& b_positions)
{
    const auto shared_exec = exec.shared_from_this();
    const I* a_ptrs = A.row_ptrs().data();
    const I* a_cols = A.col_idxs().data();
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    const size_type rows = A.rows();
    Array<I> row_ptrs(shared_exec, rows + 1);
    I* c_ptrs = row_ptrs.data();
#pragma omp parallel num_threads(exec.num_threads())
    {
        std::vector<Entry<I>> scratch;
#pragma omp for schedule(dynamic, row_chunk)
        for (size_type r = 0; r < rows; ++r) {
            c_ptrs[r] = unite_row<I>(a_ptrs, a_cols, b_ptrs, b_cols, r, nullptr, nullptr,
                                     nullptr, scratch);
        }
    }
    loom::omp::exclusive_prefix_sum(exec, c_ptrs, rows + 1);

    a_positions = Array<I>(shared_exec, A.nnz());
    b_positions = Array<I>(shared_exec, B.nnz());
    matrix::Csr<V, I> result(shared_exec, A.size(), c_ptrs[rows]);
    I* c_cols = result.col_idxs().data();
    I* a_pos = a_positions.data();
    I* b_pos = b_positions.data();
#pragma omp parallel num_threads(exec.num_threads())
    {
        std::vector<Entry<I>> scratch;
#pragma omp for schedule(dynamic, row_chunk)
        for (size_type r = 0; r < rows; ++r) {
            unite_row<I>(a_ptrs, a_cols, b_ptrs, b_cols, r, c_cols + c_ptrs[r], a_pos, b_pos,
                         scratch);
        }
    }
    result.row_ptrs() = std::move(row_ptrs);
    C = std::move(result);
}

template <typename V, typename I>
void spadd_numeric(const OmpExecutor& exec, V alpha, const matrix::Csr<V, I>& A, V beta,
                   const matrix::Csr<V, I>& B, const Array<I>& a_positions,
                   const Array<I>& b_positions, matrix::Csr<V, I>& C)
{
    const I* a_ptrs = A.row_ptrs().data();
    const V* a_values = A.values().data();
    const I* a_pos = a_positions.data();
    const I* b_ptrs = B.row_ptrs().data();
    const V* b_values = B.values().data();
    const I* b_pos = b_positions.data();
    const I* c_ptrs = std::as_const(C).row_ptrs().data();
    V* c_values = C.values().data();
#pragma omp parallel for schedule(dynamic, row_chunk) num_threads(exec.num_threads())
    for (size_type r = 0; r < C.rows(); ++r) {
        V* row = c_values + c_ptrs[r];
        std::fill(row, c_values + c_ptrs[r + 1], V{});
        for (auto k = a_ptrs[r]; k < a_ptrs[r + 1]; ++k) row[a_pos[k]] += mul(alpha, a_values[k]);
        for (auto k = b_ptrs[r]; k < b_ptrs[r + 1]; ++k) row[b_pos[k]] += mul(beta, b_values[k]);
    }
}

#define LOOM_INSTANTIATE_SPADD_OMP(V, I) LOOM_INSTANTIATE_SPADD_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPADD_OMP)

}  // namespace loom::sparse::omp
