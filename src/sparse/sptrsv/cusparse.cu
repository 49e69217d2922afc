// cuSPARSE's SpSV as SptrsvAlgorithm::vendor, on the executor's cuSPARSE handle and stream:
// the analysis (bufferSize + SpSV_analysis) in the symbolic phase, SpSV_updateMatrix for new
// values, SpSV_solve per right-hand side. cuSPARSE keeps pointers to the matrix it analysed,
// so the state holds its own copy of T: the caller's arrays may move or be replaced.
#include <complex>
#include <cstddef>
#include <string>

#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "sparse/sptrsv/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::cuda_data_type;
using loom::cuda::cusparse_index_type;
using loom::cuda::CusparseDescriptor;
constexpr const char* vendor_where = "loom::sparse::sptrsv (cuSPARSE SpSV)";

#define LOOM_CUSPARSE_CHECK(call) loom::cuda::check_cusparse((call), #call, vendor_where)

using SpMat = CusparseDescriptor<cusparseSpMatDescr_t, &loom::cuda::destroy_sp_mat>;
using ConstDnVec = CusparseDescriptor<cusparseConstDnVecDescr_t, &loom::cuda::destroy_dn_vec>;
using DnVec = CusparseDescriptor<cusparseDnVecDescr_t, &loom::cuda::destroy_dn_vec>;
using SpsvDescr = CusparseDescriptor<cusparseSpSVDescr_t, &loom::cuda::destroy_spsv>;

template <typename V, typename I>
struct SpsvState {
    matrix::Csr<V, I> T;  ///< the copy cuSPARSE analysed
    cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    SpMat mat;
    SpsvDescr descr;
    Array<std::byte> buffer;
};

cusparseOperation_t operation(blas::Op op, bool complex_values)
{
    switch (op) {
    case blas::Op::transpose: return CUSPARSE_OPERATION_TRANSPOSE;
    // T^H of a real matrix is T^T; asked as such so that no real-type restriction applies.
    case blas::Op::conj_transpose:
        return complex_values ? CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE
                              : CUSPARSE_OPERATION_TRANSPOSE;
    default: return CUSPARSE_OPERATION_NON_TRANSPOSE;
    }
}

}  // namespace

template <typename V, typename I>
std::shared_ptr<void> sptrsv_vendor_analysis(const CudaExecutor& exec, const matrix::Csr<V, I>& T,
                                             const SptrsvOptions& options)
{
    constexpr auto type = cuda_data_type<V>();
    constexpr auto index = cusparse_index_type<I>();
    auto state = std::make_shared<SpsvState<V, I>>();
    state->T = matrix::Csr<V, I>(T.executor(), T);
    auto& M = state->T;
    state->op = operation(options.op, is_complex_v<V>);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateCsr)(
        state->mat.out(), M.rows(), M.cols(), M.nnz(), M.row_ptrs().data(), M.col_idxs().data(),
        M.values().data(), index, index, CUSPARSE_INDEX_BASE_ZERO, type));
    cusparseFillMode_t fill =
        options.uplo == blas::Uplo::lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t diag =
        options.diag == blas::Diag::unit ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMatSetAttribute)(
        state->mat.get(), CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof(fill)));
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMatSetAttribute)(
        state->mat.get(), CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof(diag)));
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpSV_createDescr)(state->descr.out()));
    // The analysis asks for vectors; it reads neither.
    matrix::Dense<V> b(T.executor(), {M.rows(), 1});
    matrix::Dense<V> x(T.executor(), {M.rows(), 1});
    ConstDnVec vec_b;
    DnVec vec_x;
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseCreateConstDnVec)(vec_b.out(), M.rows(), b.data(), type));
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateDnVec)(vec_x.out(), M.rows(), x.data(), type));
    const V one{1};
    const auto handle = loom::cuda::host_mode_handle(exec, vendor_where);
    std::size_t bytes = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpSV_bufferSize)(
        handle, state->op, &one, state->mat.get(), vec_b.get(), vec_x.get(), type,
        CUSPARSE_SPSV_ALG_DEFAULT, state->descr.get(), &bytes));
    state->buffer = Array<std::byte>(T.executor(), static_cast<size_type>(bytes));
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpSV_analysis)(
        handle, state->op, &one, state->mat.get(), vec_b.get(), vec_x.get(), type,
        CUSPARSE_SPSV_ALG_DEFAULT, state->descr.get(), state->buffer.data()));
    return state;
}

template <typename V, typename I>
void sptrsv_vendor_update(const CudaExecutor& exec, const std::shared_ptr<void>& vendor,
                          const matrix::Csr<V, I>& T)
{
    auto& state = *static_cast<SpsvState<V, I>*>(vendor.get());
    // Into the buffer cuSPARSE's descriptor points to: an assignment could reallocate it.
    auto& values = state.T.values();
    exec.copy_from(*T.executor(), sizeof(V) * static_cast<std::size_t>(values.size()),
                   T.values().data(), values.data());
    const auto handle = loom::cuda::host_mode_handle(exec, vendor_where);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpSV_updateMatrix)(
        handle, state.descr.get(), state.T.values().data(), CUSPARSE_SPSV_UPDATE_GENERAL));
}

template <typename V, typename I>
void sptrsv_vendor_solve(const CudaExecutor& exec, const std::shared_ptr<void>& vendor,
                         const matrix::Csr<V, I>& T, const matrix::Dense<V>& b, matrix::Dense<V>& x)
{
    const auto& state = *static_cast<const SpsvState<V, I>*>(vendor.get());
    for (const auto* d : {&b, static_cast<const matrix::Dense<V>*>(&x)}) {
        if (d->cols() != 1 || (d->stride() != 1 && d->rows() > 1)) {
            throw NotSupported(vendor_where,
                               "cuSPARSE's SpSV solves for one contiguous right-hand side; b "
                               "and x must be n x 1 with stride 1 (use level_set or sync_free)");
        }
    }
    constexpr auto type = cuda_data_type<V>();
    ConstDnVec vec_b;
    DnVec vec_x;
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseCreateConstDnVec)(vec_b.out(), T.rows(), b.data(), type));
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateDnVec)(vec_x.out(), T.rows(), x.data(), type));
    const V one{1};
    const auto handle = loom::cuda::host_mode_handle(exec, vendor_where);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpSV_solve)(
        handle, state.op, &one, state.mat.get(), vec_b.get(), vec_x.get(), type,
        CUSPARSE_SPSV_ALG_DEFAULT, state.descr.get()));
}

#define LOOM_INSTANTIATE_SPTRSV_CUSPARSE(V, I)                                            \
    template std::shared_ptr<void> sptrsv_vendor_analysis(                                \
        const CudaExecutor&, const matrix::Csr<V, I>&, const SptrsvOptions&);             \
    template void sptrsv_vendor_update(const CudaExecutor&, const std::shared_ptr<void>&, \
                                       const matrix::Csr<V, I>&);                         \
    template void sptrsv_vendor_solve(const CudaExecutor&, const std::shared_ptr<void>&,  \
                                      const matrix::Csr<V, I>&, const matrix::Dense<V>&,  \
                                      matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPTRSV_CUSPARSE)

}  // namespace loom::sparse::cuda
