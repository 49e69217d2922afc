// cuSPARSE's SpGEMM (SpgemmAlgorithm::vendor), the peer of the native kernels.
//
// Symbolic/numeric through the structure-reuse API: cusparseSpGEMMreuse_workEstimation,
// _nnz and _copy make C's pattern (row pointers and columns) in the symbolic phase, and
// cusparseSpGEMMreuse_compute fills the values in every numeric phase; the descriptors and
// the buffers _compute needs stay in the handle. The one-call product spgemm(A, B) uses the
// plain API (cusparseSpGEMM_workEstimation, _compute, _copy), cuSPARSE's fastest route for
// a product computed once. Products without entries (no rows, no columns, A or B empty) are
// left to the native kernels, which cuSPARSE's descriptors do not always accept. cuSPARSE
// needs rows sorted and free of duplicates: other input is refused (BadInput).
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>

#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::cuda_data_type;
using loom::cuda::cusparse_index_type;
using loom::cuda::CusparseDescriptor;
using loom::cuda::stream_of;

#define LOOM_CUSPARSE_CHECK(call, where) loom::cuda::check_cusparse((call), #call, where)

constexpr auto no_op = CUSPARSE_OPERATION_NON_TRANSPOSE;
constexpr auto algorithm = CUSPARSE_SPGEMM_DEFAULT;

using SpMat = CusparseDescriptor<cusparseSpMatDescr_t, &loom::cuda::destroy_sp_mat>;

class SpgemmDescr {
public:
    explicit SpgemmDescr(const char* where)
    {
        LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMM_createDescr)(&handle_), where);
    }
    SpgemmDescr(const SpgemmDescr&) = delete;
    SpgemmDescr& operator=(const SpgemmDescr&) = delete;
    ~SpgemmDescr() { LOOM_VENDOR(cusparseSpGEMM_destroyDescr)(handle_); }
    cusparseSpGEMMDescr_t get() const { return handle_; }

private:
    cusparseSpGEMMDescr_t handle_ = nullptr;
};

/// Describes rows x cols with the given arrays (cuSPARSE does not write A or B).
template <typename V, typename I>
void describe(SpMat& descr, size_type rows, size_type cols, size_type nnz, const I* row_ptrs,
              const I* col_idxs, const V* values, const char* where)
{
    constexpr auto index = cusparse_index_type<I>();
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseCreateCsr)(descr.out(), rows, cols, nnz, const_cast<I*>(row_ptrs),
                                       const_cast<I*>(col_idxs), const_cast<V*>(values), index,
                                       index, CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<V>()),
        where);
}

template <typename V, typename I>
void describe(SpMat& descr, const matrix::Csr<V, I>& M, const char* where)
{
    describe(descr, M.rows(), M.cols(), M.nnz(), M.row_ptrs().data(), M.col_idxs().data(),
             M.values().data(), where);
}

template <typename V, typename I>
void point_at(const SpMat& descr, const matrix::Csr<V, I>& M, const char* where)
{
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCsrSetPointers)(
                            descr.get(), const_cast<I*>(M.row_ptrs().data()),
                            const_cast<I*>(M.col_idxs().data()), const_cast<V*>(M.values().data())),
                        where);
}

Array<std::byte> buffer(const CudaExecutor& exec, std::size_t bytes)
{
    return Array<std::byte>(exec.shared_from_this(),
                            static_cast<size_type>(std::max<std::size_t>(bytes, 1)));
}

/// Whether cuSPARSE is spared the product: nothing to multiply.
template <typename V, typename I>
bool trivial(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B)
{
    return A.rows() == 0 || B.cols() == 0 || A.nnz() == 0 || B.nnz() == 0;
}

/// What the numeric phase needs of the reuse API.
template <typename V, typename I>
struct VendorPlan {
    explicit VendorPlan(const char* where) : spgemm(where) {}
    SpgemmDescr spgemm;
    SpMat a;
    SpMat b;
    SpMat c;
    Array<std::byte> buffer4;  ///< kept until the last _compute
    Array<std::byte> buffer5;
};

/// cuSPARSE's SpGEMM silently computes garbage from rows that are unsorted or hold a
/// column twice (the native kernels accept both): BadInput instead.
template <typename V, typename I>
void require_sorted_rows(const CudaExecutor& exec, const matrix::Csr<V, I>& M, const char* name,
                         const char* where)
{
    if (!rows_strictly_ascending(exec, M, where)) {
        throw BadInput(where, std::string(name) +
                                  " has a row whose columns are unsorted or repeated; "
                                  "SpgemmAlgorithm::vendor (cuSPARSE) needs sorted rows "
                                  "without duplicates (the native algorithm takes any)");
    }
}

