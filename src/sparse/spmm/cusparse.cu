// cuSPARSE's CSR SpMM (SpmmAlgorithm::vendor), through the generic API on the executor's
// cuSPARSE handle and stream, for row- and column-major B and C. The workspace is cached in
// A's CUDA plan (shared with SpMV's vendor path).
#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "base/cuda/half.cuh"
#include "base/instantiate_storage.hpp"
#include "sparse/spmm/kernels.hpp"
#include "sparse/spmv/vendor.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::cusparse_index_type;
using loom::cuda::storage_data_type;
constexpr const char* vendor_where = "loom::sparse::spmm";

#define LOOM_CUSPARSE_CHECK(call) loom::cuda::check_cusparse((call), #call, vendor_where)

/// The order and leading dimension of a rows x cols operand.
template <typename T>
void describe(const DenseOperand<T>& d, cusparseOrder_t& order, long long& ld)
{
    order = d.row_major() ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
    ld = d.row_major() ? d.row_step : d.col_step;
}

cusparseSpMMAlg_t cusparse_algorithm(VendorSpmmAlgorithm algorithm)
{
    switch (algorithm) {
    case VendorSpmmAlgorithm::csr_alg1: return CUSPARSE_SPMM_CSR_ALG1;
    case VendorSpmmAlgorithm::csr_alg2: return CUSPARSE_SPMM_CSR_ALG2;
    case VendorSpmmAlgorithm::csr_alg3: return CUSPARSE_SPMM_CSR_ALG3;
    default: return CUSPARSE_SPMM_ALG_DEFAULT;
    }
}

}  // namespace

template <typename V, typename I>
void spmm_csr_vendor(const CudaExecutor& exec, Mode mode, compute_type_t<V> alpha,
                     const matrix::Csr<V, I>& A, DenseOperand<const V> B, compute_type_t<V> beta,
                     DenseOperand<V> C, size_type k, VendorSpmmAlgorithm algorithm)
{
    if (mode == Mode::conjugate) {
        throw NotSupported(vendor_where,
                           "cuSPARSE offers no conj(A) without transposition (Mode::conjugate); "
                           "use SpmmAlgorithm::automatic, row_split or nnz_balanced");
    }
    const bool transposes = mode == Mode::transpose || mode == Mode::conj_transpose;
    // Like SpMV's vendor path: no entries, or duplicates (more entries than rows * cols,
    // which cuSPARSE rejects), go to the native kernel, which computes the same product.
    if (A.nnz() == 0 || static_cast<double>(A.nnz()) >
                            static_cast<double>(A.rows()) * static_cast<double>(A.cols())) {
        spmm_csr(exec, mode, alpha, A, B, beta, C, k, SpmmAlgorithm::row_split);
        return;
    }
    auto handle = static_cast<cusparseHandle_t>(exec.cusparse_handle());
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSetPointerMode)(handle, CUSPARSE_POINTER_MODE_HOST));
    constexpr auto type = storage_data_type<V>();
    // The 16-bit types are stored as CUDA_R_16F / 16BF and computed in CUDA_R_32F.
    constexpr auto compute = storage_data_type<compute_type_t<V>>();
    constexpr auto index = cusparse_index_type<I>();
    const auto op = cusparse_operation(mode, is_complex_v<V>);
    SpMat matA;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateConstCsr)(
        matA.out(), A.rows(), A.cols(), A.nnz(), A.row_ptrs().data(), A.col_idxs().data(),
        A.values().data(), index, index, CUSPARSE_INDEX_BASE_ZERO, type));
    const long long b_rows = transposes ? A.rows() : A.cols();
    const long long c_rows = transposes ? A.cols() : A.rows();
    cusparseOrder_t order = CUSPARSE_ORDER_ROW;
    long long ld = 0;
    ConstDnMat matB;
    describe(B, order, ld);
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseCreateConstDnMat)(matB.out(), b_rows, k, ld, B.data, type, order));
    DnMat matC;
    describe(C, order, ld);
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseCreateDnMat)(matC.out(), c_rows, k, ld, C.data, type, order));
    const auto alg = cusparse_algorithm(algorithm);
    std::size_t bytes = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMM_bufferSize)(
        handle, op, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA.get(), matB.get(), &beta,
        matC.get(), compute, alg, &bytes));
    void* buffer = vendor_workspace(A, bytes);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMM)(handle, op, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  &alpha, matA.get(), matB.get(), &beta, matC.get(),
                                                  compute, alg, buffer));
}

#define LOOM_INSTANTIATE_SPMM_CUSPARSE(V, I)                                       \
    template void spmm_csr_vendor(const CudaExecutor&, Mode, compute_type_t<V>,    \
                                  const matrix::Csr<V, I>&, DenseOperand<const V>, \
                                  compute_type_t<V>, DenseOperand<V>, size_type,   \
                                  VendorSpmmAlgorithm);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_CUSPARSE)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_CUSPARSE)

}  // namespace loom::sparse::cuda
