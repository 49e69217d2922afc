// Launch::vendor on CUDA: cuBLAS's batched gemm, trsm, LU and QR, cuSOLVER's batched
// Cholesky. gemm needs no copy (C^T = op(B)^T op(A)^T of the column-major views);
// getrfBatched pivots rows of column-major matrices, so the row-major batch is transposed in
// place around it, and its 1-based pivots made 0-based; geqrfBatched works on a column-major
// copy; potrfBatched needs no copy (the column-major view of a Hermitian A is conj(A), whose
// factor in the other triangle is the wanted one).
#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>

#include <cuComplex.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#include "base/cuda/cusolver.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "batched/front/kernels.hpp"
#include "blas/level3/cublas.cuh"
#include "loom/base/array.hpp"

namespace loom::batched::cublas {
namespace {

// The cuBLAS plumbing of the BLAS vendor path: device types and casts, int extents, status
// checks, the executor's handle, operations.
using ::loom::blas::cublas_detail::cast;
using ::loom::blas::cublas_detail::cuda_type_t;
using ::loom::blas::cublas_detail::fits;
using ::loom::blas::cublas_detail::handle;
using ::loom::blas::cublas_detail::operation;

// The type-generic names of cuBLAS's batched gemm and LU.
#define LOOM_CUBLAS_GENERIC(name, S, D, C, Z)           \
    template <typename... Args>                         \
    cublasStatus_t name(float*, Args... args)           \
    {                                                   \
        return LOOM_VENDOR(S)(args...);                 \
    }                                                   \
    template <typename... Args>                         \
    cublasStatus_t name(double*, Args... args)          \
    {                                                   \
        return LOOM_VENDOR(D)(args...);                 \
    }                                                   \
    template <typename... Args>                         \
    cublasStatus_t name(cuComplex*, Args... args)       \
    {                                                   \
        return LOOM_VENDOR(C)(args...);                 \
    }                                                   \
    template <typename... Args>                         \
    cublasStatus_t name(cuDoubleComplex*, Args... args) \
    {                                                   \
        return LOOM_VENDOR(Z)(args...);                 \
    }
LOOM_CUBLAS_GENERIC(gemm_strided_batched_of, cublasSgemmStridedBatched, cublasDgemmStridedBatched,
                    cublasCgemmStridedBatched, cublasZgemmStridedBatched)
LOOM_CUBLAS_GENERIC(trsm_batched_of, cublasStrsmBatched, cublasDtrsmBatched, cublasCtrsmBatched,
                    cublasZtrsmBatched)
LOOM_CUBLAS_GENERIC(getrf_batched_of, cublasSgetrfBatched, cublasDgetrfBatched, cublasCgetrfBatched,
                    cublasZgetrfBatched)
LOOM_CUBLAS_GENERIC(geqrf_batched_of, cublasSgeqrfBatched, cublasDgeqrfBatched, cublasCgeqrfBatched,
                    cublasZgeqrfBatched)
#undef LOOM_CUBLAS_GENERIC

// cuSOLVER's batched Cholesky by value type (templates: a build without some value types
// leaves them uninstantiated, not unused).
#define LOOM_CUSOLVER_GENERIC(name, S, D, C, Z)           \
    template <typename... Args>                           \
    cusolverStatus_t name(float*, Args... args)           \
    {                                                     \
        return LOOM_VENDOR(S)(args...);                   \
    }                                                     \
    template <typename... Args>                           \
    cusolverStatus_t name(double*, Args... args)          \
    {                                                     \
        return LOOM_VENDOR(D)(args...);                   \
    }                                                     \
    template <typename... Args>                           \
    cusolverStatus_t name(cuComplex*, Args... args)       \
    {                                                     \
        return LOOM_VENDOR(C)(args...);                   \
    }                                                     \
    template <typename... Args>                           \
    cusolverStatus_t name(cuDoubleComplex*, Args... args) \
    {                                                     \
        return LOOM_VENDOR(Z)(args...);                   \
    }
LOOM_CUSOLVER_GENERIC(potrf_batched_of, cusolverDnSpotrfBatched, cusolverDnDpotrfBatched,
                      cusolverDnCpotrfBatched, cusolverDnZpotrfBatched)
#undef LOOM_CUSOLVER_GENERIC

template <typename T, typename... Args>
cusolverStatus_t potrf_batched(cusolverDnHandle_t h, Args... args)
{
    return potrf_batched_of(static_cast<T*>(nullptr), h, args...);
}

template <typename T, typename... Args>
cublasStatus_t gemm_strided_batched(cublasHandle_t h, Args... args)
{
    return gemm_strided_batched_of(static_cast<T*>(nullptr), h, args...);
}
template <typename T, typename... Args>
cublasStatus_t trsm_batched(cublasHandle_t h, Args... args)
{
    return trsm_batched_of(static_cast<T*>(nullptr), h, args...);
}
template <typename T, typename... Args>
cublasStatus_t getrf_batched(cublasHandle_t h, Args... args)
{
    return getrf_batched_of(static_cast<T*>(nullptr), h, args...);
}
template <typename T, typename... Args>
cublasStatus_t geqrf_batched(cublasHandle_t h, Args... args)
{
    return geqrf_batched_of(static_cast<T*>(nullptr), h, args...);
}

using namespace loom::cuda;

constexpr int block = 256;

/// Swaps (i, j) with (j, i) of every square matrix: one thread per pair above the diagonal.
template <typename D>
__global__ void __launch_bounds__(block)
    transpose_kernel(D* data, long long count, int n, long long stride, long long batch_stride)
{
    const long long pairs = static_cast<long long>(n) * (n - 1) / 2;
    for (long long g = static_cast<long long>(blockIdx.x) * block + threadIdx.x; g < count * pairs;
         g += static_cast<long long>(gridDim.x) * block) {
        const long long b = g / pairs;
        long long p = g - b * pairs;
        // Pair p is (i, j) with i < j, row by row: row i holds n - 1 - i pairs.
        int i = 0;
        while (p >= n - 1 - i) {
            p -= n - 1 - i;
            ++i;
        }
        const int j = i + 1 + static_cast<int>(p);
        D* M = data + b * batch_stride;
        const D upper = M[i * stride + j];
        M[i * stride + j] = M[j * stride + i];
        M[j * stride + i] = upper;
    }
}

template <typename D>
__global__ void __launch_bounds__(block)
    pointers_kernel(D* data, long long count, long long batch_stride, D** pointers)
{
    for (long long b = static_cast<long long>(blockIdx.x) * block + threadIdx.x; b < count;
         b += static_cast<long long>(gridDim.x) * block) {
        pointers[b] = data + b * batch_stride;
    }
}

__global__ void __launch_bounds__(block) zero_based_kernel(int32* pivots, long long count)
{
    for (long long i = static_cast<long long>(blockIdx.x) * block + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * block) {
        pivots[i] -= 1;
    }
}

/// dst_b(j, i) = src_b(i, j) for rows x cols matrices src (dst: cols x rows), both row-major.
template <typename D>
__global__ void __launch_bounds__(block)
    copy_transposed_kernel(const D* src, long long count, int rows, int cols, long long src_stride,
                           long long src_batch_stride, D* dst, long long dst_stride,
                           long long dst_batch_stride)
{
    const long long entries = static_cast<long long>(rows) * cols;
    for (long long g = static_cast<long long>(blockIdx.x) * block + threadIdx.x;
         g < count * entries; g += static_cast<long long>(gridDim.x) * block) {
        const long long b = g / entries;
        const long long e = g - b * entries;
        const long long i = e / cols;
        const long long j = e - i * cols;
        dst[b * dst_batch_stride + j * dst_stride + i] =
            src[b * src_batch_stride + i * src_stride + j];
    }
}

template <typename D>
void copy_transposed(const CudaExecutor& exec, const D* src, long long count, int rows, int cols,
                     long long src_stride, long long src_batch_stride, D* dst, long long dst_stride,
                     long long dst_batch_stride, const char* where)
{
    const long long work = count * rows * cols;
    if (work == 0) return;
    copy_transposed_kernel<<<grid_for(exec, work, block, 16), block, 0, stream_of(exec)>>>(
        src, count, rows, cols, src_stride, src_batch_stride, dst, dst_stride, dst_batch_stride);
    check_launch(where);
}

template <typename V>
void transpose_all(const CudaExecutor& exec, BatchDense<V>& A)
{
    const long long pairs = A.rows() * (A.rows() - 1) / 2 * A.batch_count();
    if (pairs == 0) return;
    transpose_kernel<<<grid_for(exec, pairs, block, 16), block, 0, stream_of(exec)>>>(
        loom::cuda::as_device(A.data()), A.batch_count(), static_cast<int>(A.rows()), A.stride(),
        A.batch_stride());
    check_launch("loom::batched::getrf");
}

/// Leading dimension of a row-major batch seen column-major (at least 1).
template <typename V>
int leading(const BatchDense<V>& M)
{
    return static_cast<int>(M.stride() > 0 ? M.stride() : 1);
}

/// The device array of the matrices' addresses that cuBLAS's pointer-array routines take.
template <typename C>
class PointerList {
public:
    PointerList(const CudaExecutor& exec, C* data, size_type count, size_type batch_stride,
                const char* where)
        // As bytes: Array has no pointer instantiations.
        : bytes_(exec.shared_from_this(), static_cast<size_type>(sizeof(C*)) * count)
    {
        pointers_kernel<<<grid_for(exec, count, block, 16), block, 0, stream_of(exec)>>>(
            data, count, batch_stride, get());
        check_launch(where);
    }
    C** get() const { return reinterpret_cast<C**>(const_cast<unsigned char*>(bytes_.data())); }

private:
    Array<unsigned char> bytes_;
};

/// cublasXgetrfBatched on the batch as stored (a column-major library factors A^T).
template <typename V>
void run_getrf_batched(const CudaExecutor& exec, BatchDense<V>& A, int32* pivots, int32* info,
                       const char* where)
{
    using C = cuda_type_t<V>;
    const auto count = A.batch_count();
    const PointerList<C> list(exec, cast(A.data()), count, A.batch_stride(), where);
    LOOM_CUBLAS_CHECK(getrf_batched<C>(handle(exec, where), static_cast<int>(A.rows()), list.get(),
                                       leading(A), pivots, info, static_cast<int>(count)),
                      where);
}

/// cublasXgeqrfBatched on count column-major m x n matrices (leading dimension lda) starting
/// batch_stride apart, tau_b at tau + b * tau_stride (min(m, n) contiguous entries).
template <typename V>
void run_geqrf_batched(const CudaExecutor& exec, V* A, int m, int n, int lda, size_type count,
                       size_type batch_stride, V* tau, size_type tau_stride, const char* where)
{
    using C = cuda_type_t<V>;
    const PointerList<C> a(exec, cast(A), count, batch_stride, where);
    const PointerList<C> t(exec, cast(tau), count, tau_stride, where);
    int info = 0;
    LOOM_CUBLAS_CHECK(geqrf_batched<C>(handle(exec, where), m, n, a.get(), lda, t.get(), &info,
                                       static_cast<int>(count)),
                      where);
    if (info != 0) {
        throw NotSupported(where, "cublasXgeqrfBatched rejected argument " + std::to_string(-info) +
                                      " (m = " + std::to_string(m) + ", n = " + std::to_string(n) +
                                      ")");
    }
}

}  // namespace

template <typename V>
bool gemm(const CudaExecutor& exec, Op op_a, Op op_b, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& B, V beta, BatchDense<V>& C)
{
    constexpr const char* where = "loom::batched::gemm";
    const auto count = C.batch_count();
    if (count > INT_MAX || !fits(C.rows()) || !fits(C.cols()) || !fits(A.stride()) ||
        !fits(B.stride()) || !fits(C.stride())) {
        return false;
    }
    const int k = static_cast<int>(op_a == Op::none ? A.cols() : A.rows());
    LOOM_CUBLAS_CHECK(
        gemm_strided_batched<cuda_type_t<V>>(
            handle(exec, where), operation(op_b), operation(op_a), static_cast<int>(C.cols()),
            static_cast<int>(C.rows()), k, cast(&alpha), cast(B.data()), leading(B),
            B.batch_stride(), cast(A.data()), leading(A), A.batch_stride(), cast(&beta),
            cast(C.data()), leading(C), C.batch_stride(), static_cast<int>(count)),
        where);
    return true;
}

template <typename V>
bool trsm(const CudaExecutor& exec, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag,
          V alpha, const BatchDense<V>& A, BatchDense<V>& B)
{
    constexpr const char* where = "loom::batched::trsm";
    const auto count = B.batch_count();
    if (count > INT_MAX || !fits(B.rows()) || !fits(B.cols()) || !fits(A.stride()) ||
        !fits(B.stride())) {
        return false;
    }
    using C = cuda_type_t<V>;
    // Row-major op(A) X = alpha B is column-major X^T op(A)^T = alpha B^T, with A^T's
    // triangle the other one: side and triangle flip, op stays.
    const PointerList<C> a(exec, const_cast<C*>(cast(A.data())), count, A.batch_stride(), where);
    const PointerList<C> b(exec, cast(B.data()), count, B.batch_stride(), where);
    LOOM_CUBLAS_CHECK(
        trsm_batched<C>(
            handle(exec, where), side == blas::Side::left ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT,
            uplo == blas::Uplo::lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
            operation(op), diag == blas::Diag::unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT,
            static_cast<int>(B.cols()), static_cast<int>(B.rows()), cast(&alpha),
            const_cast<const C* const*>(a.get()), leading(A), b.get(), leading(B),
            static_cast<int>(count)),
        where);
    return true;
}

template <typename V>
bool getrf(const CudaExecutor& exec, BatchDense<V>& A, int32* pivots, int32* info)
{
    constexpr const char* where = "loom::batched::getrf";
    if (A.batch_count() > INT_MAX || !fits(A.rows()) || !fits(A.stride())) return false;
    transpose_all(exec, A);
    run_getrf_batched(exec, A, pivots, info, where);
    transpose_all(exec, A);
    const long long entries = A.batch_count() * A.rows();
    zero_based_kernel<<<grid_for(exec, entries, block, 16), block, 0, stream_of(exec)>>>(pivots,
                                                                                         entries);
    check_launch(where);
    return true;
}

template <typename V>
void getrf_raw(const CudaExecutor& exec, BatchDense<V>& A, int32* pivots, int32* info)
{
    constexpr const char* where = "loom::bench::batched (cuBLAS getrfBatched)";
    if (A.batch_count() > INT_MAX || !fits(A.rows()) || !fits(A.stride())) {
        throw NotSupported(where, "the batch exceeds cuBLAS's 32-bit counts");
    }
    run_getrf_batched(exec, A, pivots, info, where);
}

template <typename V>
bool potrf(const CudaExecutor& exec, blas::Uplo uplo, BatchDense<V>& A, int32* info)
{
    constexpr const char* where = "loom::batched::potrf";
    const auto count = A.batch_count();
    if (count > INT_MAX || !fits(A.rows()) || !fits(A.stride())) return false;
    using C = cuda_type_t<V>;
    const PointerList<C> list(exec, cast(A.data()), count, A.batch_stride(), where);
    // The column-major view is A^T = conj(A) = conj(L) L^T: its upper factor U = L^T is the
    // wanted lower factor, read row-major (and the other way around for Uplo::upper).
    const SolverHandle solver(exec, where);
    loom::cuda::check_cusolver(
        potrf_batched<C>(
            solver.get(),
            uplo == blas::Uplo::lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
            static_cast<int>(A.rows()), list.get(), leading(A), info, static_cast<int>(count)),
        "cusolverDnXpotrfBatched", where);
    return true;
}

template <typename V>
bool qr(const CudaExecutor& exec, BatchDense<V>& A, BatchDense<V>& tau)
{
    constexpr const char* where = "loom::batched::qr";
    const auto count = A.batch_count();
    const auto m = A.rows();
    const auto n = A.cols();
    // Wide matrices (m < n) stay with the native kernels: cuBLAS documents geqrfBatched for
    // the tall and square ones that least-squares problems give.
    if (count > INT_MAX || !fits(m) || !fits(n) || m < n || (tau.rows() > 1 && tau.stride() != 1)) {
        return false;
    }
    // Column-major m x n copies: matrix b at work + b m n, entry (i, j) at i + j m.
    Array<V> work(exec.shared_from_this(), count * m * n);
    auto* D = loom::cuda::as_device(A.data());
    auto* W = loom::cuda::as_device(work.data());
    copy_transposed(exec, D, count, static_cast<int>(m), static_cast<int>(n), A.stride(),
                    A.batch_stride(), W, m, m * n, where);
    run_geqrf_batched(exec, work.data(), static_cast<int>(m), static_cast<int>(n),
                      static_cast<int>(std::max<size_type>(m, 1)), count, m * n, tau.data(),
                      tau.batch_stride(), where);
    copy_transposed(exec, W, count, static_cast<int>(n), static_cast<int>(m), m, m * n, D,
                    A.stride(), A.batch_stride(), where);
    return true;
}

template <typename V>
void qr_raw(const CudaExecutor& exec, BatchDense<V>& A, BatchDense<V>& tau)
{
    constexpr const char* where = "loom::bench::batched (cuBLAS geqrfBatched)";
    const auto count = A.batch_count();
    if (count > INT_MAX || !fits(A.rows()) || !fits(A.cols()) || !fits(A.stride()) ||
        (tau.rows() > 1 && tau.stride() != 1) || tau.rows() < std::min(A.rows(), A.cols())) {
        throw NotSupported(where, "needs 32-bit counts and a contiguous tau per matrix");
    }
    // The column-major view of the row-major m x n batch: n x m matrices.
    run_geqrf_batched(exec, A.data(), static_cast<int>(A.cols()), static_cast<int>(A.rows()),
                      leading(A), count, A.batch_stride(), tau.data(), tau.batch_stride(), where);
}

#define LOOM_INSTANTIATE(V)                                                                        \
    template bool gemm(const CudaExecutor&, Op, Op, V, const BatchDense<V>&, const BatchDense<V>&, \
                       V, BatchDense<V>&);                                                         \
    template bool trsm(const CudaExecutor&, blas::Side, blas::Uplo, Op, blas::Diag, V,             \
                       const BatchDense<V>&, BatchDense<V>&);                                      \
    template bool getrf(const CudaExecutor&, BatchDense<V>&, int32*, int32*);                      \
    template void getrf_raw(const CudaExecutor&, BatchDense<V>&, int32*, int32*);                  \
    template bool potrf(const CudaExecutor&, blas::Uplo, BatchDense<V>&, int32*);                  \
    template bool qr(const CudaExecutor&, BatchDense<V>&, BatchDense<V>&);                         \
    template void qr_raw(const CudaExecutor&, BatchDense<V>&, BatchDense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::batched::cublas
