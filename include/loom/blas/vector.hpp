// Vector BLAS on Dense multi-vectors, column by column: column j of the result belongs to
// column j of the inputs. Results of reductions are 1 x k Dense on the inputs' executor, so
// that a solver never waits for the host. Reductions are deterministic for a given executor,
// thread count and size (fixed partition and combination order).
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/lower_precision.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::blas {

/// result(0, j) = sum_i x(i, j) * y(i, j)   (no conjugation)
template <typename V>
LOOM_EXPORT void dot(const matrix::Dense<V>& x, const matrix::Dense<V>& y,
                     matrix::Dense<V>& result);
/// result(0, j) = sum_i conj(x(i, j)) * y(i, j)
template <typename V>
LOOM_EXPORT void conj_dot(const matrix::Dense<V>& x, const matrix::Dense<V>& y,
                          matrix::Dense<V>& result);
/// result(0, j) = ||x(:, j)||_2
template <typename V>
LOOM_EXPORT void nrm2(const matrix::Dense<V>& x, matrix::Dense<remove_complex_t<V>>& result);

/// y(:, j) += alpha(0, j) * x(:, j); alpha is 1 x 1 (shared) or 1 x k.
template <typename V>
LOOM_EXPORT void axpy(const matrix::Dense<V>& alpha, const matrix::Dense<V>& x,
                      matrix::Dense<V>& y);
template <typename V>
LOOM_EXPORT void axpy(V alpha, const matrix::Dense<V>& x, matrix::Dense<V>& y);
/// y(:, j) += s * q_j * x(:, j) with q_j = num(0, j) / den(0, j) and s = -1 when `subtract`,
/// else 1; q_j is taken as 0 where den(0, j) is 0 or the quotient is not finite, so y never
/// turns to NaN here. The quotient is formed where the data are: a step length computed by a
/// reduction on a device needs no copy to the host before it is used. num and den: 1 x k.
template <typename V>
LOOM_EXPORT void axpy_quotient(const matrix::Dense<V>& num, const matrix::Dense<V>& den,
                               const matrix::Dense<V>& x, matrix::Dense<V>& y,
                               bool subtract = false);
/// y(:, j) = alpha(0, j) * x(:, j) + beta(0, j) * y(:, j); y is not read when beta is 0.
template <typename V>
LOOM_EXPORT void axpby(const matrix::Dense<V>& alpha, const matrix::Dense<V>& x,
                       const matrix::Dense<V>& beta, matrix::Dense<V>& y);
template <typename V>
LOOM_EXPORT void axpby(V alpha, const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y);
/// x(:, j) *= alpha(0, j)
template <typename V>
LOOM_EXPORT void scal(const matrix::Dense<V>& alpha, matrix::Dense<V>& x);
template <typename V>
LOOM_EXPORT void scal(V alpha, matrix::Dense<V>& x);
/// y = x (same shape, any strides)
template <typename V>
LOOM_EXPORT void copy(const matrix::Dense<V>& x, matrix::Dense<V>& y);
/// x(i, j) = value
template <typename V>
LOOM_EXPORT void fill(matrix::Dense<V>& x, V value);
/// packed[i * cols + j] = x(i, j) rounded to lower_precision_t<V> (packed: rows x cols
/// values, on x's executor).
template <typename V>
LOOM_EXPORT void pack(const matrix::Dense<V>& x, Array<lower_precision_t<V>>& packed);
/// y(i, j) = packed[i * cols + j] (unpack(pack(x)) is x rounded to the lower precision).
template <typename V>
LOOM_EXPORT void unpack(const Array<lower_precision_t<V>>& packed, matrix::Dense<V>& y);

}  // namespace loom::blas

LOOM_PUBLIC_END
