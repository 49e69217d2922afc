// Level-2/3 BLAS on whole Dense matrices (row-major, strided): gemv, gemm with every
// transpose combination, trsm, trmm, and a dot-based gemm for C = beta C + alpha A^T B with
// tall-skinny A and B. Every backend has a native kernel for every value type; vendor
// libraries (cuBLAS on CUDA, OpenBLAS on the host when built with LOOM_WITH_BLAS) are picked
// per call shape where they win, or forced with a Backend argument.
#pragma once

#include "loom/blas/types.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::blas {

/// y = alpha * op(A) * x + beta * y; x and y are single columns (any row stride).
/// y is not read when beta is zero.
template <typename V>
LOOM_EXPORT void gemv(Op op, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& x, V beta,
                      matrix::Dense<V>& y, Backend backend = Backend::automatic);

/// C = alpha * op_a(A) * op_b(B) + beta * C; C is not read when beta is zero.
/// DimensionMismatch on wrong shapes, BadInput when the operands live on different executors
/// or C overlaps A or B.
template <typename V>
LOOM_EXPORT void gemm(Op op_a, Op op_b, V alpha, const matrix::Dense<V>& A,
                      const matrix::Dense<V>& B, V beta, matrix::Dense<V>& C,
                      Backend backend = Backend::automatic);

/// C = alpha * A * B + beta * C: gemm with Op::none for both operands (what Dense::apply uses).
template <typename V>
LOOM_EXPORT void gemm(V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& B, V beta,
                      matrix::Dense<V>& C, Backend backend = Backend::automatic);

/// Solves op(A) X = alpha B (Side::left) or X op(A) = alpha B (Side::right) for X, which
/// overwrites B. A is square and triangular (uplo/diag); a zero on its diagonal gives
/// infinities or NaNs as in BLAS (lapack::trtri and getrf report singularity).
template <typename V>
LOOM_EXPORT void trsm(Side side, Uplo uplo, Op op, Diag diag, V alpha, const matrix::Dense<V>& A,
                      matrix::Dense<V>& B, Backend backend = Backend::automatic);

/// B = alpha * op(A) * B (Side::left) or B = alpha * B * op(A) (Side::right), A triangular.
template <typename V>
LOOM_EXPORT void trmm(Side side, Uplo uplo, Op op, Diag diag, V alpha, const matrix::Dense<V>& A,
                      matrix::Dense<V>& B, Backend backend = Backend::automatic);

/// C = alpha * op(A) * B + beta * C for op = transpose or conj_transpose, with A (k x m) and
/// B (k x n) tall and skinny (k >> m, n): every entry of C is a long dot product of a column
/// of A with a column of B, computed by its own team (thread block) over chunks of k and
/// combined in a fixed order, so the result does not depend on scheduling. This is the
/// inner product of block Krylov and orthogonalization methods (A^H B of two multi-vectors).
template <typename V>
LOOM_EXPORT void gemm_dot(Op op_a, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& B,
                          V beta, matrix::Dense<V>& C, Backend backend = Backend::automatic);

}  // namespace loom::blas

LOOM_PUBLIC_END
