#include "loom/base/executor.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "base/cuda/memory.hpp"
#include "loom/base/array.hpp"  // declares detail::host_executor (exported from there)
#include "loom/base/error.hpp"
#include "loom/base/resources.hpp"
#include "loom/config.hpp"

#if LOOM_HAS_OPENMP
#include <omp.h>
#endif

namespace loom {
namespace {

constexpr std::size_t host_alignment = 64;

void* host_alloc(std::size_t bytes, const char* where)
{
    if (bytes == 0) return nullptr;
    std::size_t rounded = (bytes + host_alignment - 1) / host_alignment * host_alignment;
    void* ptr = std::aligned_alloc(host_alignment, rounded);
    if (ptr == nullptr) {
        const auto available = static_cast<std::size_t>(::sysconf(_SC_AVPHYS_PAGES)) *
                               static_cast<std::size_t>(::sysconf(_SC_PAGE_SIZE));
        throw OutOfMemory(where, "host memory", bytes, available);
    }
    return ptr;
}

}  // namespace

void Executor::copy_from(const Executor& src_exec, std::size_t bytes, const void* src,
                         void* dst) const
{
    if (bytes == 0 || src == dst) return;
    if (is_host() && src_exec.is_host()) {
        std::memcpy(dst, src, bytes);
    } else {
        detail::cuda_copy(*this, src_exec, bytes, src, dst);
    }
}

bool Executor::same_memory_as(const Executor& other) const noexcept
{
    if (is_host() && other.is_host()) return true;
    if (kind() == ExecKind::cuda && other.kind() == ExecKind::cuda) {
        return static_cast<const CudaExecutor&>(*this).device_id() ==
               static_cast<const CudaExecutor&>(other).device_id();
    }
    return false;
}

std::shared_ptr<const ReferenceExecutor> ReferenceExecutor::create()
{
    return std::shared_ptr<const ReferenceExecutor>(new ReferenceExecutor());
}

void* ReferenceExecutor::alloc_bytes(std::size_t bytes) const
{
    return host_alloc(bytes, "loom::ReferenceExecutor::alloc_bytes");
}

void ReferenceExecutor::free_bytes(void* ptr) const noexcept { std::free(ptr); }

bool OmpExecutor::available() noexcept { return LOOM_HAS_OPENMP; }

std::shared_ptr<const OmpExecutor> OmpExecutor::create(int num_threads)
{
    // 0 is the OpenMP default; above max_omp_threads the OpenMP runtime can crash.
    if (num_threads < 0 || num_threads > max_omp_threads) {
        throw BadInput("loom::OmpExecutor::create",
                       "the thread count must lie in [1, " + std::to_string(max_omp_threads) +
                           "] (0: the OpenMP default), got " + std::to_string(num_threads));
    }
#if LOOM_HAS_OPENMP
    if (num_threads == 0) num_threads = std::min(omp_get_max_threads(), max_omp_threads);
    return std::shared_ptr<const OmpExecutor>(new OmpExecutor(num_threads));
#else
    (void)num_threads;
    throw NotCompiled("loom::OmpExecutor::create", "the OpenMP backend");
#endif
}

void* OmpExecutor::alloc_bytes(std::size_t bytes) const
{
    return host_alloc(bytes, "loom::OmpExecutor::alloc_bytes");
}

void OmpExecutor::free_bytes(void* ptr) const noexcept { std::free(ptr); }

std::shared_ptr<const Executor> make_executor(const std::string& name)
{
    const auto [kind, device] = parse_executor_name(name);
    switch (kind) {
    case ExecKind::reference: return ReferenceExecutor::create();
    case ExecKind::omp: return OmpExecutor::create();
    default: return CudaExecutor::create(device);
    }
}

ExecutorName parse_executor_name(const std::string& name)
{
    const auto colon = name.find(':');
    const auto kind = names_of(ExecKind{}).find(std::string_view(name).substr(0, colon));
    if (kind && colon == std::string::npos) return {*kind};
    const auto device = name.substr(colon + 1);
    // Up to 5 digits: std::stoi cannot overflow, and no machine has more devices.
    if (kind == ExecKind::cuda && !device.empty() && device.size() <= 5 &&
        device.find_first_not_of("0123456789") == std::string::npos) {
        return {ExecKind::cuda, std::stoi(device)};
    }
    throw BadInput("loom::parse_executor_name", names_of(ExecKind{}).unknown(name, "cuda:N"));
}

namespace detail {
std::shared_ptr<const Executor> host_executor()
{
    static const auto exec = ReferenceExecutor::create();
    return exec;
}
}  // namespace detail

}  // namespace loom
