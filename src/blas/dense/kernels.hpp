// Per-backend entry points of BLAS on Dense (include/loom/blas/vector.hpp),
// declared once for every backend. dense.cpp checks arguments and dispatches. Arguments
// arrive checked: equal shapes, alpha/beta 1 x 1 or 1 x k, one executor.
#pragma once

#include "base/dispatch.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/lower_precision.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/dense.hpp"

/* The reductions and the quotient update, written per backend */
#define LOOM_DECLARE_BLAS_DENSE_KERNELS(Exec)                                                \
    template <typename V>                                                                     \
    void dot(const Exec& exec, const matrix::Dense<V>& x, const matrix::Dense<V>& y,         \
             matrix::Dense<V>& result, bool conjugate);                                       \
    template <typename V>                                                                     \
    void nrm2(const Exec& exec, const matrix::Dense<V>& x,                                   \
              matrix::Dense<remove_complex_t<V>>& result);                                    \
    /* y += sign * num / den x, per column; the quotient 0 where den is 0 or it is not finite */ \
    template <typename V>                                                                     \
    void axpy_quotient(const Exec& exec, const matrix::Dense<V>& num,                         \
                       const matrix::Dense<V>& den, V sign, const matrix::Dense<V>& x,        \
                       matrix::Dense<V>& y)

/* The element-wise kernels: Exec is the backend's executor, or a template parameter (given
   in the extra template parameters) where OpenMP and CUDA share them (unified.hpp) */
#define LOOM_DECLARE_BLAS_ELEMENTWISE_KERNELS(Exec, ...)                                     \
    /* y = alpha x + beta y, alpha/beta 1x1 or 1xk device arrays; beta null means beta = 1 (axpy) */    \
    template <__VA_ARGS__ typename V>                                                         \
    void axpby(const Exec& exec, const matrix::Dense<V>* alpha, const matrix::Dense<V>& x,   \
               const matrix::Dense<V>* beta, matrix::Dense<V>& y);                           \
    /* the same with host scalars */                                                          \
    template <__VA_ARGS__ typename V>                                                         \
    void axpby_scalar(const Exec& exec, V alpha, const matrix::Dense<V>& x, V beta,          \
                      matrix::Dense<V>& y);                                                   \
    template <__VA_ARGS__ typename V>                                                         \
    void scal(const Exec& exec, const matrix::Dense<V>& alpha, matrix::Dense<V>& x);         \
    template <__VA_ARGS__ typename V>                                                         \
    void copy(const Exec& exec, const matrix::Dense<V>& x, matrix::Dense<V>& y);             \
    template <__VA_ARGS__ typename V>                                                         \
    void scal_scalar(const Exec& exec, V alpha, matrix::Dense<V>& x);                        \
    template <__VA_ARGS__ typename V>                                                         \
    void fill(const Exec& exec, matrix::Dense<V>& x, V value);                                \
    /* packed: x.rows() * x.cols() values, row-major without padding */                      \
    template <__VA_ARGS__ typename V>                                                         \
    void pack(const Exec& exec, const matrix::Dense<V>& x, lower_precision_t<V>* packed);    \
    template <__VA_ARGS__ typename V>                                                         \
    void unpack(const Exec& exec, const lower_precision_t<V>* packed, matrix::Dense<V>& y)

/* Explicit instantiation of a backend's kernels at loom::blas scope: ns is the backend's
   namespace, elementwise_ns where its element-wise kernels live (unified for OpenMP and CUDA) */
#define LOOM_INSTANTIATE_BLAS_DENSE_BACKEND(ns, elementwise_ns, Exec, V)                       \
    LOOM_INSTANTIATE_BLAS_DENSE_KERNELS(ns, Exec, V)                                          \
    LOOM_INSTANTIATE_BLAS_ELEMENTWISE_KERNELS(elementwise_ns, Exec, V)
#define LOOM_INSTANTIATE_BLAS_DENSE_KERNELS(ns, Exec, V)                                     \
    template void ns::dot(const Exec&, const matrix::Dense<V>&, const matrix::Dense<V>&,     \
                          matrix::Dense<V>&, bool);                                            \
    template void ns::nrm2(const Exec&, const matrix::Dense<V>&,                              \
                           matrix::Dense<remove_complex_t<V>>&);                               \
    template void ns::axpy_quotient(const Exec&, const matrix::Dense<V>&,                     \
                                    const matrix::Dense<V>&, V, const matrix::Dense<V>&,       \
                                    matrix::Dense<V>&);
#define LOOM_INSTANTIATE_BLAS_ELEMENTWISE_KERNELS(ns, Exec, V)                               \
    template void ns::axpby(const Exec&, const matrix::Dense<V>*, const matrix::Dense<V>&,   \
                            const matrix::Dense<V>*, matrix::Dense<V>&);                       \
    template void ns::axpby_scalar(const Exec&, V, const matrix::Dense<V>&, V,                \
                                   matrix::Dense<V>&);                                         \
    template void ns::scal(const Exec&, const matrix::Dense<V>&, matrix::Dense<V>&);          \
    template void ns::scal_scalar(const Exec&, V, matrix::Dense<V>&);                         \
    template void ns::copy(const Exec&, const matrix::Dense<V>&, matrix::Dense<V>&);          \
    template void ns::fill(const Exec&, matrix::Dense<V>&, V);                                \
    template void ns::pack(const Exec&, const matrix::Dense<V>&, lower_precision_t<V>*);      \
    template void ns::unpack(const Exec&, const lower_precision_t<V>*, matrix::Dense<V>&);

LOOM_DECLARE_ON_EACH_BACKEND_UNIFIED(loom::blas, LOOM_DECLARE_BLAS_DENSE_KERNELS,
                                     LOOM_DECLARE_BLAS_ELEMENTWISE_KERNELS)
