// The cuSOLVER handle that every kernel family shares (the dense LAPACK layer and the batched
// vendor calls), and the status check that raises Loom's error.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include <cusolverDn.h>

#include "base/cuda/helpers.cuh"
#include "base/cuda/vendor.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"

namespace loom::cuda {

/// Raises CudaError naming `call` (as written) when cuSOLVER did not succeed.
inline void check_cusolver(cusolverStatus_t status, const char* call, const char* where)
{
    if (status == CUSOLVER_STATUS_SUCCESS) return;
    throw CudaError(where, vendor::call_text(call) + " failed with cusolverStatus_t " +
                               std::to_string(static_cast<int>(status)));
}

/// One cuSOLVER handle per device, created on first use and kept for the life of the process
/// (destroying it at exit could run after the CUDA runtime is gone). The lock is held while a
/// caller binds the handle to its stream and queues its calls.
class SolverHandle {
public:
    SolverHandle(const CudaExecutor& exec, const char* where) : lock_(mutex())
    {
        auto& handle = handles()[exec.device_id()];
        if (handle == nullptr) {
            const CudaExecutor::DeviceScope scope(exec.device_id());
            check_cusolver(LOOM_VENDOR(cusolverDnCreate)(&handle), "cusolverDnCreate", where);
        }
        check_cusolver(LOOM_VENDOR(cusolverDnSetStream)(handle, stream_of(exec)),
                       "cusolverDnSetStream", where);
        handle_ = handle;
    }
    cusolverDnHandle_t get() const { return handle_; }

private:
    static std::mutex& mutex()
    {
        static std::mutex m;
        return m;
    }
    static std::unordered_map<int, cusolverDnHandle_t>& handles()
    {
        static auto* map = new std::unordered_map<int, cusolverDnHandle_t>();
        return *map;
    }
    std::lock_guard<std::mutex> lock_;
    cusolverDnHandle_t handle_ = nullptr;
};

}  // namespace loom::cuda
