// Per-backend entry points of the CSR utilities (include/loom/sparse/csr_utils.hpp), declared
// once with the same signature for every backend. csr_utils.cpp checks the arguments, sizes
// the results and runs the prefix sums; the kernels get checked operands on one executor.
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/csr_utils.hpp"

#define LOOM_DECLARE_CSR_UTILS_KERNELS(Exec)                                                   \
    /* result: A's transposed size and nnz, allocated; filled entirely, rows sorted */          \
    template <typename V, typename I>                                                          \
    void transpose(const Exec& exec, const matrix::Csr<V, I>& A, bool conjugate,               \
                   matrix::Csr<V, I>& result);                                                  \
    template <typename V, typename I>                                                          \
    ColumnOrder column_order(const Exec& exec, const matrix::Csr<V, I>& A);                   \
    /* A's rows are known to be unordered; stable, values follow */                            \
    template <typename V, typename I>                                                          \
    void sort_columns(const Exec& exec, matrix::Csr<V, I>& A);                                 \
    /* row_nnz[r] = distinct columns of row r of the sorted A (rows + 1 entries, the last one \
       left for the prefix sum) */                                                              \
    template <typename V, typename I>                                                          \
    void merged_row_nnz(const Exec& exec, const matrix::Csr<V, I>& sorted, Array<I>& row_nnz); \
    /* result: row_ptrs set from the counts above; fills columns and summed values */          \
    template <typename V, typename I>                                                          \
    void merge_sorted_duplicates(const Exec& exec, const matrix::Csr<V, I>& sorted,            \
                                 matrix::Csr<V, I>& result);                                    \
    /* diagonal: min(rows, cols) x 1, written entirely */                                       \
    template <typename V, typename I>                                                          \
    void extract_diagonal(const Exec& exec, const matrix::Csr<V, I>& A,                        \
                          matrix::Dense<V>& diagonal);                                          \
    template <typename V, typename I>                                                          \
    void scale_diagonal(const Exec& exec, matrix::Csr<V, I>& A, V factor);                     \
    template <typename V, typename I>                                                          \
    void scale_rows(const Exec& exec, matrix::Csr<V, I>& A, const matrix::Dense<V>& s);        \
    /* row_nnz[r] = entries of row r that stay (rows + 1 entries, the last one left) */       \
    template <typename V, typename I>                                                          \
    void kept_row_nnz(const Exec& exec, const matrix::Csr<V, I>& A,                            \
                      remove_complex_t<V> threshold, bool keep_diagonal, Array<I>& row_nnz);    \
    /* result: row_ptrs set from the counts above; fills the entries that stay, in order */    \
    template <typename V, typename I>                                                          \
    void drop_small_entries(const Exec& exec, const matrix::Csr<V, I>& A,                      \
                            remove_complex_t<V> threshold, bool keep_diagonal,                  \
                            matrix::Csr<V, I>& result)

/* Explicit instantiation of every kernel for one backend, inside its namespace */
#define LOOM_INSTANTIATE_CSR_UTILS_KERNELS(Exec, V, I)                                         \
    template void transpose(const Exec&, const matrix::Csr<V, I>&, bool, matrix::Csr<V, I>&);  \
    template ColumnOrder column_order(const Exec&, const matrix::Csr<V, I>&);                  \
    template void sort_columns(const Exec&, matrix::Csr<V, I>&);                               \
    template void merged_row_nnz(const Exec&, const matrix::Csr<V, I>&, Array<I>&);            \
    template void merge_sorted_duplicates(const Exec&, const matrix::Csr<V, I>&,              \
                                          matrix::Csr<V, I>&);                                 \
    template void extract_diagonal(const Exec&, const matrix::Csr<V, I>&, matrix::Dense<V>&);  \
    template void scale_diagonal(const Exec&, matrix::Csr<V, I>&, V);                          \
    template void scale_rows(const Exec&, matrix::Csr<V, I>&, const matrix::Dense<V>&);        \
    template void kept_row_nnz(const Exec&, const matrix::Csr<V, I>&, remove_complex_t<V>,     \
                               bool, Array<I>&);                                               \
    template void drop_small_entries(const Exec&, const matrix::Csr<V, I>&,                    \
                                     remove_complex_t<V>, bool, matrix::Csr<V, I>&);

/* scale_columns: the reference backend's own, and one kernel for OpenMP and CUDA (unified.hpp);
   instantiated at loom::sparse scope, ns the namespace that defines it */
#define LOOM_INSTANTIATE_CSR_SCALE_COLUMNS(ns, Exec, V, I) \
    template void ns::scale_columns(const Exec&, matrix::Csr<V, I>&, const matrix::Dense<V>&);

namespace loom::sparse::reference {
LOOM_DECLARE_CSR_UTILS_KERNELS(ReferenceExecutor);
template <typename V, typename I>
void scale_columns(const ReferenceExecutor& exec, matrix::Csr<V, I>& A, const matrix::Dense<V>& s);
}  // namespace loom::sparse::reference
namespace loom::sparse::unified {
template <typename Exec, typename V, typename I>
void scale_columns(const Exec& exec, matrix::Csr<V, I>& A, const matrix::Dense<V>& s);
}
namespace loom::sparse::omp {
LOOM_DECLARE_CSR_UTILS_KERNELS(OmpExecutor);
using unified::scale_columns;
}  // namespace loom::sparse::omp
namespace loom::sparse::cuda {
LOOM_DECLARE_CSR_UTILS_KERNELS(CudaExecutor);
using unified::scale_columns;
}  // namespace loom::sparse::cuda

/* The transpose alone, for the 16-bit storage types (values moved, never computed) */
#define LOOM_INSTANTIATE_CSR_TRANSPOSE_KERNEL(Exec, V, I) \
    template void transpose(const Exec&, const matrix::Csr<V, I>&, bool, matrix::Csr<V, I>&);
