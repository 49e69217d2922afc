// Batched rank-revealing UTV: QR with column pivoting, then an LQ of the leading rows, so that
// A P = U T V with T square lower triangular of the numerical rank; and the minimum-norm
// least-squares solve that uses it.
#pragma once

#include "loom/batched/common.hpp"
#include "loom/batched/gemm.hpp"
#include "loom/batched/level1.hpp"
#include "loom/batched/lu.hpp"
#include "loom/batched/qr.hpp"
#include "loom/batched/triangular.hpp"

namespace loom::batched {
namespace detail {

template <typename Par, typename VA, typename VP, typename VU, typename VV, typename VW,
          typename Tol>
LOOM_HOST_DEVICE int utv(const Par& par, const VA& A, const VP& jpiv, const VU& U, const VV& V,
                         const VW& work, const Tol& tol_in)
{
    using T = value_of<VA>;
    using R = real_type_t<T>;
    static_assert(!is_simd_v<T>, "UTV pivots per matrix: call it on scalar views (lane_view)");
    const int m = A.rows();
    const int n = A.cols();
    const int q = min_int(m, n);
    LOOM_BATCHED_ASSERT(jpiv.size() >= n && work.size() >= q && U.rows() == m && U.cols() >= q &&
                        V.rows() >= q && V.cols() == n);
    const R tol = tol_in < 0 ? R(max_int(m, n)) * math::epsilon<T>() : R(tol_in);
    // 1. QR with column pivoting, stopped once the remaining columns are negligible. Column
    //    norms are recomputed at each step: no downdating to go wrong, and cheap at these sizes.
    int rank = q;
    R first = 0;
    for (int k = 0; k < q; ++k) {
        int p = k;
        R largest = -1;
        for (int j = k; j < n; ++j) {
            R norm2 = 0;
            for (int i = k; i < m; ++i) norm2 += math::abs2(A(i, j));
            if (norm2 > largest) {
                largest = norm2;
                p = j;
            }
        }
        if (k == 0) first = largest;
        if (!(largest > tol * tol * first) || largest == R(0)) {
            rank = k;
            break;
        }
        par.single([&] { jpiv(k) = p; });
        if (p != k) {
            par.flat(m, [&](int i) { swap_values(A(i, k), A(i, p)); });
            par.barrier();
        }
        const auto v = A.col(k).sub(k, m - k);
        const T t = householder(par, v);
        par.single([&] { work(k) = t; });
        reflect_left(par, v, math::conj(t), A.sub(k, k + 1, m - k, n - k - 1));
    }
    par.flat(n - rank, [&](int s) { jpiv(rank + s) = rank + s; });
    par.barrier();
    // 2. U = the first q columns of Q.
    set(par, 0, 1, U);
    apply_q<Side::Left, Trans::NoTranspose>(par, A, work.sub(0, rank), U);
    // 3. Keep the rank × n block [R11 R12]; the rest is zero within the tolerance.
    par.for2(m, n, [&](int i, int j) {
        if (i >= rank || j < i) A(i, j) = T(0);
    });
    par.barrier();
    // 4. LQ of [R11 R12]: row i times the reflector H(i) of its conjugate becomes
    //    (..., beta, 0, ..., 0); v(1:) of H(i) stays in the zeroed part of row i.
    for (int i = 0; i < rank; ++i) {
        const auto row = A.row(i).sub(i, n - i);
        par.flat(n - i, [&](int l) { row(l) = math::conj(row(l)); });
        par.barrier();
        const T t = householder(par, row);
        par.single([&] { work(i) = t; });
        reflect_right(par, row, t, A.sub(i + 1, i, rank - i - 1, n - i));
    }
    par.barrier();
    // 5. [R11 R12] H(0) ... H(rank-1) = [T 0], so V = the first rows of H(rank-1)ᴴ ... H(0)ᴴ.
    set(par, 0, 1, V);
    for (int i = rank - 1; i >= 0; --i) {
        reflect_right(par, A.row(i).sub(i, n - i), math::conj(work(i)), V.sub(0, i, q, n - i));
    }
    par.for2(rank, n, [&](int i, int j) {
        if (j > i) A(i, j) = T(0);
    });
    par.barrier();
    return rank;
}

template <typename Par, typename VU, typename VT, typename VV, typename VP, typename VB,
          typename VX, typename VW>
LOOM_HOST_DEVICE void solve_utv(const Par& par, const VU& U, const VT& A, const VV& V,
                                const VP& jpiv, int rank, const VB& B, const VX& X, const VW& W)
{
    using T = value_of<VX>;
    const int nrhs = B.cols();
    LOOM_BATCHED_ASSERT(B.rows() == U.rows() && X.rows() == V.cols() && X.cols() == nrhs &&
                        W.rows() >= rank && W.cols() >= nrhs);
    const auto Wr = W.sub(0, 0, rank, nrhs);
    gemm<Trans::ConjTranspose, Trans::NoTranspose>(par, T(1), U.sub(0, 0, U.rows(), rank), B,
                                                   T(0), Wr);
    trsm<Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit>(par, T(1),
                                                                     A.sub(0, 0, rank, rank), Wr);
    gemm<Trans::ConjTranspose, Trans::NoTranspose>(par, T(1), V.sub(0, 0, rank, V.cols()), Wr,
                                                   T(0), X);
    par.flat(nrhs, [&](int j) { apply_pivots(jpiv, X.col(j), X.rows(), false); });
    par.barrier();
}

}  // namespace detail

/// Rank-revealing factorization A P = U T V of the m × n A (q = min(m, n)). Returns the
/// numerical rank r: the pivoted QR stops when the largest remaining column norm is at most
/// tol times the largest column norm of A (tol < 0, the default, means max(m, n) · epsilon).
/// On return:
///  - A(0:r, 0:r) holds T (lower triangular, real diagonal); the rest of A is zero;
///  - jpiv (n ints, 0-based): column k was interchanged with column jpiv(k) at step k
///    (jpiv(k) = k for k >= r);
///  - U (m × q): orthonormal columns, the first r span A's range;
///  - V (q × n): orthonormal rows, the first r used;
///  - work: at least q entries of scratch.
/// Scalar views only (pivoting). invoke([member,] A, jpiv, U, V, work[, tol]).
template <typename ModeT>
struct UTV : Invoke<ModeT, UTV<ModeT>> {
    template <typename Par, MatrixViewType VA, VectorViewType VP, MatrixViewType VU,
              MatrixViewType VV, VectorViewType VW, typename Tol = double>
    LOOM_HOST_DEVICE static int run(const Par& par, const VA& A, const VP& jpiv, const VU& U,
                                    const VV& V, const VW& work, const Tol& tol = -1)
    {
        return detail::utv(par, A, jpiv, U, V, work, tol);
    }
};

/// The minimum-norm least-squares solution X (n × nrhs, or a vector) of A X = B (m × nrhs, or
/// a vector) from UTV's output (U, A holding T, V, jpiv, rank); W is scratch of at least
/// rank × nrhs. B is not modified. invoke([member,] U, T, V, jpiv, rank, B, X, W). Returns 0.
template <typename ModeT>
struct SolveUTV : Invoke<ModeT, SolveUTV<ModeT>> {
    template <typename Par, MatrixViewType VU, MatrixViewType VT, MatrixViewType VV,
              VectorViewType VP, typename VB, typename VX, MatrixViewType VW>
    LOOM_HOST_DEVICE static int run(const Par& par, const VU& U, const VT& T, const VV& V,
                                    const VP& jpiv, int rank, const VB& B, const VX& X, const VW& W)
    {
        detail::solve_utv(par, U, T, V, jpiv, rank, detail::as_column_matrix(B),
                          detail::as_column_matrix(X), W);
        return 0;
    }
};

}  // namespace loom::batched
