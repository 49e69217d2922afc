// cuSOLVER's batched sparse QR (cusolverSp<t>csrqrsvBatched) over a shared-pattern batch: the
// vendor peer of `loom bench batched-solve`. CUDA 13 still ships it, marked deprecated (no
// successor solves a batch of sparse systems), hence DISABLE_CUSOLVER_DEPRECATED.
#define DISABLE_CUSOLVER_DEPRECATED
#include <cusolverSp.h>
#include <cusparse.h>

#include <algorithm>
#include <complex>
#include <type_traits>

#include "base/cuda/cusolver.cuh"
#include "base/cuda/cusparse.hpp"
#include "base/instantiate.hpp"
#include "batched/sparse/kernels.hpp"

namespace loom::batched::bsparse::cuda {
namespace {
constexpr const char* qr_where = "loom::batched::solve_vendor_qr";
}  // namespace

// One name per value type for cuSOLVER's four typed entry points (in a named namespace: those
// of the value types not built stay unreferenced without a warning).
namespace qr_typed {
#define LOOM_QR_FOR_TYPE(V, Cu, t)                                                                 \
    cusolverStatus_t qr_buffer(cusolverSpHandle_t h, int n, int nnz, cusparseMatDescr_t d,         \
                               const V* values, const int* ptrs, const int* cols, int batch,       \
                               csrqrInfo_t info, size_t* internal, size_t* work)                   \
    {                                                                                              \
        return LOOM_VENDOR(cusolverSp##t##csrqrBufferInfoBatched)(                                 \
            h, n, n, nnz, d, reinterpret_cast<const Cu*>(values), ptrs, cols, batch, info,         \
            internal, work);                                                                       \
    }                                                                                              \
    cusolverStatus_t qr_solve(cusolverSpHandle_t h, int n, int nnz, cusparseMatDescr_t d,          \
                              const V* values, const int* ptrs, const int* cols, const V* b, V* x, \
                              int batch, csrqrInfo_t info, void* buffer)                           \
    {                                                                                              \
        return LOOM_VENDOR(cusolverSp##t##csrqrsvBatched)(                                         \
            h, n, n, nnz, d, reinterpret_cast<const Cu*>(values), ptrs, cols,                      \
            reinterpret_cast<const Cu*>(b), reinterpret_cast<Cu*>(x), batch, info, buffer);        \
    }
LOOM_QR_FOR_TYPE(float, float, S)
LOOM_QR_FOR_TYPE(double, double, D)
LOOM_QR_FOR_TYPE(std::complex<float>, cuComplex, C)
LOOM_QR_FOR_TYPE(std::complex<double>, cuDoubleComplex, Z)
#undef LOOM_QR_FOR_TYPE
}  // namespace qr_typed

namespace {

void check_cusparse(cusparseStatus_t status, const char* call)
{
    ::loom::cuda::check_cusparse(status, call, qr_where);
}

/// The objects one batched QR solve needs, released on every exit.
struct QrSession {
    cusolverSpHandle_t handle = nullptr;
    cusparseMatDescr_t descr = nullptr;
    csrqrInfo_t info = nullptr;

    explicit QrSession(const CudaExecutor& exec)
    {
        ::loom::cuda::check_cusolver(LOOM_VENDOR(cusolverSpCreate)(&handle), "cusolverSpCreate",
                                     qr_where);
        ::loom::cuda::check_cusolver(
            LOOM_VENDOR(cusolverSpSetStream)(handle, ::loom::cuda::stream_of(exec)),
            "cusolverSpSetStream", qr_where);
        check_cusparse(LOOM_VENDOR(cusparseCreateMatDescr)(&descr), "cusparseCreateMatDescr");
        check_cusparse(LOOM_VENDOR(cusparseSetMatType)(descr, CUSPARSE_MATRIX_TYPE_GENERAL),
                       "cusparseSetMatType");
        check_cusparse(LOOM_VENDOR(cusparseSetMatIndexBase)(descr, CUSPARSE_INDEX_BASE_ZERO),
                       "cusparseSetMatIndexBase");
        ::loom::cuda::check_cusolver(LOOM_VENDOR(cusolverSpCreateCsrqrInfo)(&info),
                                     "cusolverSpCreateCsrqrInfo", qr_where);
    }
    ~QrSession()
    {
        if (info != nullptr) LOOM_VENDOR(cusolverSpDestroyCsrqrInfo)(info);
        if (descr != nullptr) LOOM_VENDOR(cusparseDestroyMatDescr)(descr);
        if (handle != nullptr) LOOM_VENDOR(cusolverSpDestroy)(handle);
    }
    QrSession(const QrSession&) = delete;
    QrSession& operator=(const QrSession&) = delete;
};

}  // namespace

template <typename V, typename I>
void solve_vendor_qr(const CudaExecutor& exec, const BatchCsr<V, I>& A, const BatchDense<V>& b,
                     BatchDense<V>& x)
{
    if constexpr (!std::is_same_v<I, int32>) {
        throw NotSupported(qr_where, "cuSOLVER's batched QR takes 32-bit indices");
    } else {
        const size_type count = A.batch_count();
        const int n = static_cast<int>(A.rows());
        const int nnz = static_cast<int>(A.nnz());
        if (count == 0 || n == 0) return;
        const CudaExecutor::DeviceScope scope(exec.device_id());
        QrSession qr(exec);
        ::loom::cuda::check_cusolver(
            LOOM_VENDOR(cusolverSpXcsrqrAnalysisBatched)(
                qr.handle, n, n, nnz, qr.descr, A.row_ptrs().data(), A.col_idxs().data(), qr.info),
            "cusolverSpXcsrqrAnalysisBatched", qr_where);
        // cuSOLVER keeps the factors of every system of a call: the batch goes in chunks
        // whose factors and workspace take at most a quarter of the free memory.
        size_t free_bytes = 0;
        size_t total_bytes = 0;
        LOOM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), qr_where);
        int chunk = static_cast<int>(std::min<size_type>(count, 1 << 20));
        size_t internal = 0;
        size_t work = 0;
        while (true) {
            ::loom::cuda::check_cusolver(
                qr_typed::qr_buffer(qr.handle, n, nnz, qr.descr, A.values().data(),
                                    A.row_ptrs().data(), A.col_idxs().data(), chunk, qr.info,
                                    &internal, &work),
                "cusolverSpXcsrqrBufferInfoBatched", qr_where);
            if (chunk == 1 || internal + work <= free_bytes / 4) break;
            chunk = (chunk + 1) / 2;
        }
        Array<double> buffer(A.executor(), static_cast<size_type>((work + 7) / 8));
        for (size_type first = 0; first < count; first += chunk) {
            const int systems = static_cast<int>(std::min<size_type>(chunk, count - first));
            ::loom::cuda::check_cusolver(
                qr_typed::qr_solve(qr.handle, n, nnz, qr.descr, A.values().data() + first * nnz,
                                   A.row_ptrs().data(), A.col_idxs().data(), b.data() + first * n,
                                   x.data() + first * n, systems, qr.info, buffer.data()),
                "cusolverSpXcsrqrsvBatched", qr_where);
        }
    }
}

#define LOOM_INSTANTIATE_BATCH_SPARSE_VENDOR_QR(V, I)                         \
    template void solve_vendor_qr(const CudaExecutor&, const BatchCsr<V, I>&, \
                                  const BatchDense<V>&, BatchDense<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BATCH_SPARSE_VENDOR_QR)

}  // namespace loom::batched::bsparse::cuda
