// Per-backend entry points of Permutation (include/loom/matrix/permutation.hpp), declared
// once with the same signature for every backend. permutation.cpp checks the operands, sizes
// the results and runs the prefix sums and column sorts.
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_PERMUTATION_KERNELS(Exec)                                                 \
    /* inverse[perm[k]] = k; false (inverse then undefined) unless perm holds each index  */   \
    /* of 0 .. n - 1 once                                                                  */   \
    template <typename I>                                                                      \
    bool invert(const Exec& exec, const Array<I>& perm, Array<I>& inverse);                    \
    /* row k of y = row perm[k] of x */                                                         \
    template <typename V, typename I>                                                          \
    void gather_rows(const Exec& exec, const Array<I>& perm, const matrix::Dense<V>& x,        \
                     matrix::Dense<V>& y);                                                      \
    /* row_nnz[k] = entries of row old_row[k] of A (old_row null: row k); rows + 1        */   \
    /* entries, the last one left for the prefix sum                                      */   \
    template <typename V, typename I>                                                          \
    void permuted_row_nnz(const Exec& exec, const matrix::Csr<V, I>& A, const I* old_row,      \
                          Array<I>& row_nnz);                                                   \
    /* result row k = row old_row[k] of A (null: row k), column j renamed new_col[j] (null: */  \
    /* kept), in A's order; result's row pointers are set                                  */  \
    template <typename V, typename I>                                                          \
    void permute_entries(const Exec& exec, const matrix::Csr<V, I>& A, const I* old_row,       \
                         const I* new_col, matrix::Csr<V, I>& result)

#define LOOM_INSTANTIATE_PERMUTATION_INDEX_KERNELS(Exec, I)                                    \
    template bool invert(const Exec&, const Array<I>&, Array<I>&);

#define LOOM_INSTANTIATE_PERMUTATION_KERNELS(Exec, V, I)                                       \
    template void gather_rows(const Exec&, const Array<I>&, const matrix::Dense<V>&,           \
                              matrix::Dense<V>&);                                               \
    template void permuted_row_nnz(const Exec&, const matrix::Csr<V, I>&, const I*, Array<I>&); \
    template void permute_entries(const Exec&, const matrix::Csr<V, I>&, const I*, const I*,   \
                                  matrix::Csr<V, I>&);

LOOM_DECLARE_ON_EACH_BACKEND(loom::matrix, LOOM_DECLARE_PERMUTATION_KERNELS)
