// Per-backend kernels of the format conversions, declared once with the same signature for
// every backend. convert.cpp sizes the results, runs the prefix sums and routes the
// conversions that have no kernel of their own through Csr. Arguments arrive checked and
// sized: one executor, results allocated with the shapes given below.
//
// The kernels that read a format row by row (row_nnz, fill_csr, add_to_dense) are templates
// over the format; row_nnz and fill_csr also have an overload for Dense in each backend,
// which partial ordering prefers. OpenMP and CUDA share one definition of the row kernels
// (unified.hpp, on the row bodies of rows.hpp), declared here once and brought into their
// namespaces.
#pragma once

#include "base/dispatch.hpp"
#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"

/* The kernels each backend writes in its own way */
#define LOOM_DECLARE_CONVERT_KERNELS(Exec)                                                     \
    /* result: rows + 1 row_ptrs and nnz entries, filled entirely; stable by row */             \
    template <typename V, typename I>                                                          \
    void coo_to_csr(const Exec& exec, const matrix::Coo<V, I>& source,                         \
                    matrix::Csr<V, I>& result);                                                 \
    /* result: nnz entries, filled entirely */                                                  \
    template <typename V, typename I>                                                          \
    void csr_to_coo(const Exec& exec, const matrix::Csr<V, I>& source,                         \
                    matrix::Coo<V, I>& result);                                                 \
    /* result: width >= the longest row; every slot written, padding rows included */           \
    template <typename V, typename I>                                                          \
    void csr_to_ell(const Exec& exec, const matrix::Csr<V, I>& source, matrix::Ell<V, I>& result); \
    /* result: slice arrays set; every slot written, padding rows of the last slice included */ \
    template <typename V, typename I>                                                          \
    void csr_to_sellp(const Exec& exec, const matrix::Csr<V, I>& source,                       \
                      matrix::Sellp<V, I>& result);                                             \
    /* row_nnz[r] = the non-zero values of row r */                                             \
    template <typename V, typename I>                                                          \
    void row_nnz(const Exec& exec, const matrix::Dense<V>& source, Array<I>& row_nnz);         \
    /* result: row_ptrs already set from the counts above; fills col_idxs and values */         \
    template <typename V, typename I>                                                          \
    void fill_csr(const Exec& exec, const matrix::Dense<V>& source, matrix::Csr<V, I>& result)

/* The kernels that read a format row by row: Exec is the backend's executor, or a template
   parameter (given in the extra template parameters) where OpenMP and CUDA share them */
#define LOOM_DECLARE_CONVERT_ROW_KERNELS(Exec, ...)                                                \
    /* the longest row (0 without rows) */                                                      \
    template <__VA_ARGS__ typename V, typename I>                                              \
    size_type csr_max_row_nnz(const Exec& exec, const matrix::Csr<V, I>& source);               \
    /* lengths[s] = sets[s] = longest row of slice s rounded up to stride_factor; the caller   \
       scans sets (num_slices + 1 entries, the last one untouched here) */                      \
    template <__VA_ARGS__ typename V, typename I>                                              \
    void csr_slice_lengths(const Exec& exec, const matrix::Csr<V, I>& source,                  \
                           size_type slice_size, size_type stride_factor, Array<I>& lengths,   \
                           Array<I>& sets);                                                     \
    /* row_nnz[r] = stored (non-padding) entries of row r of an Ell or Sellp (r < rows) */     \
    template <__VA_ARGS__ typename Matrix, typename I>                                         \
    void row_nnz(const Exec& exec, const Matrix& source, Array<I>& row_nnz);                   \
    /* result: row_ptrs already set from the counts above; fills col_idxs and values */         \
    template <__VA_ARGS__ typename Matrix, typename V, typename I>                             \
    void fill_csr(const Exec& exec, const Matrix& source, matrix::Csr<V, I>& result);          \
    /* result: zeroed; adds every stored entry of a Csr, Ell or Sellp, duplicates in stored    \
       order */                                                                                 \
    template <__VA_ARGS__ typename Matrix, typename V>                                         \
    void add_to_dense(const Exec& exec, const Matrix& source, matrix::Dense<V>& result)

/* Explicit instantiation of a backend's kernels at loom::matrix scope: ns is the backend's
   namespace, row_ns where its row kernels live (unified for OpenMP and CUDA) */
#define LOOM_INSTANTIATE_CONVERT_BACKEND(ns, row_ns, Exec, V, I)                               \
    LOOM_INSTANTIATE_CONVERT_KERNELS(ns, Exec, V, I)                                           \
    LOOM_INSTANTIATE_CONVERT_ROW_KERNELS(row_ns, Exec, V, I)
#define LOOM_INSTANTIATE_CONVERT_KERNELS(ns, Exec, V, I)                                       \
    template void ns::coo_to_csr(const Exec&, const Coo<V, I>&, Csr<V, I>&);                   \
    template void ns::csr_to_coo(const Exec&, const Csr<V, I>&, Coo<V, I>&);                   \
    template void ns::csr_to_ell(const Exec&, const Csr<V, I>&, Ell<V, I>&);                   \
    template void ns::csr_to_sellp(const Exec&, const Csr<V, I>&, Sellp<V, I>&);               \
    template void ns::row_nnz(const Exec&, const Dense<V>&, Array<I>&);                        \
    template void ns::fill_csr(const Exec&, const Dense<V>&, Csr<V, I>&);
#define LOOM_INSTANTIATE_CONVERT_ROW_KERNELS(ns, Exec, V, I)                                   \
    template size_type ns::csr_max_row_nnz(const Exec&, const Csr<V, I>&);                     \
    template void ns::csr_slice_lengths(const Exec&, const Csr<V, I>&, size_type, size_type,   \
                                        Array<I>&, Array<I>&);                                 \
    template void ns::row_nnz(const Exec&, const Ell<V, I>&, Array<I>&);                       \
    template void ns::row_nnz(const Exec&, const Sellp<V, I>&, Array<I>&);                     \
    template void ns::fill_csr(const Exec&, const Ell<V, I>&, Csr<V, I>&);                     \
    template void ns::fill_csr(const Exec&, const Sellp<V, I>&, Csr<V, I>&);                   \
    template void ns::add_to_dense(const Exec&, const Csr<V, I>&, Dense<V>&);                  \
    template void ns::add_to_dense(const Exec&, const Ell<V, I>&, Dense<V>&);                  \
    template void ns::add_to_dense(const Exec&, const Sellp<V, I>&, Dense<V>&);

LOOM_DECLARE_ON_EACH_BACKEND_UNIFIED(loom::matrix, LOOM_DECLARE_CONVERT_KERNELS,
                                     LOOM_DECLARE_CONVERT_ROW_KERNELS)
// row_nnz and fill_csr, which the OpenMP and CUDA backends overload for Dense, need
// using-declarations to join the overload set.
namespace loom::matrix::omp {
using unified::fill_csr;
using unified::row_nnz;
}  // namespace loom::matrix::omp
namespace loom::matrix::cuda {
using unified::fill_csr;
using unified::row_nnz;
}  // namespace loom::matrix::cuda
