// OpenMP incomplete factorizations: the IKJ factorization by level sets (omp_levels.hpp), on
// one thread in row order;
// every other kernel is a parallel loop over rows.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "base/instantiate.hpp"
#include "sparse/ilu/isai_row.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/sptrsv/omp_levels.hpp"

namespace loom::sparse::omp {
namespace {

/// body(i) for every row, rows split among the threads.
template <typename I, typename Body>
void for_rows(const OmpExecutor& exec, I n, const Body& body)
{
#pragma omp parallel for schedule(dynamic, 64) num_threads(exec.num_threads())
    for (I i = 0; i < n; ++i) body(i);
}

/// rows.hpp's factorize_row in a dense work row (n values, the thread's own): row i scattered
/// into it, the rows of U subtracted at their columns without a lookup, row i gathered back.
/// Columns outside row i's pattern receive values nobody reads (each row first writes its own
/// columns). The same operations in the same order as factorize_row. tomography (57 entries a
/// row): a lookup of each column's position in row i was 37% of a BiCGSTAB + ILU(0) solve
/// before a merge walk, and the dense row is 3x faster than the lookup (1.8 -> 0.6 ms).
template <typename V, typename I>
void factorize_row_dense(const detail::FactorPattern<I>& f, I i, V* values, V* work)
{
    const I begin = f.row_ptrs[i];
    const I end = f.row_ptrs[i + 1];
    for (I p = begin; p < end; ++p) work[f.col_idxs[p]] = values[p];
    for (I p = begin; p < end && f.col_idxs[p] < i; ++p) {
        const I k = f.col_idxs[p];
        const V l = work[k] / values[f.diag[k]];
        work[k] = l;
        for (I q = f.diag[k] + 1; q < f.row_ptrs[k + 1]; ++q) {
            work[f.col_idxs[q]] -= l * values[q];
        }
    }
    for (I p = begin; p < end; ++p) values[p] = work[f.col_idxs[p]];
}

}  // namespace

template <typename V, typename I>
void ilu_assemble(const OmpExecutor& exec, const detail::FactorPattern<I>& f, const V* a,
                  const I* gather_ptrs, const I* sources, const V* scale, V shift, V* a_f)
{
    for_rows(exec, static_cast<I>(f.n), [&](I i) {
        detail::assemble_row(f, i, a, gather_ptrs, sources, scale, shift, a_f);
    });
}

template <typename V, typename I>
size_type ilu_factorize(const OmpExecutor& exec, const detail::FactorPattern<I>& f,
                        const detail::IluSchedule<I>& schedule, const detail::Assembly<V, I>& a,
                        bool cholesky, V* values)
{
    const auto n = static_cast<I>(f.n);
    std::vector<V> a_f(f.nnz);
    // Every row takes the dense work row (n values per thread), short ones too: the merge
    // walk's branches cost more than the scatter (one thread, ILU(0) numeric: add32 300 -> 266
    // us, sherman5 188 -> 165 us; rows of 5 entries on average).
    const auto threads = static_cast<size_type>(std::max(exec.num_threads(), 1));
    std::vector<V> work(threads * f.n);
    const auto factorize = [&](I r) {
        const auto thread = static_cast<size_type>(omp_get_thread_num());
        factorize_row_dense(f, r, values, work.data() + thread * f.n);
    };
    const auto assemble = [&](I i) {
        detail::assemble_row(f, i, a.a, a.gather_ptrs, a.sources, a.scale, a.shift, a_f.data());
        for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) values[p] = a_f[p];
    };
    if (exec.num_threads() == 1) {
        // One pass in row order, which every dependency respects (the levels would only
        // scatter the accesses); the first bad pivot ends it, as the check after all rows
        // would name it (a diagonal shift's next try needs nothing more).
        for (I i = 0; i < n; ++i) {
            assemble(i);
            factorize(i);
            if (detail::bad_pivot(f, i, a_f.data(), values, cholesky)) return i;
        }
        return f.n;
    }
    for_rows(exec, n, assemble);
    detail::run_by_levels(exec, schedule, factorize);
    return ilu_first_bad_pivot(exec, f, a_f.data(), values, cholesky);
}

template <typename V, typename I>
void ilu_initial_guess(const OmpExecutor& exec, const detail::FactorPattern<I>& f,
                       const V* a_f, V* values)
{
    for_rows(exec, static_cast<I>(f.n), [&](I i) {
        for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
            values[p] = detail::initial_entry(f, i, p, a_f);
        }
    });
}

template <typename V, typename I>
void ilu_sweep(const OmpExecutor& exec, const detail::FactorPattern<I>& f, const V* a_f,
               const V* old, V* values)
{
    for_rows(exec, static_cast<I>(f.n), [&](I i) {
        for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
            values[p] = detail::sweep_entry(f, i, p, a_f, old);
        }
    });
}

template <typename V, typename I>
size_type ilu_first_bad_pivot(const OmpExecutor& exec, const detail::FactorPattern<I>& f,
                              const V* a_f, const V* values, bool cholesky)
{
    size_type first = f.n;
    const auto n = static_cast<I>(f.n);
#pragma omp parallel for reduction(min : first) num_threads(exec.num_threads())
    for (I i = 0; i < n; ++i) {
        if (detail::bad_pivot(f, i, a_f, values, cholesky)) first = std::min<size_type>(first, i);
    }
    return first;
}

template <typename V, typename I>
void ilu_extract(const OmpExecutor& exec, const detail::FactorPattern<I>& f, const V* values,
                 const I* l_index, const I* u_index, bool cholesky, V* l, V* u)
{
    for_rows(exec, static_cast<I>(f.n), [&](I i) {
        detail::extract_row(f, i, values, l_index, u_index, cholesky, l, u);
    });
}

template <typename V, typename I>
size_type isai_rows(const OmpExecutor& exec, size_type n, const I* a_ptrs, const I* a_cols,
                    const V* a_vals, const I* m_ptrs, const I* m_cols, V* m_vals)
{
    size_type first = n;
#pragma omp parallel num_threads(exec.num_threads()) reduction(min : first)
    {
        std::vector<V> dense;
#pragma omp for schedule(dynamic, 64)
        for (I i = 0; i < static_cast<I>(n); ++i) {
            if (!detail::isai_row(i, a_ptrs, a_cols, a_vals, m_ptrs, m_cols, m_vals, dense)) {
                first = std::min<size_type>(first, i);
            }
        }
    }
    return first;
}

#define LOOM_INSTANTIATE(V, I)                           \
    LOOM_INSTANTIATE_ILU_KERNELS(OmpExecutor, V, I)      \
    LOOM_INSTANTIATE_ISAI(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::omp
