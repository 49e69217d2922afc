// cuSPARSE's csrilu02 as IluAlgorithm::vendor, the peer `loom bench ilu` compares ILU(0)
// with: bufferSize + analysis in the symbolic phase, csrilu02 in place on A's values on F's
// pattern (sorted rows with every diagonal entry: what csrilu02 needs) in the numeric one.
// csrilu02 is deprecated in cuSPARSE 12/13 and still its only ILU(0).
#define DISABLE_CUSPARSE_DEPRECATED

#include <complex>
#include <cstddef>
#include <type_traits>

#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "loom/base/array.hpp"
#include "sparse/ilu/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

constexpr const char* vendor_where = "loom::sparse::ilu (cuSPARSE csrilu02)";

#define LOOM_CSRILU02_CHECK(call) loom::cuda::check_cusparse((call), #call, vendor_where)

/// The matrix descriptor, the csrilu02 info and the work buffer of one analysis.
struct Csrilu02State {
    cusparseMatDescr_t descr = nullptr;
    csrilu02Info_t info = nullptr;
    Array<std::byte> buffer;

    Csrilu02State() = default;
    Csrilu02State(const Csrilu02State&) = delete;
    Csrilu02State& operator=(const Csrilu02State&) = delete;
    ~Csrilu02State()
    {
        if (info != nullptr) LOOM_VENDOR(cusparseDestroyCsrilu02Info)(info);
        if (descr != nullptr) LOOM_VENDOR(cusparseDestroyMatDescr)(descr);
    }
};

cusparseHandle_t handle_of(const CudaExecutor& exec)
{
    auto handle = static_cast<cusparseHandle_t>(exec.cusparse_handle());
    // The handle is shared with other callers, who may have switched it to device scalars.
    LOOM_CSRILU02_CHECK(LOOM_VENDOR(cusparseSetPointerMode)(handle, CUSPARSE_POINTER_MODE_HOST));
    return handle;
}

/// cuSPARSE's name for V's memory.
template <typename V>
auto* vendor_values(V* values)
{
    if constexpr (std::is_same_v<V, std::complex<float>>) {
        return reinterpret_cast<cuComplex*>(values);
    } else if constexpr (std::is_same_v<V, std::complex<double>>) {
        return reinterpret_cast<cuDoubleComplex*>(values);
    } else {
        return values;
    }
}

/// Calls the S, D, C or Z variant of a csrilu02 function for V.
#define LOOM_CSRILU02_FOR(V, suffix, ...)                                                   \
    [&] {                                                                                    \
        if constexpr (std::is_same_v<V, float>) {                                            \
            return LOOM_VENDOR(cusparseScsrilu02##suffix)(__VA_ARGS__);                      \
        } else if constexpr (std::is_same_v<V, double>) {                                    \
            return LOOM_VENDOR(cusparseDcsrilu02##suffix)(__VA_ARGS__);                      \
        } else if constexpr (std::is_same_v<V, std::complex<float>>) {                       \
            return LOOM_VENDOR(cusparseCcsrilu02##suffix)(__VA_ARGS__);                      \
        } else {                                                                             \
            return LOOM_VENDOR(cusparseZcsrilu02##suffix)(__VA_ARGS__);                      \
        }                                                                                    \
    }()

}  // namespace

template <typename V, typename I>
std::shared_ptr<void> ilu_vendor_analysis(const CudaExecutor& exec,
                                          const detail::FactorPattern<I>& f)
{
    if constexpr (sizeof(I) != sizeof(int)) {
        throw NotSupported(vendor_where, "csrilu02 takes 32-bit indices only");
    } else {
        auto state = std::make_shared<Csrilu02State>();
        const auto handle = handle_of(exec);
        LOOM_CSRILU02_CHECK(LOOM_VENDOR(cusparseCreateMatDescr)(&state->descr));
        LOOM_CSRILU02_CHECK(
            LOOM_VENDOR(cusparseSetMatIndexBase)(state->descr, CUSPARSE_INDEX_BASE_ZERO));
        LOOM_CSRILU02_CHECK(
            LOOM_VENDOR(cusparseSetMatType)(state->descr, CUSPARSE_MATRIX_TYPE_GENERAL));
        LOOM_CSRILU02_CHECK(LOOM_VENDOR(cusparseCreateCsrilu02Info)(&state->info));
        const auto m = static_cast<int>(f.n);
        const auto nnz = static_cast<int>(f.nnz);
        // The analysis reads the pattern only; the values it is handed are a placeholder.
        Array<V> placeholder(exec.shared_from_this(), f.nnz);
        auto* values = vendor_values(placeholder.data());
        int bytes = 0;
        LOOM_CSRILU02_CHECK(LOOM_CSRILU02_FOR(V, _bufferSize, handle, m, nnz, state->descr,
                                              values, f.row_ptrs, f.col_idxs, state->info,
                                              &bytes));
        state->buffer = Array<std::byte>(exec.shared_from_this(), std::max(bytes, 1));
        LOOM_CSRILU02_CHECK(LOOM_CSRILU02_FOR(V, _analysis, handle, m, nnz, state->descr, values,
                                              f.row_ptrs, f.col_idxs, state->info,
                                              CUSPARSE_SOLVE_POLICY_USE_LEVEL,
                                              state->buffer.data()));
        // A structural zero pivot is reported here; F always holds its diagonal, so only
        // the numeric phase can find one.
        int position = -1;
        const auto status = LOOM_VENDOR(cusparseXcsrilu02_zeroPivot)(handle, state->info, &position);
        if (status != CUSPARSE_STATUS_ZERO_PIVOT) LOOM_CSRILU02_CHECK(status);
        return state;
    }
}

template <typename V, typename I>
size_type ilu_vendor_factorize(const CudaExecutor& exec, const std::shared_ptr<void>& vendor,
                               const detail::FactorPattern<I>& f, V* values)
{
    if constexpr (sizeof(I) != sizeof(int)) {
        throw NotSupported(vendor_where, "csrilu02 takes 32-bit indices only");
    } else {
        auto& state = *static_cast<Csrilu02State*>(vendor.get());
        const auto handle = handle_of(exec);
        LOOM_CSRILU02_CHECK(LOOM_CSRILU02_FOR(
            V, , handle, static_cast<int>(f.n), static_cast<int>(f.nnz), state.descr,
            vendor_values(values), f.row_ptrs, f.col_idxs, state.info,
            CUSPARSE_SOLVE_POLICY_USE_LEVEL, state.buffer.data()));
        int position = -1;
        const auto status = LOOM_VENDOR(cusparseXcsrilu02_zeroPivot)(handle, state.info, &position);
        if (status == CUSPARSE_STATUS_ZERO_PIVOT) return static_cast<size_type>(position);
        LOOM_CSRILU02_CHECK(status);
        return f.n;
    }
}

#define LOOM_INSTANTIATE(V, I)                                                                  \
    template std::shared_ptr<void> ilu_vendor_analysis<V, I>(const CudaExecutor&,               \
                                                             const detail::FactorPattern<I>&);  \
    template size_type ilu_vendor_factorize(const CudaExecutor&, const std::shared_ptr<void>&, \
                                            const detail::FactorPattern<I>&, V*);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::cuda
