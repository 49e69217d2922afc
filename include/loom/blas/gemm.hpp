// Dense matrix products on whole Dense matrices.
#pragma once

#include "loom/matrix/dense.hpp"

namespace loom::blas {

/// C = alpha * A * B + beta * C (C not read when beta is 0). A straightforward native kernel
/// on every backend; it is what Dense::apply uses.
template <typename V>
void gemm(V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& B, V beta,
          matrix::Dense<V>& C);

}  // namespace loom::blas
