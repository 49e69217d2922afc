// Loads libloom_cuda, the CUDA backend, and connects libloom's trampolines to it
// (cmake/cuda_boundary.cmake generates both sides' tables from the objects).
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/cuda/backend.hpp"
#include "loom/base/error.hpp"
#include "loom/config.hpp"

#if LOOM_HAS_CUDA
#if LOOM_CUDA_SEPARATE
#define LOOM_HIDDEN __attribute__((visibility("hidden")))
extern "C" {
// libloom's side of the boundary (the generated trampolines.cpp): the mangled name of each
// function and the slot its trampoline jumps through.
LOOM_HIDDEN extern const std::size_t loom_cuda_slot_count;
LOOM_HIDDEN extern const char* const loom_cuda_slot_names[];
LOOM_HIDDEN extern void (*loom_cuda_slots[])();

// Where every slot points before loading. Never reached: a call into the CUDA backend needs a
// CudaExecutor, and making one loads the backend first.
[[noreturn]] LOOM_HIDDEN void loom_cuda_not_loaded()
{
    std::fputs("loom: the CUDA backend was called before libloom_cuda was loaded\n", stderr);
    std::abort();
}
}

namespace loom::detail {
namespace {

std::string readable(const char* mangled)
{
    int status = 0;
    const std::unique_ptr<char, decltype(&std::free)> name{
        abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free};
    return status == 0 ? name.get() : mangled;
}

/// libloom_cuda from libloom's own folder (the build tree, or where both were installed), else
/// by its soname through the loader's search path.
void* open_backend(std::string& error)
{
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&loom_cuda_not_loaded), &self) != 0 &&
        self.dli_fname != nullptr) {
        const std::string_view path{self.dli_fname};
        const auto slash = path.rfind('/');
        if (slash != std::string_view::npos) {
            const std::string beside = std::string(path.substr(0, slash + 1)) + LOOM_CUDA_LIBRARY;
            if (void* handle = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
            error = dlerror();
        }
    }
    if (void* handle = dlopen(LOOM_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL)) return handle;
    error += (error.empty() ? "" : "; ") + std::string(dlerror());
    return nullptr;
}

/// Points every slot at its function in libloom_cuda; the reason when one is missing.
std::string connect(void* backend)
{
    const auto names =
        static_cast<const char* const*>(dlsym(backend, "loom_cuda_function_names"));
    const auto functions =
        static_cast<void (*const*)()>(dlsym(backend, "loom_cuda_functions"));
    if (names == nullptr || functions == nullptr) return "it has no table of functions";
    std::unordered_map<std::string_view, void (*)()> by_name;
    for (std::size_t i = 0; names[i] != nullptr; ++i) by_name.emplace(names[i], functions[i]);
    for (std::size_t i = 0; i < loom_cuda_slot_count; ++i) {
        if (!by_name.contains(loom_cuda_slot_names[i])) {
            return "it lacks " + readable(loom_cuda_slot_names[i]) +
                   " (a libloom_cuda built from other sources than this libloom)";
        }
    }
    for (std::size_t i = 0; i < loom_cuda_slot_count; ++i) {
        loom_cuda_slots[i] = by_name.at(loom_cuda_slot_names[i]);
    }
    return {};
}

/// Empty when loaded, else why not. Once per process (a failure is not retried: the files
/// do not change while it runs).
const std::string& load_error()
{
    static const std::string error = [] {
        std::string reason;
        void* backend = open_backend(reason);
        if (backend == nullptr) return "cannot load " LOOM_CUDA_LIBRARY " (" + reason + ")";
        reason = connect(backend);
        if (!reason.empty()) {
            dlclose(backend);
            return LOOM_CUDA_LIBRARY " does not match this libloom: " + reason;
        }
        return reason;
    }();
    return error;
}

}  // namespace

void load_cuda_backend(const char* where)
{
    if (!load_error().empty()) throw CudaError(where, load_error());
}

bool cuda_backend_loaded() noexcept
{
    try {
        return load_error().empty();
    } catch (...) {
        return false;  // out of memory while loading: as good as no backend
    }
}

}  // namespace loom::detail

#else
// The CUDA objects are part of libloom: nothing to load.
namespace loom::detail {
void load_cuda_backend(const char*) {}
bool cuda_backend_loaded() noexcept { return true; }
}  // namespace loom::detail
#endif
#endif
