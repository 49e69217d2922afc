// What one row (or one aggregate) contributes to the multigrid setup kernels, written once for
// every backend: the reference visits them in order, OpenMP and CUDA through the unified
// launchers (unified.hpp). The value type is the one a kernel body sees (thrust::complex on
// CUDA, std::complex on the host), so only real()/imag() and arithmetic are used; magnitudes
// are summed in double, as the host setup did.
#pragma once

#include <cmath>
#include <type_traits>

#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"

namespace loom::multigrid::setup_rows {

template <typename T>
LOOM_HOST_DEVICE double squared_magnitude(const T& x)
{
    if constexpr (std::is_arithmetic_v<T>) {
        return static_cast<double>(x) * static_cast<double>(x);
    } else {
        const auto re = static_cast<double>(x.real());
        const auto im = static_cast<double>(x.imag());
        return re * re + im * im;
    }
}

template <typename T>
LOOM_HOST_DEVICE T conjugate(const T& x)
{
    if constexpr (std::is_arithmetic_v<T>) {
        return x;
    } else {
        return T(x.real(), -x.imag());
    }
}

/// The strength filter's test for entry (r, c): |a|^2 >= theta^2 |d_r| |d_c|, the diagonal
/// always kept. `diagonal` is a rows x 1 column of stride `stride`.
template <typename V, typename I>
LOOM_HOST_DEVICE bool is_strong(const V& a, size_type r, I c, const V* diagonal,
                                size_type stride, double theta_squared)
{
    if (c == static_cast<I>(r)) return true;
    const double dr = ::sqrt(squared_magnitude(diagonal[r * stride]));
    const double dc = ::sqrt(squared_magnitude(diagonal[static_cast<size_type>(c) * stride]));
    return squared_magnitude(a) >= theta_squared * dr * dc;
}

/// Row r's entries that the strength filter keeps.
template <typename V, typename I>
LOOM_HOST_DEVICE I strong_count(const I* ptrs, const I* cols, const V* vals, const V* diagonal,
                                size_type stride, double theta_squared, size_type r)
{
    I count = 0;
    for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
        count += is_strong(vals[k], r, cols[k], diagonal, stride, theta_squared) ? 1 : 0;
    }
    return count;
}

/// Row r's kept entries, in order, into CSR arrays from position `at` on.
template <typename V, typename I>
LOOM_HOST_DEVICE void copy_strong(const I* ptrs, const I* cols, const V* vals, const V* diagonal,
                                  size_type stride, double theta_squared, size_type r, I at,
                                  I* out_cols, V* out_vals)
{
    for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
        if (is_strong(vals[k], r, cols[k], diagonal, stride, theta_squared)) {
            out_cols[at] = cols[k];
            out_vals[at++] = vals[k];
        }
    }
}

/// 1 / sum_j |a_rj|, or 0 for a zero row.
template <typename V, typename I>
LOOM_HOST_DEVICE V l1_inverse(const I* ptrs, const V* vals, size_type r)
{
    double sum = 0;
    for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) sum += ::sqrt(squared_magnitude(vals[k]));
    return sum == 0 ? V(0) : V(1.0 / sum);
}

/// The tentative prolongator of aggregate a, whose rows are members[first[a] .. first[a+1])
/// in increasing order: B's rows there = Q R by modified Gram-Schmidt, Q(r, j) into
/// Q[r m + j], R into rows a m .. a m + m - 1 of R (stride rstride, lower part zero). A column
/// that is rounding only once projected (relative to its own size) leaves R(j, j) = 0 and the
/// rest of the aggregate unfinished: the caller raises the error.
template <typename V, typename I>
LOOM_HOST_DEVICE void orthonormalize_aggregate(const I* first, const I* members, const V* B,
                                               size_type bstride, size_type m, V* Q, V* R,
                                               size_type rstride, size_type a)
{
    const auto begin = first[a];
    const auto end = first[a + 1];
    V* Ra = R + a * m * rstride;
    for (size_type j = 0; j < m; ++j) {
        double original = 0;
        for (auto k = begin; k < end; ++k) {
            const auto r = static_cast<size_type>(members[k]);
            Q[r * m + j] = B[r * bstride + j];
            original += squared_magnitude(Q[r * m + j]);
        }
        for (size_type i = 0; i < j; ++i) {
            V projection(0);
            for (auto k = begin; k < end; ++k) {
                const auto r = static_cast<size_type>(members[k]);
                projection += conjugate(Q[r * m + i]) * Q[r * m + j];
            }
            for (auto k = begin; k < end; ++k) {
                const auto r = static_cast<size_type>(members[k]);
                Q[r * m + j] -= projection * Q[r * m + i];
            }
            Ra[i * rstride + j] = projection;
        }
        for (size_type i = j + 1; i < m; ++i) Ra[i * rstride + j] = V(0);
        double norm = 0;
        for (auto k = begin; k < end; ++k) {
            norm += squared_magnitude(Q[static_cast<size_type>(members[k]) * m + j]);
        }
        norm = ::sqrt(norm);
        // What is left of the column is rounding, not a direction.
        if (!(norm > 1e-10 * ::sqrt(original))) {
            Ra[j * rstride + j] = V(0);
            return;
        }
        const V scale(1.0 / norm);
        for (auto k = begin; k < end; ++k) Q[static_cast<size_type>(members[k]) * m + j] *= scale;
        Ra[j * rstride + j] = V(norm);
    }
}

/// Whether aggregate a's R has a zero on its diagonal (orthonormalize_aggregate failed there).
template <typename V>
LOOM_HOST_DEVICE bool has_failed(const V* R, size_type m, size_type rstride, size_type a)
{
    for (size_type j = 0; j < m; ++j) {
        if (squared_magnitude(R[(a * m + j) * rstride + j]) == 0) return true;
    }
    return false;
}

}  // namespace loom::multigrid::setup_rows
