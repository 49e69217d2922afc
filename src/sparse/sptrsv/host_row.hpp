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

}  // namespace loom::sparse::detail
