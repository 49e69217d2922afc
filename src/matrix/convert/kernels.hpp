// Per-backend kernels of the format conversions, declared once with the same signature for
// every backend. convert.cpp sizes the results, runs the prefix sums and routes the
// conversions that have no kernel of their own through Csr. Arguments arrive checked and
// sized: one executor, results allocated with the shapes given below.
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"

#define LOOM_DECLARE_CONVERT_KERNELS(Exec)                                                     \
    /* result: rows + 1 row_ptrs and nnz entries, filled entirely; stable by row */             \
    template <typename V, typename I>                                                          \
    void coo_to_csr(const Exec& exec, const matrix::Coo<V, I>& source,                         \
                    matrix::Csr<V, I>& result);                                                 \
    /* result: nnz entries, filled entirely */                                                  \
    template <typename V, typename I>                                                          \
    void csr_to_coo(const Exec& exec, const matrix::Csr<V, I>& source,                         \
                    matrix::Coo<V, I>& result);                                                 \
    /* the longest row (0 without rows) */                                                      \
    template <typename V, typename I>                                                          \
    size_type csr_max_row_nnz(const Exec& exec, const matrix::Csr<V, I>& source);               \
    /* result: width >= the longest row; every slot written, padding rows included */           \
    template <typename V, typename I>                                                          \
    void csr_to_ell(const Exec& exec, const matrix::Csr<V, I>& source, matrix::Ell<V, I>& result); \
    /* lengths[s] = sets[s] = longest row of slice s rounded up to stride_factor; the caller   \
       scans sets (num_slices + 1 entries, the last one untouched here) */                      \
    template <typename V, typename I>                                                          \
    void csr_slice_lengths(const Exec& exec, const matrix::Csr<V, I>& source,                  \
                           size_type slice_size, size_type stride_factor, Array<I>& lengths,   \
                           Array<I>& sets);                                                     \
    /* result: slice arrays set; every slot written, padding rows of the last slice included */ \
    template <typename V, typename I>                                                          \
    void csr_to_sellp(const Exec& exec, const matrix::Csr<V, I>& source,                       \
                      matrix::Sellp<V, I>& result);                                             \
    /* row_nnz[r] = entries of row r (r < rows): non-padding slots, or non-zero Dense values */ \
    template <typename V, typename I>                                                          \
    void ell_row_nnz(const Exec& exec, const matrix::Ell<V, I>& source, Array<I>& row_nnz);    \
    template <typename V, typename I>                                                          \
    void sellp_row_nnz(const Exec& exec, const matrix::Sellp<V, I>& source, Array<I>& row_nnz); \
    template <typename V, typename I>                                                          \
    void dense_row_nnz(const Exec& exec, const matrix::Dense<V>& source, Array<I>& row_nnz);   \
    /* result: row_ptrs already set from the counts above; fills col_idxs and values */         \
    template <typename V, typename I>                                                          \
    void ell_to_csr(const Exec& exec, const matrix::Ell<V, I>& source, matrix::Csr<V, I>& result); \
    template <typename V, typename I>                                                          \
    void sellp_to_csr(const Exec& exec, const matrix::Sellp<V, I>& source,                     \
                      matrix::Csr<V, I>& result);                                               \
    template <typename V, typename I>                                                          \
    void dense_to_csr(const Exec& exec, const matrix::Dense<V>& source,                        \
                      matrix::Csr<V, I>& result);                                               \
    /* result: zeroed; adds every stored entry, duplicates in stored order */                   \
    template <typename V, typename I>                                                          \
    void csr_to_dense(const Exec& exec, const matrix::Csr<V, I>& source,                       \
                      matrix::Dense<V>& result);                                               \
    template <typename V, typename I>                                                          \
    void ell_to_dense(const Exec& exec, const matrix::Ell<V, I>& source,                       \
                      matrix::Dense<V>& result);                                               \
    template <typename V, typename I>                                                          \
    void sellp_to_dense(const Exec& exec, const matrix::Sellp<V, I>& source,                   \
                        matrix::Dense<V>& result)

/* Explicit instantiation of every kernel for one backend, inside its namespace */
#define LOOM_INSTANTIATE_CONVERT_KERNELS(Exec, V, I)                                           \
    template void coo_to_csr(const Exec&, const Coo<V, I>&, Csr<V, I>&);                       \
    template void csr_to_coo(const Exec&, const Csr<V, I>&, Coo<V, I>&);                       \
    template size_type csr_max_row_nnz(const Exec&, const Csr<V, I>&);                         \
    template void csr_to_ell(const Exec&, const Csr<V, I>&, Ell<V, I>&);                       \
    template void csr_slice_lengths(const Exec&, const Csr<V, I>&, size_type, size_type,       \
                                    Array<I>&, Array<I>&);                                     \
    template void csr_to_sellp(const Exec&, const Csr<V, I>&, Sellp<V, I>&);                   \
    template void ell_row_nnz(const Exec&, const Ell<V, I>&, Array<I>&);                       \
    template void sellp_row_nnz(const Exec&, const Sellp<V, I>&, Array<I>&);                   \
    template void dense_row_nnz(const Exec&, const Dense<V>&, Array<I>&);                      \
    template void ell_to_csr(const Exec&, const Ell<V, I>&, Csr<V, I>&);                       \
    template void sellp_to_csr(const Exec&, const Sellp<V, I>&, Csr<V, I>&);                   \
    template void dense_to_csr(const Exec&, const Dense<V>&, Csr<V, I>&);                      \
    template void csr_to_dense(const Exec&, const Csr<V, I>&, Dense<V>&);                      \
    template void ell_to_dense(const Exec&, const Ell<V, I>&, Dense<V>&);                      \
    template void sellp_to_dense(const Exec&, const Sellp<V, I>&, Dense<V>&);

namespace loom::matrix::reference {
LOOM_DECLARE_CONVERT_KERNELS(ReferenceExecutor);
}
namespace loom::matrix::omp {
LOOM_DECLARE_CONVERT_KERNELS(OmpExecutor);
}
namespace loom::matrix::cuda {
LOOM_DECLARE_CONVERT_KERNELS(CudaExecutor);
}
