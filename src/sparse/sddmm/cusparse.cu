// cuSPARSE's SDDMM (SddmmAlgorithm::vendor) on the executor's cuSPARSE handle and stream:
// S = alpha * X * Y^T o spy(S) + beta * S, with op(Y) = transpose.
#include <utility>

#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "base/cuda/half.cuh"
#include "base/instantiate_storage.hpp"
#include "sparse/sddmm/kernels.hpp"
#include "sparse/spmv/vendor.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::cusparse_index_type;
using loom::cuda::storage_data_type;
constexpr const char* vendor_where = "loom::sparse::sddmm";

#define LOOM_CUSPARSE_CHECK(call) loom::cuda::check_cusparse((call), #call, vendor_where)

using MutableSpMat =
    loom::cuda::CusparseDescriptor<cusparseSpMatDescr_t, &loom::cuda::destroy_sp_mat>;

}  // namespace

template <typename V, typename I>
void sddmm_csr_vendor(const CudaExecutor& exec, compute_type_t<V> alpha, DenseOperand<const V> X,
                      DenseOperand<const V> Y, size_type k, compute_type_t<V> beta,
                      matrix::Csr<V, I>& S)
{
    const auto handle = loom::cuda::host_mode_handle(exec, vendor_where);
    constexpr auto type = storage_data_type<V>();
    // The 16-bit types are stored as CUDA_R_16F / 16BF and computed in CUDA_R_32F.
    constexpr auto compute = storage_data_type<compute_type_t<V>>();
    constexpr auto index = cusparse_index_type<I>();
    const auto& pattern = std::as_const(S);
    MutableSpMat matS;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateCsr)(
        matS.out(), S.rows(), S.cols(), S.nnz(), const_cast<I*>(pattern.row_ptrs().data()),
        const_cast<I*>(pattern.col_idxs().data()), S.values().data(), index, index,
        CUSPARSE_INDEX_BASE_ZERO, type));
    ConstDnMat matX;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateConstDnMat)(
        matX.out(), S.rows(), k, X.row_major() ? X.row_step : X.col_step, X.data, type,
        X.row_major() ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
    // op(Y) = Y^T: Y described as it is stored (n x k), so that row-major X and Y share one
    // order, as cuSPARSE's SDDMM is most commonly called.
    ConstDnMat matY;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateConstDnMat)(
        matY.out(), S.cols(), k, Y.row_major() ? Y.row_step : Y.col_step, Y.data, type,
        Y.row_major() ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
    constexpr auto none = CUSPARSE_OPERATION_NON_TRANSPOSE;
    constexpr auto transpose = CUSPARSE_OPERATION_TRANSPOSE;
    std::size_t bytes = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSDDMM_bufferSize)(
        handle, none, transpose, &alpha, matX.get(), matY.get(), &beta, matS.get(), compute,
        CUSPARSE_SDDMM_ALG_DEFAULT, &bytes));
    void* buffer = vendor_workspace(pattern, bytes);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSDDMM)(handle, none, transpose, &alpha, matX.get(),
                                                   matY.get(), &beta, matS.get(), compute,
                                                   CUSPARSE_SDDMM_ALG_DEFAULT, buffer));
}

#define LOOM_INSTANTIATE_SDDMM_CUSPARSE(V, I)                                                     \
    template void sddmm_csr_vendor(const CudaExecutor&, compute_type_t<V>, DenseOperand<const V>, \
                                   DenseOperand<const V>, size_type, compute_type_t<V>,           \
                                   matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_CUSPARSE)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_CUSPARSE)

}  // namespace loom::sparse::cuda
