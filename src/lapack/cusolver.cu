// Dense LAPACK through cuSOLVER. getrf pivots rows of a column-major matrix, while the
// column-major view of a row-major A is A^T: the matrix is transposed into a column-major
// workspace (cuBLAS geam), factored, and transposed back. trtri needs no copy: the inverse of
// the view A^T is (A^{-1})^T, the same memory with the other triangle.
#include <cstdint>
#include <string>
#include <vector>

#include <cusolverDn.h>

#include "base/cuda/cusolver.cuh"
#include "base/instantiate.hpp"
#include "blas/level3/cublas.cuh"
#include "lapack/kernels.hpp"
#include "loom/base/array.hpp"

namespace loom::lapack::cusolver {

/// cuSOLVER's getrf by value type (named, not internal: a build with fewer value types
/// leaves some unused).
namespace api {
#define LOOM_CUSOLVER_GETRF(T, p)                                                         \
    inline cusolverStatus_t getrf_buffer_size(cusolverDnHandle_t h, int n, T* A, int lda, \
                                              int* lwork)                                 \
    {                                                                                     \
        return LOOM_VENDOR(cusolverDn##p##getrf_bufferSize)(h, n, n, A, lda, lwork);      \
    }                                                                                     \
    inline cusolverStatus_t getrf(cusolverDnHandle_t h, int n, T* A, int lda, T* work,    \
                                  int* pivots, int* info)                                 \
    {                                                                                     \
        return LOOM_VENDOR(cusolverDn##p##getrf)(h, n, n, A, lda, work, pivots, info);    \
    }
LOOM_CUSOLVER_GETRF(float, S)
LOOM_CUSOLVER_GETRF(double, D)
LOOM_CUSOLVER_GETRF(cuComplex, C)
LOOM_CUSOLVER_GETRF(cuDoubleComplex, Z)
#undef LOOM_CUSOLVER_GETRF
}  // namespace api

namespace {

using namespace loom::blas::cublas_detail;
using loom::cuda::stream_of;

using loom::cuda::SolverHandle;

#define LOOM_CUSOLVER_CHECK(call, where) loom::cuda::check_cusolver((call), #call, where)

/// LAPACK's 1-based pivots and info to Loom's 0-based ones.
__global__ void to_zero_based_kernel(int32* pivots, int n, const int* status, int32* info)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        pivots[i] -= 1;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && *status > 0 && *info < 0) *info = *status - 1;
}

}  // namespace

template <typename V>
bool getrf(const CudaExecutor& exec, matrix::Dense<V>& A, int32* pivots, int32* info)
{
    constexpr const char* where = "loom::lapack::getrf";
    const size_type n = A.rows();
    if (!fits(n) || !fits(A.stride()) || !fits(n * n)) return false;
    const int order = static_cast<int>(n);
    const auto device = exec.shared_from_this();
    Array<V> columns(device, n * n);
    const V one{1};
    const V zero{};
    auto* cm = cast(columns.data());
    // columns = (A^T)^T: geam with C = B is cuBLAS's in-place form, B unused for beta = 0.
    const auto blas = handle(exec, where);
    LOOM_CUBLAS_CHECK(geam(blas, CUBLAS_OP_T, CUBLAS_OP_N, order, order, cast(&one), cast(A.data()),
                           ld(A), cast(&zero), cm, order, cm, order),
                      where);
    Array<int> status(device, 1);
    {
        const SolverHandle solver(exec, where);
        int lwork = 0;
        LOOM_CUSOLVER_CHECK(api::getrf_buffer_size(solver.get(), order, cm, order, &lwork), where);
        Array<V> work(device, std::max(lwork, 1));
        LOOM_CUSOLVER_CHECK(
            api::getrf(solver.get(), order, cm, order, cast(work.data()), pivots, status.data()),
            where);
    }
    LOOM_CUBLAS_CHECK(geam(blas, CUBLAS_OP_T, CUBLAS_OP_N, order, order, cast(&one), cm, order,
                           cast(&zero), cast(A.data()), ld(A), cast(A.data()), ld(A)),
                      where);
    to_zero_based_kernel<<<static_cast<unsigned>(std::min<size_type>((n + 255) / 256, 1024)), 256,
                           0, stream_of(exec)>>>(pivots, order, status.data(), info);
    loom::cuda::check_launch(where);
    return true;
}

template <typename V>
bool trtri(const CudaExecutor& exec, blas::Uplo uplo, blas::Diag diag, matrix::Dense<V>& A)
{
    constexpr const char* where = "loom::lapack::trtri";
    // cuSOLVER writes ones on a unit diagonal, which LAPACK's trtri leaves as it was.
    if (diag == blas::Diag::unit) return false;
    if (!fits(A.rows()) || !fits(A.stride())) return false;
    const auto device = exec.shared_from_this();
    const auto fill = uplo == blas::Uplo::lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    const auto unit = diag == blas::Diag::unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    const SolverHandle solver(exec, where);
    std::size_t device_bytes = 0;
    std::size_t host_bytes = 0;
    LOOM_CUSOLVER_CHECK(LOOM_VENDOR(cusolverDnXtrtri_bufferSize)(
                            solver.get(), fill, unit, A.rows(), loom::cuda::cuda_data_type<V>(),
                            A.data(), ld(A), &device_bytes, &host_bytes),
                        where);
    Array<unsigned char> device_work(
        device, static_cast<size_type>(std::max<std::size_t>(device_bytes, 1)));
    std::vector<unsigned char> host_work(std::max<std::size_t>(host_bytes, 1));
    Array<int> status(device, 1);
    LOOM_CUSOLVER_CHECK(LOOM_VENDOR(cusolverDnXtrtri)(solver.get(), fill, unit, A.rows(),
                                                      loom::cuda::cuda_data_type<V>(), A.data(),
                                                      ld(A), device_work.data(), device_bytes,
                                                      host_work.data(), host_bytes, status.data()),
                        where);
    // The host workspace must outlive the queued work.
    exec.synchronize();
    return true;
}

#define LOOM_INSTANTIATE(V)                                                      \
    template bool getrf(const CudaExecutor&, matrix::Dense<V>&, int32*, int32*); \
    template bool trtri(const CudaExecutor&, blas::Uplo, blas::Diag, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::lapack::cusolver
