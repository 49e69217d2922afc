// Structural and scaling utilities on CSR matrices, on every backend: transposition, column
// order within rows, merging of duplicate entries, the diagonal, row and column scaling,
// dropping small entries. Each runs on the matrix's executor; nothing travels through the
// host except a count that sizes a result.
//
// Functions that change a matrix in place leave it untouched when they throw.
#pragma once

#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// A^T, with the columns of every row sorted. Duplicate entries of A stay separate entries
/// of the result, next to each other, in A's order. V may also be a 16-bit storage type
/// (half, bfloat16), whose values are moved, never computed.
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> transpose(const matrix::Csr<V, I>& A);

/// A^H = conj(A)^T, sorted like transpose().
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> conj_transpose(const matrix::Csr<V, I>& A);

/// How the columns within the rows of a matrix are ordered.
enum class ColumnOrder {
    unordered,     ///< some row has a column below its predecessor
    nondecreasing, ///< sorted, with duplicate entries in some row
    increasing     ///< sorted, every (row, column) stored once
};
const char* to_string(ColumnOrder order);

/// The order of A's columns (one pass over the pattern; one value read back to the host).
template <typename V, typename I>
LOOM_EXPORT ColumnOrder column_order(const matrix::Csr<V, I>& A);

/// Sorts the columns within every row, values following; stable, so duplicate entries keep
/// their order. A matrix that is already sorted is left as it is.
template <typename V, typename I>
LOOM_EXPORT void sort_columns(matrix::Csr<V, I>& A);

/// Sorts every row and sums duplicate entries (in their stored order) into one; the result
/// has ColumnOrder::increasing. Entries that sum to zero are kept.
template <typename V, typename I>
LOOM_EXPORT void merge_duplicates(matrix::Csr<V, I>& A);

/// The diagonal of A as a min(rows, cols) x 1 Dense on A's executor: A(i, i), duplicate
/// entries summed, 0 where A stores none.
template <typename V, typename I>
LOOM_EXPORT matrix::Dense<V> extract_diagonal(const matrix::Csr<V, I>& A);

/// The same into an existing min(rows, cols) x 1 Dense on A's executor (any stride).
template <typename V, typename I>
LOOM_EXPORT void extract_diagonal(const matrix::Csr<V, I>& A, matrix::Dense<V>& diagonal);

/// Multiplies every stored diagonal entry by `factor`; the pattern is unchanged.
template <typename V, typename I>
LOOM_EXPORT void scale_diagonal(matrix::Csr<V, I>& A, V factor);

/// A = diag(s) * A: row i multiplied by s(i). s is rows x 1, on A's executor.
template <typename V, typename I>
LOOM_EXPORT void scale_rows(matrix::Csr<V, I>& A, const matrix::Dense<V>& s);

/// A = A * diag(s): column j multiplied by s(j). s is cols x 1, on A's executor.
template <typename V, typename I>
LOOM_EXPORT void scale_columns(matrix::Csr<V, I>& A, const matrix::Dense<V>& s);

/// Removes the entries with |a| < threshold (NaN entries are kept: they are not small),
/// keeping the diagonal ones when `keep_diagonal` is set. The entries left keep their
/// order. BadInput for a negative or NaN threshold.
template <typename V, typename I>
LOOM_EXPORT void drop_small_entries(matrix::Csr<V, I>& A, remove_complex_t<V> threshold,
                                    bool keep_diagonal = true);

}  // namespace loom::sparse

LOOM_PUBLIC_END
