// Without the CUDA backend the CudaExecutor exists as a type, but creating one raises
// NotCompiled, and nothing of CUDA is linked.
#include "base/cuda/memory.hpp"
#include "loom/base/error.hpp"
#include "loom/config.hpp"

#if !LOOM_HAS_CUDA
namespace loom {
namespace {
[[noreturn]] void not_compiled(const char* where)
{
    throw NotCompiled(where, "the CUDA backend");
}
}  // namespace

int CudaExecutor::device_count() noexcept { return 0; }
std::shared_ptr<const CudaExecutor> CudaExecutor::create(int)
{
    not_compiled("loom::CudaExecutor::create");
}
std::shared_ptr<const CudaExecutor> CudaExecutor::create_on_stream(int, void*)
{
    not_compiled("loom::CudaExecutor::create_on_stream");
}
CudaExecutor::CudaExecutor(int device_id, void*, bool) : device_id_(device_id) {}
CudaExecutor::DeviceScope::DeviceScope(int device) : device_(device) {}
CudaExecutor::DeviceScope::~DeviceScope() = default;
CudaExecutor::~CudaExecutor() = default;
std::string CudaExecutor::name() const { return "cuda"; }
void* CudaExecutor::alloc_bytes(std::size_t) const { not_compiled("loom::CudaExecutor"); }
void CudaExecutor::free_bytes(void*) const noexcept {}
void CudaExecutor::synchronize() const {}
void* CudaExecutor::cusparse_handle() const { not_compiled("loom::CudaExecutor"); }
void* CudaExecutor::cublas_handle() const { not_compiled("loom::CudaExecutor"); }

namespace detail {
void cuda_copy(const Executor&, const Executor&, std::size_t, const void*, void*)
{
    not_compiled("loom::Executor::copy_from");
}
}  // namespace detail
}  // namespace loom
#endif
