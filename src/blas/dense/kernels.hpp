// Per-backend entry points of BLAS on Dense (include/loom/blas/vector.hpp),
// declared once for every backend. dense.cpp checks arguments and dispatches. Arguments
// arrive checked: equal shapes, alpha/beta 1 x 1 or 1 x k, one executor.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/base/lower_precision.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/dense.hpp"

#define LOOM_DECLARE_BLAS_DENSE_KERNELS(Exec)                                                \
    template <typename V>                                                                     \
    void dot(const Exec& exec, const matrix::Dense<V>& x, const matrix::Dense<V>& y,         \
             matrix::Dense<V>& result, bool conjugate);                                       \
    template <typename V>                                                                     \
    void nrm2(const Exec& exec, const matrix::Dense<V>& x,                                   \
              matrix::Dense<remove_complex_t<V>>& result);                                    \
    /* y = alpha x + beta y, alpha/beta 1x1 or 1xk device arrays; beta null means beta = 1 (axpy) */    \
    template <typename V>                                                                     \
    void axpby(const Exec& exec, const matrix::Dense<V>* alpha, const matrix::Dense<V>& x,   \
               const matrix::Dense<V>* beta, matrix::Dense<V>& y);                           \
    /* y += sign * num / den x, per column; the quotient 0 where den is 0 or it is not finite */ \
    template <typename V>                                                                     \
    void axpy_quotient(const Exec& exec, const matrix::Dense<V>& num,                         \
                       const matrix::Dense<V>& den, V sign, const matrix::Dense<V>& x,        \
                       matrix::Dense<V>& y);                                                  \
    /* the same with host scalars */                                                          \
    template <typename V>                                                                     \
    void axpby_scalar(const Exec& exec, V alpha, const matrix::Dense<V>& x, V beta,          \
                      matrix::Dense<V>& y);                                                   \
    template <typename V>                                                                     \
    void scal(const Exec& exec, const matrix::Dense<V>& alpha, matrix::Dense<V>& x);         \
    template <typename V>                                                                     \
    void copy(const Exec& exec, const matrix::Dense<V>& x, matrix::Dense<V>& y);             \
    template <typename V>                                                                     \
    void scal_scalar(const Exec& exec, V alpha, matrix::Dense<V>& x);                      \
    template <typename V>                                                                     \
    void fill(const Exec& exec, matrix::Dense<V>& x, V value);                                \
    /* packed: x.rows() * x.cols() values, row-major without padding */                      \
    template <typename V>                                                                     \
    void pack(const Exec& exec, const matrix::Dense<V>& x, lower_precision_t<V>* packed);      \
    template <typename V>                                                                     \
    void unpack(const Exec& exec, const lower_precision_t<V>* packed, matrix::Dense<V>& y)

namespace loom::blas::reference {
LOOM_DECLARE_BLAS_DENSE_KERNELS(ReferenceExecutor);
}
namespace loom::blas::omp {
LOOM_DECLARE_BLAS_DENSE_KERNELS(OmpExecutor);
}
namespace loom::blas::cuda {
LOOM_DECLARE_BLAS_DENSE_KERNELS(CudaExecutor);
}
