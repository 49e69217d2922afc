// One row of an incomplete sparse approximate inverse (ISAI; Anzt, Huckle, Schaefer,
// Dongarra 2018), on the host: row i of M on its pattern J solves M(i, J) A(J, J) = e_i(J),
// a small dense system (A(J, J)^T m = e_i by Gaussian elimination with partial pivoting;
// triangular for a triangular A). Shared by the reference and OpenMP backends.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "loom/base/types.hpp"

namespace loom::sparse::detail {

/// Row i of M into m_vals; false when A(J, J) is singular. a_* and m_* are host CSR arrays
/// with sorted rows; `dense` is scratch.
template <typename V, typename I>
bool isai_row(I i, const I* a_ptrs, const I* a_cols, const V* a_vals, const I* m_ptrs,
              const I* m_cols, V* m_vals, std::vector<V>& dense)
{
    const I* J = m_cols + m_ptrs[i];
    const auto k = static_cast<size_type>(m_ptrs[i + 1] - m_ptrs[i]);
    if (k == 0) return true;
    // dense: k x (k + 1), row r = column J[r] of A(J, J), then the right-hand side.
    const auto w = k + 1;
    dense.assign(k * w, V{});
    for (size_type c = 0; c < k; ++c) {
        for (auto p = a_ptrs[J[c]]; p < a_ptrs[J[c] + 1]; ++p) {
            const auto at = std::lower_bound(J, J + k, a_cols[p]);
            if (at != J + k && *at == a_cols[p]) dense[(at - J) * w + c] += a_vals[p];
        }
        dense[c * w + k] = J[c] == i ? V{1} : V{0};
    }
    for (size_type col = 0; col < k; ++col) {
        size_type pivot = col;
        for (size_type r = col + 1; r < k; ++r) {
            if (std::abs(dense[r * w + col]) > std::abs(dense[pivot * w + col])) pivot = r;
        }
        if (dense[pivot * w + col] == V{}) return false;
        if (pivot != col) {
            for (size_type c = 0; c < w; ++c) std::swap(dense[pivot * w + c], dense[col * w + c]);
        }
        for (size_type r = col + 1; r < k; ++r) {
            const V factor = dense[r * w + col] / dense[col * w + col];
            if (factor == V{}) continue;
            for (size_type c = col; c < w; ++c) dense[r * w + c] -= factor * dense[col * w + c];
        }
    }
    for (size_type r = k; r-- > 0;) {
        V sum = dense[r * w + k];
        for (size_type c = r + 1; c < k; ++c) sum -= dense[r * w + c] * m_vals[m_ptrs[i] + c];
        m_vals[m_ptrs[i] + r] = sum / dense[r * w + r];
    }
    return true;
}

}  // namespace loom::sparse::detail
