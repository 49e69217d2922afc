// Dense LAPACK on whole Dense matrices (row-major, strided): LU with partial pivoting
// (getrf), solves with it (getrs, gesv) and the inverse of a triangular matrix (trtri).
// Native kernels on every backend; cuSOLVER/cuBLAS on CUDA and LAPACK on the host (when built
// with LOOM_WITH_BLAS) where they win or when asked for through blas::Backend.
//
// Singular input raises NumericalError naming the first zero pivot's row (0-based), and
// leaves every argument as it was: the factorization runs on a copy.
#pragma once

#include "loom/base/array.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::lapack {

using blas::Backend;
using blas::Diag;
using blas::Op;
using blas::Uplo;

/// P A = L U for a square A, in place: L (unit diagonal, not stored) below the diagonal, U on
/// and above it. pivots (resized to n, on A's executor) holds 0-based row interchanges:
/// row i was swapped with row pivots[i] >= i at step i, in order. The pivot of each column is
/// the entry of largest magnitude (|re| + |im| for complex values, as LAPACK), the first one
/// on ties. NumericalError naming the row on an exactly zero pivot; A and pivots untouched.
template <typename V>
LOOM_EXPORT void getrf(matrix::Dense<V>& A, Array<int32>& pivots,
                       Backend backend = Backend::automatic);

/// Solves op(A) X = B with the factors of getrf; X overwrites B (n x k).
template <typename V>
LOOM_EXPORT void getrs(Op op, const matrix::Dense<V>& LU, const Array<int32>& pivots,
                       matrix::Dense<V>& B, Backend backend = Backend::automatic);

/// Solves A X = B (X overwrites B) by LU with partial pivoting of a copy of A; A is not
/// changed. NumericalError naming the row of the first zero pivot; B then is untouched too.
template <typename V>
LOOM_EXPORT void gesv(const matrix::Dense<V>& A, matrix::Dense<V>& B,
                      Backend backend = Backend::automatic);

/// A = A^{-1} for a triangular A, in place; only the uplo triangle is read and written.
/// NumericalError naming the first zero diagonal entry (for Diag::non_unit); A untouched.
template <typename V>
LOOM_EXPORT void trtri(Uplo uplo, Diag diag, matrix::Dense<V>& A,
                       Backend backend = Backend::automatic);

}  // namespace loom::lapack

LOOM_PUBLIC_END
