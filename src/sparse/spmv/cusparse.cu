// cuSPARSE's CSR SpMV (SpmvAlgorithm::vendor), through the generic API on the executor's
// cuSPARSE handle and stream. The workspace is cached in the matrix's plan (cuda_plan.hpp).
#include <complex>
#include <string>
#include <type_traits>

#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "sparse/spmm/kernels.hpp"
#include "sparse/spmv/cuda_plan.hpp"
#include "sparse/spmv/kernels.hpp"
#include "sparse/spmv/vendor.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::cuda_data_type;
using loom::cuda::cusparse_index_type;
constexpr const char* vendor_where = "loom::sparse::spmv";

#define LOOM_CUSPARSE_CHECK(call) loom::cuda::check_cusparse((call), #call, vendor_where)

/// Dense operands as cuSPARSE sees them: a contiguous single column is a vector (SpMV),
/// anything else a row-major matrix with leading dimension = stride (SpMM).
template <typename V>
bool is_plain_vector(const matrix::Dense<V>& d)
{
    return d.cols() == 1 && (d.stride() == 1 || d.rows() <= 1);
}

}  // namespace

template <typename V, typename I>
void spmv_csr_vendor(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                     const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    if (mode == Mode::conjugate) {
        throw NotSupported(vendor_where,
                           "cuSPARSE offers no conj(A) without transposition (Mode::conjugate); "
                           "use SpmvAlgorithm::automatic, row_vector or load_balanced");
    }
    if (y.rows() == 0 || y.cols() == 0) return;
    // cuSPARSE is not asked about a matrix without entries (y = beta y), nor about one with
    // more stored entries than rows * cols (duplicates, which it rejects): the native row
    // kernel computes the same product.
    if (A.nnz() == 0 || static_cast<double>(A.nnz()) >
                            static_cast<double>(A.rows()) * static_cast<double>(A.cols())) {
        spmv_csr(exec, mode, alpha, A, x, beta, y, {SpmvAlgorithm::row_vector});
        return;
    }
    if (!is_plain_vector(x) || !is_plain_vector(y)) {
        // Several (or strided) columns: cuSPARSE's SpMM, through SpMM's vendor path.
        spmm_csr_vendor(exec, mode, alpha, A, operand(x, DenseLayout::row_major), beta,
                        operand(y, DenseLayout::row_major), x.cols());
        return;
    }
    const auto handle = loom::cuda::host_mode_handle(exec, vendor_where);
    constexpr auto type = cuda_data_type<V>();
    constexpr auto index = cusparse_index_type<I>();
    const auto op = cusparse_operation(mode, is_complex_v<V>);

    SpMat matA;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateConstCsr)(
        matA.out(), A.rows(), A.cols(), A.nnz(), A.row_ptrs().data(), A.col_idxs().data(),
        A.values().data(), index, index, CUSPARSE_INDEX_BASE_ZERO, type));
    ConstDnVec vecX;
    DnVec vecY;
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseCreateConstDnVec)(vecX.out(), x.rows(), x.data(), type));
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateDnVec)(vecY.out(), y.rows(), y.data(), type));
    std::size_t bytes = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMV_bufferSize)(handle, op, &alpha, matA.get(),
                                                             vecX.get(), &beta, vecY.get(), type,
                                                             CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    void* buffer = vendor_workspace(A, bytes);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMV)(handle, op, &alpha, matA.get(), vecX.get(), &beta,
                                                  vecY.get(), type, CUSPARSE_SPMV_ALG_DEFAULT,
                                                  buffer));
}

#define LOOM_INSTANTIATE_SPMV_CUSPARSE(V, I)                                              \
    template void spmv_csr_vendor(const CudaExecutor&, Mode, V, const matrix::Csr<V, I>&, \
                                  const matrix::Dense<V>&, V, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_CUSPARSE)

}  // namespace loom::sparse::cuda
