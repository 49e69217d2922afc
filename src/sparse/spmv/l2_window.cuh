// An L2 access-policy window that keeps one array (SpMV's x) in the persisting part of the L2
// cache while the kernels queued in its lifetime run: set on the executor's stream when the
// array fits the device's persisting L2, the stream's previous window restored on
// destruction. Used by the CUDA SpMV (CUDA_NOTES.md, "L2 persistence window").
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>

#include <cuda_runtime.h>

#include "base/cuda/helpers.cuh"
#include "loom/base/executor.hpp"

namespace loom::sparse::cuda {

/// What the device offers for persisting accesses (bytes; 0 where it has none).
struct PersistingL2 {
    std::size_t max_set_aside = 0;  ///< cudaDevAttrMaxPersistingL2CacheSize
    std::size_t max_window = 0;     ///< cudaDevAttrMaxAccessPolicyWindowSize
};

inline PersistingL2 query_persisting_l2(int device)
{
    int set_aside = 0;
    int window = 0;
    if (cudaDeviceGetAttribute(&set_aside, cudaDevAttrMaxPersistingL2CacheSize, device) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, device) !=
            cudaSuccess) {
        (void)cudaGetLastError();  // an attribute the driver lacks: no window, not an error
        return {};
    }
    return {static_cast<std::size_t>(set_aside), static_cast<std::size_t>(window)};
}

/// query_persisting_l2, asked once per device (every SpMV on irregular rows looks at it).
inline PersistingL2 persisting_l2_of(int device)
{
    static std::mutex mutex;
    static std::map<int, PersistingL2> known;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = known.find(device);
    if (found != known.end()) return found->second;
    return known[device] = query_persisting_l2(device);
}

/// True when `bytes` fit the persisting L2 of exec's device.
inline bool fits_persisting_l2(const CudaExecutor& exec, std::size_t bytes)
{
    const auto l2 = persisting_l2_of(exec.device_id());
    return bytes > 0 && bytes <= l2.max_set_aside && bytes <= l2.max_window;
}

/// While alive, accesses to [base, base + bytes) from exec's stream are persisting (misses
/// beyond the hit ratio streaming). The device's set-aside (cudaLimitPersistingL2CacheSize,
/// device-wide) is raised to cover the window if it is smaller, and left so: lowering it again
/// on every call would flush the lines the next call wants. Lines stay persisting after the
/// window closes until another window's persisting lines displace them (or the application
/// calls cudaCtxResetPersistingL2Cache, which is not stream-ordered and so not called here).
/// Does nothing when the range does not fit or the stream takes no attribute.
class PersistingWindow {
public:
    PersistingWindow(const CudaExecutor& exec, const void* base, std::size_t bytes)
        : stream_(loom::cuda::stream_of(exec))
    {
        if (!fits_persisting_l2(exec, bytes)) return;
        std::size_t set_aside = 0;
        if (cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
            (void)cudaGetLastError();
            return;
        }
        if (set_aside < bytes) {
            if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes) == cudaSuccess) {
                set_aside = bytes;
            } else {
                (void)cudaGetLastError();  // e.g. under MIG: keep what is set aside
            }
        }
        if (set_aside == 0) return;
        if (cudaStreamGetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &previous_) !=
            cudaSuccess) {
            (void)cudaGetLastError();
            return;
        }
        cudaStreamAttrValue window{};
        window.accessPolicyWindow.base_ptr = const_cast<void*>(base);
        window.accessPolicyWindow.num_bytes = bytes;
        // More lines than the set-aside holds would evict each other: ask for what fits.
        window.accessPolicyWindow.hitRatio =
            static_cast<float>(std::min(1.0, static_cast<double>(set_aside) / bytes));
        window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        active_ = cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &window) ==
                  cudaSuccess;
        if (!active_) (void)cudaGetLastError();
    }

    ~PersistingWindow()
    {
        if (!active_) return;
        // Restoring cannot fail for an attribute just read from this stream; nothing to report
        // from a destructor anyway.
        if (cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &previous_) !=
            cudaSuccess) {
            (void)cudaGetLastError();
        }
    }

    PersistingWindow(const PersistingWindow&) = delete;
    PersistingWindow& operator=(const PersistingWindow&) = delete;

    bool active() const noexcept { return active_; }

private:
    cudaStream_t stream_;
    cudaStreamAttrValue previous_{};
    bool active_ = false;
};

}  // namespace loom::sparse::cuda
