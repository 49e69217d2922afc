// The CudaExecutor's parts that need no CUDA runtime, in libloom's core: creating one (which
// loads the CUDA backend first), its name, and its destructor. The destructor is the class's key
// function, so its vtable and type_info live here too: libloom refers to them (Executor::run,
// dynamic_cast), and only functions may be reached in libloom_cuda (cmake/cuda_boundary.cmake).
#include <memory>
#include <string>

#include "base/cuda/backend.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/config.hpp"

#if LOOM_HAS_CUDA
namespace loom {
namespace {
void check_device_id(int device_id, const char* where)
{
    detail::load_cuda_backend(where);
    const int count = detail::cuda_device_count();
    if (count == 0) throw CudaError(where, "no CUDA device is available");
    if (device_id < 0 || device_id >= count) {
        throw OutOfRange(where, "device id", device_id, count);
    }
}
}  // namespace

int CudaExecutor::device_count() noexcept
{
    return detail::cuda_backend_loaded() ? detail::cuda_device_count() : 0;
}

std::shared_ptr<const CudaExecutor> CudaExecutor::create(int device_id)
{
    check_device_id(device_id, "loom::CudaExecutor::create");
    return std::shared_ptr<const CudaExecutor>(new CudaExecutor(device_id, nullptr, true));
}

std::shared_ptr<const CudaExecutor> CudaExecutor::create_on_stream(int device_id, void* stream)
{
    constexpr const char* where = "loom::CudaExecutor::create_on_stream";
    check_device_id(device_id, where);
    detail::cuda_check_stream(device_id, stream, where);
    return std::shared_ptr<const CudaExecutor>(new CudaExecutor(device_id, stream, false));
}

CudaExecutor::~CudaExecutor()
{
    detail::cuda_release(device_id_, stream_, owns_stream_, cusparse_, cublas_);
}

std::string CudaExecutor::name() const { return "cuda:" + std::to_string(device_id_); }

}  // namespace loom
#endif
