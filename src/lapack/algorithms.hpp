// Algorithms shared by the LAPACK backends: unblocked host versions (the reference backend,
// and the panels/diagonal blocks of OpenMP) and blocked drivers, so OpenMP and CUDA share one
// blocking scheme. A driver calls the level-3 kernels and row interchanges of the executor's
// backend (found by overload on the executor type) and its panel and diagonal-block
// factorizations from `K` (a struct of static functions and the block widths).
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/kernel_scalar.hpp"
#include "blas/level3/kernels.hpp"
#include "blas/level3/strided.hpp"
#include "lapack/kernels.hpp"

namespace loom::lapack::detail {

// gemm, trmm, trsm and permute_rows of every backend: a driver's calls resolve on its executor.
using namespace blas::omp;
using namespace blas::cuda;
using namespace lapack::omp;
using namespace lapack::cuda;

using blas::detail::mul;
using blas::detail::Strided;
using blas::detail::Triangle;

/// The pivot measure of LAPACK, |re| + |im| (base/kernel_scalar.hpp).
using loom::detail::abs1;

/// P A = L U of a rows x cols panel (rows >= cols) with partial pivoting, in place. The
/// interchanges are applied within the panel only; pivots[c] = offset + pivot row and the
/// first zero pivot's row offset + c goes to info (when it still is -1).
template <typename V>
void unblocked_getrf(Strided<V> P, int32* pivots, size_type offset, int32* info)
{
    const size_type m = P.rows;
    const size_type n = P.cols;
    for (size_type c = 0; c < std::min(m, n); ++c) {
        size_type p = c;
        auto best = abs1(*P.ptr(c, c));
        for (size_type r = c + 1; r < m; ++r) {
            const auto measure = abs1(*P.ptr(r, c));
            if (measure > best) {
                best = measure;
                p = r;
            }
        }
        pivots[c] = static_cast<int32>(offset + p);
        const V pivot = *P.ptr(p, c);
        if (pivot == V{}) {
            // The column is zero below the diagonal: nothing to eliminate (as LAPACK).
            if (*info < 0) *info = static_cast<int32>(offset + c);
            continue;
        }
        if (p != c) {
            for (size_type j = 0; j < n; ++j) std::swap(*P.ptr(c, j), *P.ptr(p, j));
        }
        for (size_type r = c + 1; r < m; ++r) {
            const V l = *P.ptr(r, c) / pivot;
            *P.ptr(r, c) = l;
            for (size_type j = c + 1; j < n; ++j) *P.ptr(r, j) -= mul(l, *P.ptr(c, j));
        }
    }
}

/// The first i with A(i, i) == 0 (the host backends' check before a triangular inverse), or -1.
template <typename V>
size_type first_zero_diagonal(Strided<const V> A)
{
    for (size_type i = 0; i < A.rows; ++i) {
        if (*A.ptr(i, i) == V{}) return i;
    }
    return -1;
}

/// T = T^{-1} in place, column by column (LAPACK's trti2): column j of the inverse is
/// -T^{-1}(rest) * T(rest, j) / T(j, j), where rest are the already inverted rows beyond j
/// (lower) or before j (upper).
template <typename V>
void unblocked_trtri(Triangle<V> T)
{
    const auto& A = T.view;
    const size_type n = A.rows;
    for (size_type step = 0; step < n; ++step) {
        const size_type j = T.lower ? n - 1 - step : step;
        V negated_diagonal{-1};
        if (!T.unit) {
            *A.ptr(j, j) = V{1} / *A.ptr(j, j);
            negated_diagonal = -*A.ptr(j, j);
        }
        // x = T^{-1}(rest) * x for x = column j within rest, walking away from the rows the
        // triangular product still needs.
        const size_type begin = T.lower ? j + 1 : 0;
        const size_type end = T.lower ? n : j;
        for (size_type s = 0; s < end - begin; ++s) {
            const size_type i = T.lower ? end - 1 - s : begin + s;
            V sum = T.unit ? *A.ptr(i, j) : mul(*A.ptr(i, i), *A.ptr(i, j));
            const size_type k_begin = T.lower ? begin : i + 1;
            const size_type k_end = T.lower ? i : end;
            for (size_type k = k_begin; k < k_end; ++k) sum += mul(*A.ptr(i, k), *A.ptr(k, j));
            *A.ptr(i, j) = mul(negated_diagonal, sum);
        }
    }
}

/// Right-looking blocked LU: factor a panel of K::panel_width columns, apply its interchanges
/// to the columns on either side, solve for the block row of U, update the trailing matrix.
template <typename K, typename Exec, typename V>
void blocked_getrf(const Exec& exec, Strided<V> A, int32* pivots, int32* info)
{
    const size_type n = A.rows;
    for (size_type j0 = 0; j0 < n; j0 += K::panel_width) {
        const size_type jb = std::min<size_type>(K::panel_width, n - j0);
        const size_type rest = n - j0 - jb;
        K::panel(exec, A.block(j0, j0, n - j0, jb), pivots + j0, j0, info);
        // The panel's interchanges are global row numbers: apply them to the full rows.
        if (j0 > 0) permute_rows(exec, pivots, j0, jb, A.block(0, 0, n, j0), false);
        if (rest > 0) {
            permute_rows(exec, pivots, j0, jb, A.block(0, j0 + jb, n, rest), false);
            auto U12 = A.block(j0, j0 + jb, jb, rest);
            trsm(exec, Triangle<const V>{A.block(j0, j0, jb, jb), true, true}, V{1}, U12);
            gemm(exec, V{-1}, Strided<const V>(A.block(j0 + jb, j0, rest, jb)),
                    Strided<const V>(U12), V{1}, A.block(j0 + jb, j0 + jb, rest, rest));
        }
    }
}

/// Blocked triangular inverse. Lower, from the last block up:
///   A21 = -A22^{-1} A21 A11^{-1}  (A22 already inverted, A11 not yet), then A11 = A11^{-1};
/// upper, from the first block down: A12 = -A11^{-1} A12 A22^{-1}, then A22 = A22^{-1}.
template <typename K, typename Exec, typename V>
void blocked_trtri(const Exec& exec, Triangle<V> T)
{
    const auto& A = T.view;
    const size_type n = A.rows;
    const size_type blocks = (n + K::block_width - 1) / K::block_width;
    for (size_type step = 0; step < blocks; ++step) {
        const size_type b = T.lower ? blocks - 1 - step : step;
        const size_type j0 = b * K::block_width;
        const size_type jb = std::min<size_type>(K::block_width, n - j0);
        const auto diagonal = A.block(j0, j0, jb, jb);
        // The off-diagonal block and the inverted triangle that multiplies it from the left.
        const size_type r0 = T.lower ? j0 + jb : 0;
        const size_type rows = T.lower ? n - j0 - jb : j0;
        if (rows > 0) {
            auto X = A.block(r0, j0, rows, jb);
            trmm(exec, Triangle<const V>{A.block(r0, r0, rows, rows), T.lower, T.unit}, V{1}, X);
            // X = -X D^{-1}  <=>  D^T X^T = -X^T (D^T has the other triangle).
            trsm(exec, Triangle<const V>{diagonal.transposed(), !T.lower, T.unit}, V{-1},
                    X.transposed());
        }
        K::diagonal_block(exec, Triangle<V>{diagonal, T.lower, T.unit});
    }
}

}  // namespace loom::lapack::detail
