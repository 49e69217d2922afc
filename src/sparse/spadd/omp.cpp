// OpenMP SpAdd. Symbolic: rows in parallel, each merged (sorted rows) or sorted (unsorted
// ones) in a buffer of the thread's, counted in a first pass and written in a second after
// the prefix sum. Numeric: rows in parallel, each row of C zeroed and then added into
// through the stored positions, so that a row is written by one thread while in its cache.
#include <algorithm>
#include <utility>
#include <vector>

#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spadd/kernels.hpp"

namespace loom::sparse::omp {
namespace {

constexpr size_type row_chunk = 256;

/// a * b; for complex values the textbook formula (GCC's operator* calls a library function
/// per product to recover infinities).
template <typename V>
inline V mul(const V& a, const V& b)
{
    if constexpr (is_complex_v<V>) {
        return V(a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real());
    } else {
        return a * b;
    }
}

/// The sorted, distinct columns of row r of A and B, in `row`.
template <typename I>
void row_union(const I* a_cols, size_type a_begin, size_type a_end, const I* b_cols,
               size_type b_begin, size_type b_end, std::vector<I>& row)
{
    const I* a_first = a_cols + a_begin;
    const I* a_last = a_cols + a_end;
    const I* b_first = b_cols + b_begin;
    const I* b_last = b_cols + b_end;
    row.resize(static_cast<std::size_t>(a_end - a_begin + b_end - b_begin));
    if (std::is_sorted(a_first, a_last) && std::is_sorted(b_first, b_last)) {
        std::merge(a_first, a_last, b_first, b_last, row.begin());
    } else {
        std::copy(b_first, b_last, std::copy(a_first, a_last, row.begin()));
        std::sort(row.begin(), row.end());
    }
    row.erase(std::unique(row.begin(), row.end()), row.end());
}

}  // namespace

template <typename V, typename I>
std::uint64_t pattern_fingerprint(const OmpExecutor& exec, const matrix::Csr<V, I>& A)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const size_type rows = A.rows();
    std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(exec.num_threads())
    for (size_type i = 0; i <= rows + A.nnz(); ++i) {
        const auto value = i <= rows ? row_ptrs[i] : cols[i - rows - 1];
        sum += spadd_detail::fingerprint_term(i, static_cast<std::uint64_t>(value));
    }
    return sum;
}

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
        std::vector<I> row;
#pragma omp for schedule(dynamic, row_chunk)
        for (size_type r = 0; r < rows; ++r) {
            row_union(a_cols, a_ptrs[r], a_ptrs[r + 1], b_cols, b_ptrs[r], b_ptrs[r + 1], row);
            c_ptrs[r] = static_cast<I>(row.size());
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
        std::vector<I> row;
#pragma omp for schedule(dynamic, row_chunk)
        for (size_type r = 0; r < rows; ++r) {
            row_union(a_cols, a_ptrs[r], a_ptrs[r + 1], b_cols, b_ptrs[r], b_ptrs[r + 1], row);
            std::copy(row.begin(), row.end(), c_cols + c_ptrs[r]);
            const auto slot = [&](I col) {
                return static_cast<I>(std::lower_bound(row.begin(), row.end(), col) - row.begin());
            };
            for (auto k = a_ptrs[r]; k < a_ptrs[r + 1]; ++k) a_pos[k] = slot(a_cols[k]);
            for (auto k = b_ptrs[r]; k < b_ptrs[r + 1]; ++k) b_pos[k] = slot(b_cols[k]);
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
