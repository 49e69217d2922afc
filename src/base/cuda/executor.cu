#include <cstdint>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "base/cuda/backend.hpp"
#include "base/cuda/helpers.cuh"
#include "base/cuda/memory.hpp"
#include "base/cuda/vendor.hpp"
#include "loom/base/resources.hpp"

namespace loom {
// Only switches when needed: cudaSetDevice is cheap but not free, and the common case is one
// device.
CudaExecutor::DeviceScope::DeviceScope(int device) : device_(device)
{
    cudaGetDevice(&previous_);
    if (previous_ != device) cudaSetDevice(device);
}

CudaExecutor::DeviceScope::~DeviceScope()
{
    if (previous_ != device_) cudaSetDevice(previous_);
}

namespace detail {

int cuda_device_count() noexcept
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no driver" error
        return 0;
    }
    return count;
}

void cuda_check_stream([[maybe_unused]] int device_id, [[maybe_unused]] void* stream,
                       [[maybe_unused]] const char* where)
{
#if CUDART_VERSION >= 12080
    // Work queued on another device's stream would run on the wrong device: refuse it here
    // rather than fail in the first kernel.
    const CudaExecutor::DeviceScope scope(device_id);
    int stream_device = -1;
    const auto status = cudaStreamGetDevice(static_cast<cudaStream_t>(stream), &stream_device);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw BadInput(where,
                       std::string("not a usable CUDA stream: ") + cudaGetErrorString(status));
    }
    if (stream_device != device_id) {
        throw BadInput(where, "the stream belongs to device " + std::to_string(stream_device) +
                                  ", not to device " + std::to_string(device_id));
    }
#endif
}

void cuda_release(int device_id, void* stream, bool owns_stream, void* cusparse,
                  void* cublas) noexcept
{
    const CudaExecutor::DeviceScope scope(device_id);
    if (cusparse) LOOM_VENDOR(cusparseDestroy)(static_cast<cusparseHandle_t>(cusparse));
    if (cublas) LOOM_VENDOR(cublasDestroy)(static_cast<cublasHandle_t>(cublas));
    if (owns_stream) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

}  // namespace detail

CudaExecutor::CudaExecutor(int device_id, void* stream, bool owns_stream)
    : device_id_(device_id), stream_(stream), owns_stream_(owns_stream)
{
    constexpr const char* where = "loom::CudaExecutor";
    const CudaExecutor::DeviceScope scope(device_id);
    if (owns_stream_) {
        cudaStream_t own{};
        LOOM_CUDA_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), where);
        stream_ = own;
    }
    cudaDeviceProp prop{};
    LOOM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_id), where);
    sm_count_ = prop.multiProcessorCount;
    // Allocations are stream-ordered (cudaMallocAsync); keep freed memory in the device's
    // pool instead of returning it at every synchronization, so that scratch buffers of
    // small kernels (a dot's partial sums) cost no driver round trip.
    cudaMemPool_t pool{};
    LOOM_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device_id), where);
    std::uint64_t keep = UINT64_MAX;
    LOOM_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), where);
    l2_bytes_ = static_cast<std::size_t>(prop.l2CacheSize);
}

void* CudaExecutor::alloc_bytes(std::size_t bytes) const
{
    if (bytes == 0) return nullptr;
    const CudaExecutor::DeviceScope scope(device_id_);
    void* ptr = nullptr;
    const auto status = cudaMallocAsync(&ptr, bytes, static_cast<cudaStream_t>(stream_));
    if (status != cudaSuccess) {
        cudaGetLastError();
        if (status == cudaErrorMemoryAllocation) {
            std::size_t free = 0, total = 0;
            if (cudaMemGetInfo(&free, &total) != cudaSuccess) cudaGetLastError();
            throw OutOfMemory("loom::CudaExecutor::alloc_bytes", "memory on " + name(), bytes,
                              free);
        }
        throw AllocationError("loom::CudaExecutor::alloc_bytes",
                              "could not allocate " + std::to_string(bytes) + " bytes on " +
                                  name() + ": " + cudaGetErrorString(status));
    }
    return ptr;
}

void CudaExecutor::free_bytes(void* ptr) const noexcept
{
    if (ptr == nullptr) return;
    const CudaExecutor::DeviceScope scope(device_id_);
    // Kernels still queued may use the memory: free in stream order (allocated likewise).
    cudaFreeAsync(ptr, static_cast<cudaStream_t>(stream_));
}

void CudaExecutor::synchronize() const
{
    const CudaExecutor::DeviceScope scope(device_id_);
    LOOM_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)),
                    "loom::CudaExecutor::synchronize");
}

void* CudaExecutor::cusparse_handle() const
{
    if (cusparse_ == nullptr) {
        const CudaExecutor::DeviceScope scope(device_id_);
        cusparseHandle_t handle{};
        if (LOOM_VENDOR(cusparseCreate)(&handle) != CUSPARSE_STATUS_SUCCESS) {
            throw CudaError("loom::CudaExecutor::cusparse_handle", "cusparseCreate failed");
        }
        LOOM_VENDOR(cusparseSetStream)(handle, static_cast<cudaStream_t>(stream_));
        cusparse_ = handle;
    }
    return cusparse_;
}

void* CudaExecutor::cublas_handle() const
{
    if (cublas_ == nullptr) {
        const CudaExecutor::DeviceScope scope(device_id_);
        cublasHandle_t handle{};
        if (LOOM_VENDOR(cublasCreate)(&handle) != CUBLAS_STATUS_SUCCESS) {
            throw CudaError("loom::CudaExecutor::cublas_handle", "cublasCreate failed");
        }
        LOOM_VENDOR(cublasSetStream)(handle, static_cast<cudaStream_t>(stream_));
        cublas_ = handle;
    }
    return cublas_;
}

namespace detail {

void cuda_copy(const Executor& dst_exec, const Executor& src_exec, std::size_t bytes,
               const void* src, void* dst)
{
    constexpr const char* where = "loom::Executor::copy_from";
    const bool dst_cuda = dst_exec.kind() == ExecKind::cuda;
    const bool src_cuda = src_exec.kind() == ExecKind::cuda;
    const auto& cuda_exec = static_cast<const CudaExecutor&>(dst_cuda ? dst_exec : src_exec);
    const CudaExecutor::DeviceScope scope(cuda_exec.device_id());
    auto stream = static_cast<cudaStream_t>(cuda_exec.stream());
    if (dst_cuda && src_cuda) {
        const auto& s = static_cast<const CudaExecutor&>(src_exec);
        const auto& d = static_cast<const CudaExecutor&>(dst_exec);
        if (&s != &d) s.synchronize();  // the source may still be written on its own stream
        if (s.device_id() == d.device_id()) {
            LOOM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream),
                            where);
        } else {
            LOOM_CUDA_CHECK(
                cudaMemcpyPeerAsync(dst, d.device_id(), src, s.device_id(), bytes, stream), where);
        }
        return;  // stream-ordered on the destination
    }
    const auto kind = dst_cuda ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    LOOM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream), where);
    LOOM_CUDA_CHECK(cudaStreamSynchronize(stream), where);
}

}  // namespace detail
}  // namespace loom