template <typename V, typename I>
matrix::Csr<V, I> result_of(const CudaExecutor& exec, const detail::SpgemmState<I>& state)
{
    matrix::Csr<V, I> C(exec.shared_from_this(), state.size, state.nnz);
    if (state.size.rows > 0) {
        LOOM_CUDA_CHECK(cudaMemcpyAsync(C.row_ptrs().data(), state.row_ptrs.data(),
                                        sizeof(I) * (state.size.rows + 1), cudaMemcpyDeviceToDevice,
                                        stream_of(exec)),
                        "loom::sparse::spgemm_symbolic");
    }
    return C;
}

}  // namespace

template <typename V, typename I>
void spgemm_vendor_symbolic(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                            const matrix::Csr<V, I>& B, detail::SpgemmState<I>& state,
                            matrix::Csr<V, I>& C)
{
    constexpr const char* where = "loom::sparse::spgemm_symbolic";
    if (trivial(A, B)) {
        spgemm_symbolic(exec, A, B, false, state);
        state.algorithm = SpgemmAlgorithm::native;
        C = result_of<V, I>(exec, state);
        return;
    }
    require_sorted_rows(exec, A, "A", where);
    require_sorted_rows(exec, B, "B", where);
    const auto self = exec.shared_from_this();
    auto handle = loom::cuda::host_mode_handle(exec, where);
    auto plan = std::make_shared<VendorPlan<V, I>>(where);
    const auto spgemm = plan->spgemm.get();
    state.row_ptrs = Array<I>(self, A.rows() + 1);
    state.row_flops = Array<int64>(self, 0);  // cuSPARSE does not report them
    describe(plan->a, A, where);
    describe(plan->b, B, where);
    describe<V, I>(plan->c, A.rows(), B.cols(), 0, state.row_ptrs.data(), nullptr, nullptr, where);

    std::size_t bytes1 = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMMreuse_workEstimation)(
                            handle, no_op, no_op, plan->a.get(), plan->b.get(), plan->c.get(),
                            algorithm, spgemm, &bytes1, nullptr),
                        where);
    auto buffer1 = buffer(exec, bytes1);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMMreuse_workEstimation)(
                            handle, no_op, no_op, plan->a.get(), plan->b.get(), plan->c.get(),
                            algorithm, spgemm, &bytes1, buffer1.data()),
                        where);
    std::size_t bytes2 = 0;
    std::size_t bytes3 = 0;
    std::size_t bytes4 = 0;
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseSpGEMMreuse_nnz)(handle, no_op, no_op, plan->a.get(), plan->b.get(),
                                             plan->c.get(), algorithm, spgemm, &bytes2, nullptr,
                                             &bytes3, nullptr, &bytes4, nullptr),
        where);
    auto buffer2 = buffer(exec, bytes2);
    auto buffer3 = buffer(exec, bytes3);
    plan->buffer4 = buffer(exec, bytes4);
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseSpGEMMreuse_nnz)(
            handle, no_op, no_op, plan->a.get(), plan->b.get(), plan->c.get(), algorithm, spgemm,
            &bytes2, buffer2.data(), &bytes3, buffer3.data(), &bytes4, plan->buffer4.data()),
        where);
    int64_t rows = 0;
    int64_t cols = 0;
    int64_t nnz = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMatGetSize)(plan->c.get(), &rows, &cols, &nnz),
                        where);
    state.nnz = nnz;
    int64_t products = 0;
    if (LOOM_VENDOR(cusparseSpGEMM_getNumProducts)(spgemm, &products) == CUSPARSE_STATUS_SUCCESS) {
        state.multiply_adds = products;
    }
    matrix::Csr<V, I> result(self, state.size, nnz);
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseCsrSetPointers)(plan->c.get(), state.row_ptrs.data(),
                                            result.col_idxs().data(), result.values().data()),
        where);
    std::size_t bytes5 = 0;
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseSpGEMMreuse_copy)(handle, no_op, no_op, plan->a.get(), plan->b.get(),
                                              plan->c.get(), algorithm, spgemm, &bytes5, nullptr),
        where);
    plan->buffer5 = buffer(exec, bytes5);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMMreuse_copy)(
                            handle, no_op, no_op, plan->a.get(), plan->b.get(), plan->c.get(),
                            algorithm, spgemm, &bytes5, plan->buffer5.data()),
                        where);
    LOOM_CUDA_CHECK(
        cudaMemcpyAsync(result.row_ptrs().data(), state.row_ptrs.data(), sizeof(I) * (A.rows() + 1),
                        cudaMemcpyDeviceToDevice, stream_of(exec)),
        where);
    state.backend = std::move(plan);
    C = std::move(result);
}

