// cuBLAS plumbing shared by the BLAS and LAPACK vendor paths: status checks, the executor's
// handle in host pointer mode, and type-overloaded wrappers of the routines Loom calls.
// Row-major operands are passed as the column-major transposes they are.
#pragma once

#include <climits>
#include <complex>
#include <string>

#include <cublas_v2.h>

#include "base/cuda/helpers.cuh"
#include "base/cuda/vendor.hpp"
#include "loom/blas/dense_blas.hpp"

namespace loom::blas::cublas_detail {

inline void check(cublasStatus_t status, const char* call, const char* where)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw CudaError(where, cuda::vendor::call_text(call) +
                                   " failed: " + LOOM_VENDOR(cublasGetStatusName)(status) + " (" +
                                   LOOM_VENDOR(cublasGetStatusString)(status) + ")");
    }
}

#define LOOM_CUBLAS_CHECK(call, where) ::loom::blas::cublas_detail::check((call), #call, where)

/// The executor's handle (bound to its stream), in host pointer mode for alpha and beta.
inline cublasHandle_t handle(const CudaExecutor& exec, const char* where)
{
    auto h = static_cast<cublasHandle_t>(exec.cublas_handle());
    LOOM_CUBLAS_CHECK(LOOM_VENDOR(cublasSetPointerMode)(h, CUBLAS_POINTER_MODE_HOST), where);
    return h;
}

template <typename V>
struct cuda_type {
    using type = V;
};
template <>
struct cuda_type<std::complex<float>> {
    using type = cuComplex;
};
template <>
struct cuda_type<std::complex<double>> {
    using type = cuDoubleComplex;
};
template <typename V>
using cuda_type_t = typename cuda_type<V>::type;

template <typename V>
auto* cast(V* p)
{
    return reinterpret_cast<cuda_type_t<V>*>(p);
}
template <typename V>
const auto* cast(const V* p)
{
    return reinterpret_cast<const cuda_type_t<V>*>(p);
}

inline bool fits(size_type value) { return value >= 0 && value <= INT_MAX; }

template <typename V>
bool fits(const matrix::Dense<V>& A)
{
    return fits(A.rows()) && fits(A.cols()) && fits(A.stride());
}

/// Leading dimension of a row-major matrix seen column-major (at least 1).
template <typename V>
int ld(const matrix::Dense<V>& A)
{
    return static_cast<int>(A.stride() > 0 ? A.stride() : 1);
}

inline cublasOperation_t operation(Op op)
{
    switch (op) {
    case Op::transpose: return CUBLAS_OP_T;
    case Op::conj_transpose: return CUBLAS_OP_C;
    default: return CUBLAS_OP_N;
    }
}

/// Side and uplo of the column-major transpose of a row-major triangular problem.
inline cublasSideMode_t flipped(Side side)
{
    return side == Side::left ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
}
inline cublasFillMode_t flipped(Uplo uplo)
{
    return uplo == Uplo::lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}
inline cublasDiagType_t diag_type(Diag diag)
{
    return diag == Diag::unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}

#define LOOM_CUBLAS_OVERLOADS(T, p)                                                                \
    inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,       \
                               int m, int n, int k, const T* alpha, const T* A, int lda,           \
                               const T* B, int ldb, const T* beta, T* C, int ldc)                  \
    {                                                                                              \
        return LOOM_VENDOR(cublas##p##gemm)(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,    \
                                            ldc);                                                  \
    }                                                                                              \
    inline cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t t, int m, int n,                \
                               const T* alpha, const T* A, int lda, const T* x, int incx,          \
                               const T* beta, T* y, int incy)                                      \
    {                                                                                              \
        return LOOM_VENDOR(cublas##p##gemv)(h, t, m, n, alpha, A, lda, x, incx, beta, y, incy);    \
    }                                                                                              \
    inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u,           \
                               cublasOperation_t t, cublasDiagType_t d, int m, int n,              \
                               const T* alpha, const T* A, int lda, T* B, int ldb)                 \
    {                                                                                              \
        return LOOM_VENDOR(cublas##p##trsm)(h, s, u, t, d, m, n, alpha, A, lda, B, ldb);           \
    }                                                                                              \
    inline cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u,           \
                               cublasOperation_t t, cublasDiagType_t d, int m, int n,              \
                               const T* alpha, const T* A, int lda, T* B, int ldb)                 \
    {                                                                                              \
        /* cuBLAS trmm writes to C; C = B is its documented in-place form */                       \
        return LOOM_VENDOR(cublas##p##trmm)(h, s, u, t, d, m, n, alpha, A, lda, B, ldb, B, ldb);   \
    }                                                                                              \
    inline cublasStatus_t geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,       \
                               int m, int n, const T* alpha, const T* A, int lda, const T* beta,   \
                               const T* B, int ldb, T* C, int ldc)                                 \
    {                                                                                              \
        return LOOM_VENDOR(cublas##p##geam)(h, ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc); \
    }
LOOM_CUBLAS_OVERLOADS(float, S)
LOOM_CUBLAS_OVERLOADS(double, D)
LOOM_CUBLAS_OVERLOADS(cuComplex, C)
LOOM_CUBLAS_OVERLOADS(cuDoubleComplex, Z)
#undef LOOM_CUBLAS_OVERLOADS

}  // namespace loom::blas::cublas_detail
