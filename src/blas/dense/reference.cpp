// Reference BLAS on Dense: plain loops, the oracle for the other backends.
#include <cmath>

#include "base/instantiate.hpp"
#include "blas/dense/kernels.hpp"
#include "blas/dense/quotient.hpp"

namespace loom::blas::reference {
namespace {

template <typename V>
V coefficient(const matrix::Dense<V>* c, size_type j)
{
    return c->cols() == 1 ? c->at(0, 0) : c->at(0, j);
}

}  // namespace

template <typename V>
void dot(const ReferenceExecutor&, const matrix::Dense<V>& x, const matrix::Dense<V>& y,
         matrix::Dense<V>& result, bool conjugate)
{
    for (size_type j = 0; j < x.cols(); ++j) {
        V sum{};
        for (size_type i = 0; i < x.rows(); ++i) {
            sum += (conjugate ? loom::conj(x.at(i, j)) : x.at(i, j)) * y.at(i, j);
        }
        result.at(0, j) = sum;
    }
}

template <typename V>
void nrm2(const ReferenceExecutor&, const matrix::Dense<V>& x,
          matrix::Dense<remove_complex_t<V>>& result)
{
    for (size_type j = 0; j < x.cols(); ++j) {
        remove_complex_t<V> sum{};
        for (size_type i = 0; i < x.rows(); ++i) sum += squared_norm(x.at(i, j));
        result.at(0, j) = std::sqrt(sum);
    }
}

template <typename V>
void axpby(const ReferenceExecutor&, const matrix::Dense<V>* alpha, const matrix::Dense<V>& x,
           const matrix::Dense<V>* beta, matrix::Dense<V>& y)
{
    for (size_type j = 0; j < x.cols(); ++j) {
        const V a = coefficient(alpha, j);
        const V b = beta ? coefficient(beta, j) : V{1};
        for (size_type i = 0; i < x.rows(); ++i) {
            y.at(i, j) = b == V{0} ? a * x.at(i, j) : a * x.at(i, j) + b * y.at(i, j);
        }
    }
}

template <typename V>
void axpy_quotient(const ReferenceExecutor&, const matrix::Dense<V>& num,
                   const matrix::Dense<V>& den, V sign, const matrix::Dense<V>& x,
                   matrix::Dense<V>& y)
{
    for (size_type j = 0; j < x.cols(); ++j) {
        const V a = sign * detail::guarded_quotient(coefficient(&num, j), coefficient(&den, j));
        for (size_type i = 0; i < x.rows(); ++i) y.at(i, j) += a * x.at(i, j);
    }
}

template <typename V>
void axpby_scalar(const ReferenceExecutor&, V alpha, const matrix::Dense<V>& x, V beta,
                  matrix::Dense<V>& y)
{
    for (size_type i = 0; i < x.rows(); ++i) {
        for (size_type j = 0; j < x.cols(); ++j) {
            y.at(i, j) = beta == V{0} ? alpha * x.at(i, j) : alpha * x.at(i, j) + beta * y.at(i, j);
        }
    }
}

template <typename V>
void scal(const ReferenceExecutor&, const matrix::Dense<V>& alpha, matrix::Dense<V>& x)
{
    for (size_type i = 0; i < x.rows(); ++i) {
        for (size_type j = 0; j < x.cols(); ++j) x.at(i, j) *= coefficient(&alpha, j);
    }
}

template <typename V>
void scal_scalar(const ReferenceExecutor&, V alpha, matrix::Dense<V>& x)
{
    for (size_type i = 0; i < x.rows(); ++i) {
        for (size_type j = 0; j < x.cols(); ++j) x.at(i, j) *= alpha;
    }
}

template <typename V>
void copy(const ReferenceExecutor&, const matrix::Dense<V>& x, matrix::Dense<V>& y)
{
    for (size_type i = 0; i < x.rows(); ++i) {
        for (size_type j = 0; j < x.cols(); ++j) y.at(i, j) = x.at(i, j);
    }
}

template <typename V>
void fill(const ReferenceExecutor&, matrix::Dense<V>& x, V value)
{
    for (size_type i = 0; i < x.rows(); ++i) {
        for (size_type j = 0; j < x.cols(); ++j) x.at(i, j) = value;
    }
}

template <typename V>
void pack(const ReferenceExecutor&, const matrix::Dense<V>& x, lower_precision_t<V>* packed)
{
    using S = lower_precision_t<V>;
    for (size_type i = 0; i < x.rows(); ++i) {
        for (size_type j = 0; j < x.cols(); ++j) packed[i * x.cols() + j] = S(x.at(i, j));
    }
}

template <typename V>
void unpack(const ReferenceExecutor&, const lower_precision_t<V>* packed, matrix::Dense<V>& y)
{
    for (size_type i = 0; i < y.rows(); ++i) {
        for (size_type j = 0; j < y.cols(); ++j) y.at(i, j) = V(packed[i * y.cols() + j]);
    }
}

}  // namespace loom::blas::reference

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_DENSE_BACKEND,
                            reference, reference, ReferenceExecutor)
}  // namespace loom::blas
