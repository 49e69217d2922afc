// OpenMP BLAS on Dense. Element-wise kernels split rows statically over the executor's
// threads; reductions give each thread one fixed chunk of rows and combine the per-thread
// partial sums in thread order, so a result depends only on the thread count and the size.
// Small operands (min_parallel_elements) are handled by the calling thread alone.
#include <cmath>
#include <vector>

#include "base/instantiate.hpp"
#include "blas/dense/kernels.hpp"
#include "blas/dense/omp_column_sums.hpp"
#include "blas/dense/quotient.hpp"
#include "blas/dense/unified.hpp"

namespace loom::blas::omp {
namespace {

template <typename V>
V coefficient(const matrix::Dense<V>& c, size_type j)
{
    return c.cols() == 1 ? c.at(0, 0) : c.at(0, j);
}

}  // namespace

template <typename V>
void dot(const OmpExecutor& exec, const matrix::Dense<V>& x, const matrix::Dense<V>& y,
         matrix::Dense<V>& result, bool conjugate)
{
    const V* xd = x.data();
    const V* yd = y.data();
    const size_type xs = x.stride();
    const size_type ys = y.stride();
    PerColumn<V> sums(x.cols());
    if (conjugate) {
        column_sums<V>(exec, x.rows(), x.cols(),
                       [=](size_type i, size_type j) { return loom::conj(xd[i * xs + j]) * yd[i * ys + j]; },
                       sums.data());
    } else {
        column_sums<V>(exec, x.rows(), x.cols(),
                       [=](size_type i, size_type j) { return xd[i * xs + j] * yd[i * ys + j]; },
                       sums.data());
    }
    for (size_type j = 0; j < x.cols(); ++j) result.at(0, j) = sums[j];
}

template <typename V>
void nrm2(const OmpExecutor& exec, const matrix::Dense<V>& x,
          matrix::Dense<remove_complex_t<V>>& result)
{
    using R = remove_complex_t<V>;
    const V* xd = x.data();
    const size_type xs = x.stride();
    PerColumn<R> sums(x.cols());
    column_sums<R>(exec, x.rows(), x.cols(),
                   [=](size_type i, size_type j) { return squared_norm(xd[i * xs + j]); },
                   sums.data());
    for (size_type j = 0; j < x.cols(); ++j) result.at(0, j) = std::sqrt(sums[j]);
}

template <typename V>
void axpy_quotient(const OmpExecutor& exec, const matrix::Dense<V>& num,
                   const matrix::Dense<V>& den, V sign, const matrix::Dense<V>& x,
                   matrix::Dense<V>& y)
{
    // Not on the shared bodies: a division per element would cost the host more than the
    // memory traffic, so the quotients are formed once per column here (CUDA forms them per
    // element, which is free there and needs no extra kernel).
    const size_type k = x.cols();
    PerColumn<V> a(k);
    for (size_type j = 0; j < k; ++j) {
        a[j] = sign * detail::guarded_quotient(coefficient(num, j), coefficient(den, j));
    }
    loom::detail::parallel_for(exec, x.rows(), k, [&](size_type i, size_type j) {
        y.at(i, j) += a[j] * x.at(i, j);
    });
}

}  // namespace loom::blas::omp

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_DENSE_BACKEND, omp, unified, OmpExecutor)
}  // namespace loom::blas
