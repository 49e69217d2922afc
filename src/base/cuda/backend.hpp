// The CUDA backend as libloom's core sees it: loading it, and the executor's entry points that
// need the CUDA runtime (defined in executor.cu). Where the backend is a library of its own
// (libloom_cuda, CMakeLists.txt), it is loaded when the first CudaExecutor is made or the
// devices are counted: a CPU-only process never loads the CUDA runtime.
#pragma once

namespace loom::detail {

/// Loads libloom_cuda (once; nothing to do where the CUDA objects are part of libloom).
/// CudaError naming the library and the reason when it cannot be loaded or does not match.
void load_cuda_backend(const char* where);
/// The same, false instead of the error.
bool cuda_backend_loaded() noexcept;

/// Number of usable CUDA devices; 0 when there is no driver or device.
int cuda_device_count() noexcept;
/// BadInput when `stream` is not a stream of device `device_id` (where CUDA can tell).
void cuda_check_stream(int device_id, void* stream, const char* where);
/// Destroys what a CudaExecutor created: its library handles and, if owned, its stream.
void cuda_release(int device_id, void* stream, bool owns_stream, void* cusparse,
                  void* cublas) noexcept;

}  // namespace loom::detail
