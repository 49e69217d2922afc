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
        x.at(r, j) = sum * (V{1} / diagonal);  // as solve_one_rhs_in_order
    }
}

/// The loop of solve_rows_in_order for one contiguous right-hand side: solve_row without its
/// per-entry choices, which were most of a one-thread solve's time. `indexed`: the values
/// are read through value_index (op(T) transposed: IC's L^H), which before this loop sent
/// IC's upper solve down solve_row's path.
template <bool indexed, bool conjugate, typename V, typename I>
void solve_one_rhs_in_order(const TriangularRows<V, I>& rows, const V* bv, size_type b_stride,
                            V* xv, size_type x_stride)
{
    const auto n = static_cast<I>(rows.n);
    const bool lower = rows.lower;
    const bool unit = rows.unit;
    const I* row_ptrs = rows.row_ptrs;
    const I* col_idxs = rows.col_idxs;
    const V* values = rows.values;
    const I* value_index = rows.value_index;
    const auto entry = [&](I k) {
        const V a = values[indexed ? value_index[k] : k];
        if constexpr (conjugate) {
            return loom::conj(a);
        } else {
            return a;
        }
    };
    for (I i = 0; i < n; ++i) {
        const I r = lower ? i : n - 1 - i;
        V sum = bv[r * b_stride];
        V diagonal{};
        const I end = row_ptrs[r + 1];
        for (I k = row_ptrs[r]; k < end; ++k) {
            const I c = col_idxs[k];
            if (c != r) {
                sum -= entry(k) * xv[c * x_stride];
            } else {
                diagonal += entry(k);
            }
        }
        // The reciprocal does not wait for the sums (nor for the rows before): its division
        // runs beside them, and only a multiplication is left on the chain from row to row
        // (add32's upper solve: the store after the division held a quarter of the samples).
        xv[r * x_stride] = unit ? sum : sum * (V{1} / diagonal);
    }
}

/// x = op(T)^-1 b row after row, forward for a lower op(T), backward for an upper one: an order
/// every dependency respects, and the rows' own order in memory (no schedule to follow).
template <typename V, typename I>
void solve_rows_in_order(const TriangularRows<V, I>& rows, const matrix::Dense<V>& b,
                         matrix::Dense<V>& x)
{
    if (b.cols() != 1) {
        const auto n = static_cast<I>(rows.n);
        for (I i = 0; i < n; ++i) solve_row(rows, rows.lower ? i : n - 1 - i, b, x);
        return;
    }
    // Conjugation changes nothing for a real type: one loop less to compile.
    const bool conjugate = is_complex_v<V> && rows.conjugate;
    const auto solve = [&]<bool indexed, bool conj>() {
        solve_one_rhs_in_order<indexed, conj>(rows, b.data(), b.stride(), x.data(), x.stride());
    };
    if (rows.value_index == nullptr) {
        conjugate ? solve.template operator()<false, true>()
                  : solve.template operator()<false, false>();
    } else {
        conjugate ? solve.template operator()<true, true>()
                  : solve.template operator()<true, false>();
    }
}

}  // namespace loom::sparse::detail
