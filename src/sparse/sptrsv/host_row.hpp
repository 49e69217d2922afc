// One row of a triangular solve on the host, shared by the reference and OpenMP backends.
#pragma once

#include "loom/base/types.hpp"
#include "loom/matrix/dense.hpp"
#include "sparse/sptrsv/kernels.hpp"

namespace loom::sparse::detail {

/// x(r, :) = (b(r, :) - sum over off-diagonal entries a_rc x(c, :)) / diagonal, for every
/// right-hand side; reads x only in rows that row r depends on.
template <typename V, typename I>
void solve_row(const TriangularRows<V, I>& rows, I r, const matrix::Dense<V>& b,
               matrix::Dense<V>& x)
{
    const auto begin = rows.row_ptrs[r];
    const auto end = rows.row_ptrs[r + 1];
    for (size_type j = 0; j < b.cols(); ++j) {
        V sum = b.at(r, j);
        V diagonal = rows.unit ? V{1} : V{0};
        for (auto k = begin; k < end; ++k) {
            const auto c = rows.col_idxs[k];
            const V a = rows.conjugate ? loom::conj(rows.value(k)) : rows.value(k);
            if (c != r) {
                sum -= a * x.at(c, j);
            } else if (!rows.unit) {
                diagonal += a;
            }
        }
        x.at(r, j) = sum / diagonal;
    }
}

/// x = op(T)^-1 b row after row, forward for a lower op(T), backward for an upper one: an order
/// every dependency respects, and the rows' own order in memory (no schedule to follow).
template <typename V, typename I>
void solve_rows_in_order(const TriangularRows<V, I>& rows, const matrix::Dense<V>& b,
                         matrix::Dense<V>& x)
{
    const auto n = static_cast<I>(rows.n);
    const auto row = [&](I i) { return rows.lower ? i : n - 1 - i; };
    if (b.cols() != 1 || rows.conjugate || rows.value_index != nullptr) {
        for (I i = 0; i < n; ++i) solve_row(rows, row(i), b, x);
        return;
    }
    // One plain right-hand side (a preconditioner's apply): solve_row without its per-entry
    // choices, which were most of a one-thread solve's time.
    const auto b_stride = b.stride();
    const auto x_stride = x.stride();
    const V* bv = b.data();
    V* xv = x.data();
    for (I i = 0; i < n; ++i) {
        const I r = row(i);
        V sum = bv[r * b_stride];
        V diagonal{};
        for (auto k = rows.row_ptrs[r]; k < rows.row_ptrs[r + 1]; ++k) {
            const I c = rows.col_idxs[k];
            if (c != r) {
                sum -= rows.values[k] * xv[c * x_stride];
            } else {
                diagonal += rows.values[k];
            }
        }
        xv[r * x_stride] = rows.unit ? sum : sum / diagonal;
    }
}

}  // namespace loom::sparse::detail
