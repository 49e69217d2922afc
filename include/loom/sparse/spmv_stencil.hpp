// SpMV with a structured Stencil operator: the same call as for the other formats
// (loom/sparse/spmv.hpp).
#pragma once

#include "loom/matrix/dense.hpp"
#include "loom/matrix/stencil.hpp"
#include "loom/sparse/spmv.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// y = alpha * op(A) * x + beta * y. x is A.cols() x k, y is A.rows() x k (the stencil's
/// matrix is square); A, x and y on one executor. When beta is zero y is only written.
/// DimensionMismatch on wrong shapes, BadInput when the executors differ or y overlaps x.
template <typename V, typename I>
LOOM_EXPORT void spmv(Mode mode, V alpha, const matrix::Stencil<V, I>& A, const matrix::Dense<V>& x,
                      V beta, matrix::Dense<V>& y);

}  // namespace loom::sparse

LOOM_PUBLIC_END
