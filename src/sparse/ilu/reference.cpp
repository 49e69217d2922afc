// Reference incomplete factorizations: the rows one after the other (rows.hpp); the IKJ
// factorization in row order, which every dependency respects.
#include <algorithm>
#include <vector>

#include "base/instantiate.hpp"
#include "sparse/ilu/isai_row.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/ilu/threshold.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void ilu_assemble(const ReferenceExecutor&, const detail::FactorPattern<I>& f, const V* a,
                  const I* gather_ptrs, const I* sources, const V* scale, V shift, V* a_f)
{
    for (I i = 0; i < static_cast<I>(f.n); ++i) {
        detail::assemble_row(f, i, a, gather_ptrs, sources, scale, shift, a_f);
    }
}

template <typename V, typename I>
size_type ilu_factorize(const ReferenceExecutor& exec, const detail::FactorPattern<I>& f,
                        const detail::IluSchedule<I>&, const detail::Assembly<V, I>& a,
                        bool cholesky, V* values)
{
    std::vector<V> assembled(f.nnz);
    const V* a_f = assembled.data();
    ilu_assemble(exec, f, a.a, a.gather_ptrs, a.sources, a.scale, a.shift, assembled.data());
    std::copy(a_f, a_f + f.nnz, values);
    // The first bad pivot ends it: the factors are dropped (or a shift tries again).
    for (I i = 0; i < static_cast<I>(f.n); ++i) {
        detail::factorize_row(f, i, values);
        if (detail::bad_pivot(f, i, a_f, values, cholesky)) return i;
    }
    return f.n;
}

template <typename V, typename I>
void ilu_initial_guess(const ReferenceExecutor&, const detail::FactorPattern<I>& f,
                       const V* a_f, V* values)
{
    for (I i = 0; i < static_cast<I>(f.n); ++i) {
        for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
            values[p] = detail::initial_entry(f, i, p, a_f);
        }
    }
}

template <typename V, typename I>
void ilu_sweep(const ReferenceExecutor&, const detail::FactorPattern<I>& f, const V* a_f,
               const V* old, V* values)
{
    for (I i = 0; i < static_cast<I>(f.n); ++i) {
        for (I p = f.row_ptrs[i]; p < f.row_ptrs[i + 1]; ++p) {
            values[p] = detail::sweep_entry(f, i, p, a_f, old);
        }
    }
}

template <typename V, typename I>
size_type ilu_first_bad_pivot(const ReferenceExecutor&, const detail::FactorPattern<I>& f,
                              const V* a_f, const V* values, bool cholesky)
{
    for (I i = 0; i < static_cast<I>(f.n); ++i) {
        if (detail::bad_pivot(f, i, a_f, values, cholesky)) return i;
    }
    return f.n;
}

template <typename V, typename I>
void ilu_extract(const ReferenceExecutor&, const detail::FactorPattern<I>& f, const V* values,
                 const I* l_index, const I* u_index, bool cholesky, V* l, V* u)
{
    for (I i = 0; i < static_cast<I>(f.n); ++i) {
        detail::extract_row(f, i, values, l_index, u_index, cholesky, l, u);
    }
}

template <typename V, typename I>
void ilu_threshold_pattern(const ReferenceExecutor&, const detail::FactorPattern<I>& f,
                           const V* a_f, const detail::ThresholdParams& params,
                           std::vector<I>& ptrs, std::vector<I>& cols)
{
    const auto serial = [](I n, const auto& body) {
        for (I i = 0; i < n; ++i) body(i);
    };
    detail::threshold_pattern(f, a_f, params, serial, ptrs, cols);
}

template <typename V, typename I>
size_type isai_rows(const ReferenceExecutor&, size_type n, const I* a_ptrs, const I* a_cols,
                    const V* a_vals, const I* m_ptrs, const I* m_cols, V* m_vals)
{
    std::vector<V> dense;
    for (I i = 0; i < static_cast<I>(n); ++i) {
        if (!detail::isai_row(i, a_ptrs, a_cols, a_vals, m_ptrs, m_cols, m_vals, dense)) return i;
    }
    return n;
}

#define LOOM_INSTANTIATE(V, I)                                 \
    LOOM_INSTANTIATE_ILU_KERNELS(ReferenceExecutor, V, I)      \
    LOOM_INSTANTIATE_ILU_THRESHOLD(ReferenceExecutor, V, I)    \
    LOOM_INSTANTIATE_ISAI(ReferenceExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::reference
