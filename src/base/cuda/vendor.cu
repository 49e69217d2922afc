#include "base/cuda/vendor.hpp"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

#include "loom/base/error.hpp"

namespace loom::cuda::vendor {
namespace {

/// One vendor library: the prefix of its functions, the name it is loaded by (its soname,
/// found through libloom's run path and the loader's search path) and, failing that, where the
/// build found it.
struct Library {
    const char* prefix;
    const char* soname;
    const char* build_path;
};

// The names come from CMake (the libraries this build compiled against).
constexpr Library libraries[] = {
    {"cusparse", LOOM_CUSPARSE_SONAME, LOOM_CUSPARSE_PATH},
    {"cublas", LOOM_CUBLAS_SONAME, LOOM_CUBLAS_PATH},
    {"cusolver", LOOM_CUSOLVER_SONAME, LOOM_CUSOLVER_PATH},
};

const Library& library_of(const char* name)
{
    for (const auto& library : libraries) {
        if (std::string_view{name}.starts_with(library.prefix)) return library;
    }
    throw NotSupported("loom::cuda::vendor::symbol",
                       std::string("no vendor library provides ") + name);
}

void* load(const Library& library)
{
    static std::mutex mutex;
    static void* handles[std::size(libraries)] = {};
    const std::lock_guard lock{mutex};
    void*& handle = handles[&library - libraries];
    if (handle != nullptr) return handle;
    handle = dlopen(library.soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) handle = dlopen(library.build_path, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        throw CudaError("loom::cuda::vendor::symbol",
                        std::string("cannot load ") + library.soname + " (" + dlerror() + ")");
    }
    return handle;
}

}  // namespace

void* symbol(const char* name)
{
    const Library& library = library_of(name);
    void* address = dlsym(load(library), name);
    if (address == nullptr) {
        throw CudaError("loom::cuda::vendor::symbol",
                        std::string(library.soname) + " has no " + name);
    }
    return address;
}

std::string call_text(const char* call)
{
    constexpr std::string_view macro = "LOOM_VENDOR(";
    std::string text{call};
    if (!text.starts_with(macro)) return text;
    const auto close = text.find(')');
    return text.substr(macro.size(), close - macro.size()) + text.substr(close + 1);
}

}  // namespace loom::cuda::vendor
