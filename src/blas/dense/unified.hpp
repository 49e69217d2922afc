// The element-wise BLAS kernels on Dense, written once for OpenMP and CUDA on the unified
// launchers (base/parallel.hpp), declared in kernels.hpp: omp.cpp and cuda.cu include this
// header and instantiate them.
// Coefficient arrays (alpha, beta) are 1 x 1 or 1 x k in the executor's memory, read in place.
#pragma once

#include "base/parallel.hpp"
#include "blas/dense/kernels.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::blas::unified {

using loom::detail::kernel_data;
using loom::detail::kernel_matrix;
using loom::detail::kernel_value;

/// y = alpha x + beta y per column; no beta means beta = 1 (axpy).
template <typename Exec, typename V>
void axpby(const Exec& exec, const matrix::Dense<V>* alpha, const matrix::Dense<V>& x,
           const matrix::Dense<V>* beta, matrix::Dense<V>& y)
{
    using D = loom::detail::kernel_type_t<Exec, V>;
    const auto a = kernel_data(exec, alpha->data());
    const bool shared_alpha = alpha->cols() == 1;
    const auto b = beta ? kernel_data(exec, beta->data()) : nullptr;
    const bool shared_beta = beta && beta->cols() == 1;
    const auto X = kernel_matrix(exec, x);
    const auto Y = kernel_matrix(exec, y);
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) {
            const D aj = a[shared_alpha ? 0 : j];
            const D bj = b ? b[shared_beta ? 0 : j] : D{1};
            // beta == 0 must not read y: it may hold NaN or be uninitialized.
            Y(i, j) = bj == D{} ? aj * X(i, j) : aj * X(i, j) + bj * Y(i, j);
        },
        "loom::blas::axpby");
}

template <typename Exec, typename V>
void axpby_scalar(const Exec& exec, V alpha, const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::axpby";
    const auto a = kernel_value(exec, alpha);
    const auto b = kernel_value(exec, beta);
    const auto X = kernel_matrix(exec, x);
    const auto Y = kernel_matrix(exec, y);
    if (beta == V{0}) {
        loom::detail::parallel_for(
            exec, x.rows(), x.cols(),
            [=] LOOM_HOST_DEVICE(size_type i, size_type j) { Y(i, j) = a * X(i, j); }, where);
    } else {
        loom::detail::parallel_for(
            exec, x.rows(), x.cols(),
            [=] LOOM_HOST_DEVICE(size_type i, size_type j) { Y(i, j) = a * X(i, j) + b * Y(i, j); },
            where);
    }
}

/// x *= alpha per column.
template <typename Exec, typename V>
void scal(const Exec& exec, const matrix::Dense<V>& alpha, matrix::Dense<V>& x)
{
    const auto a = kernel_data(exec, alpha.data());
    const bool shared_alpha = alpha.cols() == 1;
    const auto X = kernel_matrix(exec, x);
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { X(i, j) *= a[shared_alpha ? 0 : j]; },
        "loom::blas::scal");
}

template <typename Exec, typename V>
void scal_scalar(const Exec& exec, V alpha, matrix::Dense<V>& x)
{
    const auto a = kernel_value(exec, alpha);
    const auto X = kernel_matrix(exec, x);
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(), [=] LOOM_HOST_DEVICE(size_type i, size_type j) { X(i, j) *= a; },
        "loom::blas::scal");
}

template <typename Exec, typename V>
void copy(const Exec& exec, const matrix::Dense<V>& x, matrix::Dense<V>& y)
{
    const auto X = kernel_matrix(exec, x);
    const auto Y = kernel_matrix(exec, y);
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { Y(i, j) = X(i, j); }, "loom::blas::copy");
}

template <typename Exec, typename V>
void fill(const Exec& exec, matrix::Dense<V>& x, V value)
{
    const auto v = kernel_value(exec, value);
    const auto X = kernel_matrix(exec, x);
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(), [=] LOOM_HOST_DEVICE(size_type i, size_type j) { X(i, j) = v; },
        "loom::blas::fill");
}

/// Rounds x to the lower precision (a conversion of the kernel's value types).
template <typename Exec, typename V>
void pack(const Exec& exec, const matrix::Dense<V>& x, lower_precision_t<V>* packed)
{
    using S = loom::detail::kernel_type_t<Exec, lower_precision_t<V>>;
    const auto X = kernel_matrix(exec, x);
    const auto P = kernel_matrix(exec, packed, x.cols());
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { P(i, j) = S(X(i, j)); },
        "loom::blas::pack");
}

template <typename Exec, typename V>
void unpack(const Exec& exec, const lower_precision_t<V>* packed, matrix::Dense<V>& y)
{
    using D = loom::detail::kernel_type_t<Exec, V>;
    const auto Y = kernel_matrix(exec, y);
    const auto P = kernel_matrix(exec, packed, y.cols());
    loom::detail::parallel_for(
        exec, y.rows(), y.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { Y(i, j) = D(P(i, j)); },
        "loom::blas::unpack");
}

}  // namespace loom::blas::unified
