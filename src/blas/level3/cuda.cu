// CUDA level-2/3 BLAS on strided views. gemm: 64 x 64 tiles of C, 256 threads with a 4 x 4
// register block each, operands staged through shared memory with loads that follow whichever
// stride is 1 (so transposed operands load coalesced too). Triangular kernels are blocked: a
// 32 x 32 diagonal block solved or multiplied in registers, one thread per column of B, then
// the tiled gemm for the rest. gemm_dot: one block per (entry of C, chunk of rows), partials
// combined in a fixed order (deterministic, no atomics).
#include <algorithm>

#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "blas/level3/cuda_kernels.cuh"
#include "blas/level3/kernels.hpp"

namespace loom::blas::cuda {

using detail::Strided;
using detail::Triangle;
using namespace loom::cuda;
using namespace loom::blas::cuda_kernels;

using loom::cuda::as_device;

/// A view of V as the device type the kernels compute in.
template <typename V>
Strided<device_type_t<V>> as_device(Strided<V> view)
{
    return view.template as<device_type_t<V>>();
}
template <typename V>
Triangle<device_type_t<V>> as_device(Triangle<V> T)
{
    return {as_device(T.view), T.lower, T.unit};
}

template <typename V>
void gemm(const CudaExecutor& exec, V alpha, Strided<const V> A, Strided<const V> B, V beta,
          Strided<V> C)
{
    launch_gemm(exec, as_device(alpha), as_device(A), as_device(B), as_device(beta), as_device(C));
}

template <typename V>
void gemv(const CudaExecutor& exec, V alpha, Strided<const V> A, Strided<const V> x, V beta,
          Strided<V> y)
{
    launch_gemv(exec, as_device(alpha), as_device(A), as_device(x), as_device(beta), as_device(y));
}

template <typename V>
void trsm(const CudaExecutor& exec, Triangle<const V> T, V alpha, Strided<V> B)
{
    launch_trsm(exec, as_device(T), as_device(alpha), as_device(B));
}

template <typename V>
void trmm(const CudaExecutor& exec, Triangle<const V> T, V alpha, Strided<V> B)
{
    launch_trmm(exec, as_device(T), as_device(alpha), as_device(B));
}

template <typename V>
void gemm_dot(const CudaExecutor& exec, V alpha, Strided<const V> At, Strided<const V> B, V beta,
              Strided<V> C)
{
    launch_gemm_dot(exec, as_device(alpha), as_device(At), as_device(B), as_device(beta),
                    as_device(C));
}

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_LEVEL3_KERNELS, CudaExecutor)

}  // namespace loom::blas::cuda
