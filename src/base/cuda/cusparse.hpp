// What the cuSPARSE adapters of the kernel families share: status checks that raise Loom's
// errors, Loom's types as cuSPARSE data and index types, and owned generic-API descriptors.
#pragma once

#include <complex>
#include <string>
#include <type_traits>

#include <cusparse.h>

#include "base/cuda/helpers.cuh"
#include "base/cuda/vendor.hpp"
#include "loom/base/error.hpp"

namespace loom::cuda {

/// Raises NotSupported for what cuSPARSE declines, AllocationError when it runs out of
/// memory, CudaError otherwise; `call` is the failed call as written.
inline void check_cusparse(cusparseStatus_t status, const char* call, const char* where)
{
    if (status == CUSPARSE_STATUS_SUCCESS) return;
    const std::string what = vendor::call_text(call) +
                             " failed: " + LOOM_VENDOR(cusparseGetErrorName)(status) + " (" +
                             LOOM_VENDOR(cusparseGetErrorString)(status) + ")";
    if (status == CUSPARSE_STATUS_NOT_SUPPORTED) {
        throw NotSupported(where, "cuSPARSE does not offer this operation: " + what);
    }
    if (status == CUSPARSE_STATUS_ALLOC_FAILED ||
        status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) {
        throw AllocationError(where, what);
    }
    throw CudaError(where, what);
}

/// exec's cuSPARSE handle (bound to its stream) in host pointer mode, for scalars passed by
/// host pointer: the handle is shared with other callers, who may have left it in device
/// mode. Errors as check_cusparse, raised from `where`.
inline cusparseHandle_t host_mode_handle(const CudaExecutor& exec, const char* where)
{
    auto handle = static_cast<cusparseHandle_t>(exec.cusparse_handle());
    check_cusparse(LOOM_VENDOR(cusparseSetPointerMode)(handle, CUSPARSE_POINTER_MODE_HOST),
                   "cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_HOST)", where);
    return handle;
}

template <typename I>
constexpr cusparseIndexType_t cusparse_index_type()
{
    return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

// The destroy functions of the descriptors Loom owns, as functions a template can take.
inline void destroy_sp_mat(cusparseConstSpMatDescr_t d) { LOOM_VENDOR(cusparseDestroySpMat)(d); }
inline void destroy_dn_vec(cusparseConstDnVecDescr_t d) { LOOM_VENDOR(cusparseDestroyDnVec)(d); }
inline void destroy_dn_mat(cusparseConstDnMatDescr_t d) { LOOM_VENDOR(cusparseDestroyDnMat)(d); }
inline void destroy_spsv(cusparseSpSVDescr_t d) { LOOM_VENDOR(cusparseSpSV_destroyDescr)(d); }

/// Owns one generic-API descriptor; `destroy` is one of the functions above.
template <typename Descr, auto destroy>
class CusparseDescriptor {
public:
    CusparseDescriptor() = default;
    CusparseDescriptor(const CusparseDescriptor&) = delete;
    CusparseDescriptor& operator=(const CusparseDescriptor&) = delete;
    ~CusparseDescriptor()
    {
        if (handle_ != nullptr) destroy(handle_);
    }
    /// For the cusparseCreate* call.
    Descr* out() { return &handle_; }
    Descr get() const { return handle_; }

private:
    Descr handle_ = nullptr;
};

}  // namespace loom::cuda
