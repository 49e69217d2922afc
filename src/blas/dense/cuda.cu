// CUDA BLAS on Dense. Everything is queued on the executor's stream and results stay on the
// device. Reductions are deterministic (blas/dense/cuda_column_sums.cuh).
#include "base/cuda/helpers.cuh"
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "blas/dense/cuda_column_sums.cuh"
#include "blas/dense/kernels.hpp"
#include "blas/dense/unified.hpp"

namespace loom::blas::cuda {

template <typename V>
void dot(const CudaExecutor& exec, const matrix::Dense<V>& x, const matrix::Dense<V>& y,
         matrix::Dense<V>& result, bool conjugate)
{
    using D = device_type_t<V>;
    constexpr const char* where = "loom::blas::dot";
    const auto xd = as_device(x.data());
    const auto yd = as_device(y.data());
    const auto out = as_device(result.data());
    if (conjugate) {
        column_sums<D>(exec, x.rows(), x.cols(),
                       BinaryTerm<D, DotProduct<true>>{xd, x.stride(), yd, y.stride(), {}}, out,
                       Identity{}, where);
    } else {
        column_sums<D>(exec, x.rows(), x.cols(),
                       BinaryTerm<D, DotProduct<false>>{xd, x.stride(), yd, y.stride(), {}}, out,
                       Identity{}, where);
    }
}

template <typename V>
void nrm2(const CudaExecutor& exec, const matrix::Dense<V>& x,
          matrix::Dense<remove_complex_t<V>>& result)
{
    using D = device_type_t<V>;
    using R = remove_complex_t<V>;
    column_sums<R>(exec, x.rows(), x.cols(),
                   UnaryTerm<D, SquaredNorm>{as_device(x.data()), x.stride(), {}}, result.data(),
                   SquareRoot{}, "loom::blas::nrm2");
}

// The element-wise kernels: written once with OpenMP's (unified.hpp).
template <typename V>
void axpy_quotient(const CudaExecutor& exec, const matrix::Dense<V>& num,
                   const matrix::Dense<V>& den, V sign, const matrix::Dense<V>& x,
                   matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    const auto n = as_device(num.data());
    const auto d = as_device(den.data());
    const bool shared_num = num.cols() == 1;
    const bool shared_den = den.cols() == 1;
    const D s = as_device(sign);
    const auto xd = as_device(x.data());
    const auto yd = as_device(y.data());
    const long long xs = x.stride();
    const long long ys = y.stride();
    // The quotient per element costs nothing next to the memory traffic and needs no extra
    // kernel to form it first.
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] __device__(long long i, long long j) {
            const D q = guarded_quotient(n[shared_num ? 0 : j], d[shared_den ? 0 : j]);
            yd[i * ys + j] += s * q * xd[i * xs + j];
        },
        "loom::blas::axpy_quotient");
}

}  // namespace loom::blas::cuda

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_DENSE_BACKEND, cuda, unified, CudaExecutor)
}  // namespace loom::blas