template <typename V, typename I>
void spgemm_vendor_numeric(const CudaExecutor& exec, const detail::SpgemmState<I>& state,
                           const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                           matrix::Csr<V, I>& C)
{
    constexpr const char* where = "loom::sparse::spgemm_numeric";
    auto& plan = *static_cast<VendorPlan<V, I>*>(state.backend.get());
    auto handle = loom::cuda::host_mode_handle(exec, where);
    // The same patterns, perhaps in other arrays: point the descriptors at today's.
    point_at(plan.a, A, where);
    point_at(plan.b, B, where);
    point_at(plan.c, C, where);
    const V one{1};
    const V zero{0};
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMMreuse_compute)(
                            handle, no_op, no_op, &one, plan.a.get(), plan.b.get(), &zero,
                            plan.c.get(), cuda_data_type<V>(), algorithm, plan.spgemm.get()),
                        where);
}

template <typename V, typename I>
matrix::Csr<V, I> spgemm_vendor(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                                const matrix::Csr<V, I>& B)
{
    constexpr const char* where = "loom::sparse::spgemm";
    const auto self = exec.shared_from_this();
    if (trivial(A, B)) {
        detail::SpgemmState<I> state;
        state.size = {A.rows(), B.cols()};
        spgemm_symbolic(exec, A, B, false, state);
        return result_of<V, I>(exec, state);  // no entries: nothing to compute
    }
    require_sorted_rows(exec, A, "A", where);
    require_sorted_rows(exec, B, "B", where);
    auto handle = loom::cuda::host_mode_handle(exec, where);
    SpgemmDescr spgemm(where);
    SpMat a;
    SpMat b;
    SpMat c;
    describe(a, A, where);
    describe(b, B, where);
    describe<V, I>(c, A.rows(), B.cols(), 0, nullptr, nullptr, nullptr, where);
    const V one{1};
    const V zero{0};
    constexpr auto type = cuda_data_type<V>();
    std::size_t bytes1 = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMM_workEstimation)(
                            handle, no_op, no_op, &one, a.get(), b.get(), &zero, c.get(), type,
                            algorithm, spgemm.get(), &bytes1, nullptr),
                        where);
    auto buffer1 = buffer(exec, bytes1);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMM_workEstimation)(
                            handle, no_op, no_op, &one, a.get(), b.get(), &zero, c.get(), type,
                            algorithm, spgemm.get(), &bytes1, buffer1.data()),
                        where);
    std::size_t bytes2 = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMM_compute)(
                            handle, no_op, no_op, &one, a.get(), b.get(), &zero, c.get(), type,
                            algorithm, spgemm.get(), &bytes2, nullptr),
                        where);
    auto buffer2 = buffer(exec, bytes2);
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpGEMM_compute)(
                            handle, no_op, no_op, &one, a.get(), b.get(), &zero, c.get(), type,
                            algorithm, spgemm.get(), &bytes2, buffer2.data()),
                        where);
    int64_t rows = 0;
    int64_t cols = 0;
    int64_t nnz = 0;
    LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseSpMatGetSize)(c.get(), &rows, &cols, &nnz), where);
    matrix::Csr<V, I> C(self, {A.rows(), B.cols()}, nnz);
    point_at(c, C, where);
    LOOM_CUSPARSE_CHECK(
        LOOM_VENDOR(cusparseSpGEMM_copy)(handle, no_op, no_op, &one, a.get(), b.get(), &zero,
                                         c.get(), type, algorithm, spgemm.get()),
        where);
    return C;
}

#define LOOM_INSTANTIATE_SPGEMM_CUSPARSE(V, I)                                              \
    template void spgemm_vendor_symbolic(const CudaExecutor&, const matrix::Csr<V, I>&,     \
                                         const matrix::Csr<V, I>&, detail::SpgemmState<I>&, \
                                         matrix::Csr<V, I>&);                               \
    template void spgemm_vendor_numeric(const CudaExecutor&, const detail::SpgemmState<I>&, \
                                        const matrix::Csr<V, I>&, const matrix::Csr<V, I>&, \
                                        matrix::Csr<V, I>&);                                \
    template matrix::Csr<V, I> spgemm_vendor(const CudaExecutor&, const matrix::Csr<V, I>&, \
                                             const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_CUSPARSE)

}  // namespace loom::sparse::cuda
