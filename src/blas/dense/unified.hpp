// The element-wise BLAS kernels on Dense, written once for OpenMP and CUDA on the unified
// launchers (base/parallel.hpp), declared in kernels.hpp: omp.cpp and cuda.cu include this
// header and instantiate them.
// Coefficient arrays (alpha, beta) are 1 x 1 or 1 x k in the executor's memory, read in place.
#pragma once

#include "base/parallel.hpp"
#include "blas/dense/kernels.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::blas::unified {

/// y = alpha x + beta y per column; no beta means beta = 1 (axpy).
template <typename Exec, typename V>
void axpby(const Exec& exec, const matrix::Dense<V>* alpha, const matrix::Dense<V>& x,
           const matrix::Dense<V>* beta, matrix::Dense<V>& y)
{
    using D = loom::detail::kernel_type_t<Exec, V>;
    const auto a = loom::detail::kernel_data(exec, alpha->data());
    const bool shared_alpha = alpha->cols() == 1;
    const auto b = beta ? loom::detail::kernel_data(exec, beta->data()) : nullptr;
    const bool shared_beta = beta && beta->cols() == 1;
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const auto yd = loom::detail::kernel_data(exec, y.data());
    const size_type xs = x.stride();
    const size_type ys = y.stride();
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) {
            const D aj = a[shared_alpha ? 0 : j];
            const D bj = b ? b[shared_beta ? 0 : j] : D{1};
            D& out = yd[i * ys + j];
            // beta == 0 must not read y: it may hold NaN or be uninitialized.
            out = bj == D{} ? aj * xd[i * xs + j] : aj * xd[i * xs + j] + bj * out;
        },
        "loom::blas::axpby");
}

template <typename Exec, typename V>
void axpby_scalar(const Exec& exec, V alpha, const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::axpby";
    const auto a = loom::detail::kernel_value(exec, alpha);
    const auto b = loom::detail::kernel_value(exec, beta);
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const auto yd = loom::detail::kernel_data(exec, y.data());
    const size_type xs = x.stride();
    const size_type ys = y.stride();
    if (beta == V{0}) {
        loom::detail::parallel_for(
            exec, x.rows(), x.cols(),
            [=] LOOM_HOST_DEVICE(size_type i, size_type j) { yd[i * ys + j] = a * xd[i * xs + j]; },
            where);
    } else {
        loom::detail::parallel_for(
            exec, x.rows(), x.cols(),
            [=] LOOM_HOST_DEVICE(size_type i, size_type j) {
                yd[i * ys + j] = a * xd[i * xs + j] + b * yd[i * ys + j];
            },
            where);
    }
}

/// x *= alpha per column.
template <typename Exec, typename V>
void scal(const Exec& exec, const matrix::Dense<V>& alpha, matrix::Dense<V>& x)
{
    const auto a = loom::detail::kernel_data(exec, alpha.data());
    const bool shared_alpha = alpha.cols() == 1;
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const size_type xs = x.stride();
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) {
            xd[i * xs + j] *= a[shared_alpha ? 0 : j];
        },
        "loom::blas::scal");
}

template <typename Exec, typename V>
void scal_scalar(const Exec& exec, V alpha, matrix::Dense<V>& x)
{
    const auto a = loom::detail::kernel_value(exec, alpha);
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const size_type xs = x.stride();
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { xd[i * xs + j] *= a; },
        "loom::blas::scal");
}

template <typename Exec, typename V>
void copy(const Exec& exec, const matrix::Dense<V>& x, matrix::Dense<V>& y)
{
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const auto yd = loom::detail::kernel_data(exec, y.data());
    const size_type xs = x.stride();
    const size_type ys = y.stride();
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { yd[i * ys + j] = xd[i * xs + j]; },
        "loom::blas::copy");
}

template <typename Exec, typename V>
void fill(const Exec& exec, matrix::Dense<V>& x, V value)
{
    const auto v = loom::detail::kernel_value(exec, value);
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const size_type xs = x.stride();
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { xd[i * xs + j] = v; }, "loom::blas::fill");
}

/// Rounds x to the lower precision (a conversion of the kernel's value types).
template <typename Exec, typename V>
void pack(const Exec& exec, const matrix::Dense<V>& x, lower_precision_t<V>* packed)
{
    using S = loom::detail::kernel_type_t<Exec, lower_precision_t<V>>;
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const auto pd = loom::detail::kernel_data(exec, packed);
    const size_type xs = x.stride();
    const size_type cols = x.cols();
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { pd[i * cols + j] = S(xd[i * xs + j]); },
        "loom::blas::pack");
}

template <typename Exec, typename V>
void unpack(const Exec& exec, const lower_precision_t<V>* packed, matrix::Dense<V>& y)
{
    using D = loom::detail::kernel_type_t<Exec, V>;
    const auto pd = loom::detail::kernel_data(exec, packed);
    const auto yd = loom::detail::kernel_data(exec, y.data());
    const size_type ys = y.stride();
    const size_type cols = y.cols();
    loom::detail::parallel_for(
        exec, y.rows(), y.cols(),
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) { yd[i * ys + j] = D(pd[i * cols + j]); },
        "loom::blas::unpack");
}

}  // namespace loom::blas::unified
