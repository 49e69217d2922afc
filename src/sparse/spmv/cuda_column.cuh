// One column of x and y as an SpMV kernel sees them, shared by the CUDA SpMV families
// (CSR/COO/ELL/SELL-P in spmv/cuda.cu, the stencil in spmv_stencil/cuda.cu): the same
// operands and the same y = alpha * sum + beta * y rule (y not read when beta is zero).
#pragma once

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "loom/matrix/dense.hpp"

namespace loom::sparse::cuda {

/// One column of x and y, and the coefficients of y = alpha * op(A) x + beta * y.
template <typename D>
struct Column {
    const D* x;
    long long x_stride;
    D* y;
    long long y_stride;
    D alpha;
    D beta;
    bool beta_is_zero;

    __device__ D x_at(long long i) const { return loom::cuda::load_cached(x + i * x_stride); }

    /// y(i) = alpha * sum + beta * y(i); y(i) is not read when beta is zero.
    __device__ void store(long long i, const D& sum) const
    {
        D* out = y + i * y_stride;
        *out = beta_is_zero ? loom::cuda::mul(alpha, sum)
                            : loom::cuda::mul(alpha, sum) + loom::cuda::mul(beta, *out);
    }

    /// y(i) as store() reads it (zero when beta is zero: y not read). A thread storing several
    /// rows loads them all first: the compiler keeps a load of y after an earlier store to y
    /// (they may alias), so store() after store() costs a round trip each.
    __device__ D previous(long long i) const { return beta_is_zero ? D{} : y[i * y_stride]; }

    /// y(i) = alpha * sum + beta * old, old = previous(i).
    __device__ void store_over(long long i, const D& sum, const D& old) const
    {
        y[i * y_stride] = loom::cuda::mul(alpha, sum) + loom::cuda::mul(beta, old);
    }

    /// y(i) += alpha * sum, for a row finished before (load_balanced's fix-up).
    __device__ void add(long long i, const D& sum) const
    {
        y[i * y_stride] += loom::cuda::mul(alpha, sum);
    }

    /// y(i) += alpha * value, racing with other threads.
    __device__ void scatter(long long i, const D& value) const
    {
        loom::cuda::atomic_add(y + i * y_stride, loom::cuda::mul(alpha, value));
    }
};

/// Column j of x and y.
template <typename V>
Column<loom::cuda::device_type_t<V>> column(V alpha, const matrix::Dense<V>& x, V beta,
                                            matrix::Dense<V>& y, size_type j)
{
    using loom::cuda::as_device;
    return {
        as_device(x.data()) + j, x.stride(),  as_device(y.data()) + j, y.stride(), as_device(alpha),
        as_device(beta),         beta == V{0}};
}

}  // namespace loom::sparse::cuda
