// Loads libloom_cuda, the CUDA backend, and connects libloom's trampolines to it
// (cmake/cuda_boundary.cmake generates both sides' tables from the objects). loom_distributed
// compiles this file too, for its own CUDA side (libloom_distributed_cuda): every name here is
// hidden, so each library has its own loader and slots.
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "base/cuda/backend.hpp"
#include "loom/base/error.hpp"
#include "loom/config.hpp"

#if LOOM_HAS_CUDA
#if LOOM_CUDA_SEPARATE
#define LOOM_HIDDEN __attribute__((visibility("hidden")))
using CudaFunction = void (*)();
extern "C" {
// This library's side of the boundary (the generated trampolines.cpp): the file name of its
// CUDA side, the mangled name of each function, and the slot its trampoline jumps through.
LOOM_HIDDEN extern const char loom_cuda_library[];
LOOM_HIDDEN extern const std::size_t loom_cuda_slot_count;
LOOM_HIDDEN extern const char* const loom_cuda_slot_names[];
LOOM_HIDDEN extern CudaFunction loom_cuda_slots[];
LOOM_HIDDEN CudaFunction loom_cuda_resolve(std::size_t slot) noexcept;
}

// Until the library is loaded, slot i points at a stub that pushes i and jumps here: the
// arguments of the interrupted call are kept (every register that may carry one), the library
// is loaded, and the call continues into the function the slot then holds, as the dynamic
// linker's lazy binding does. libloom loads explicitly when a CudaExecutor is made (an error
// there is an exception); this is the path for a call that comes first, e.g. from
// loom_distributed's CUDA side.
__asm__(R"(
.pushsection .text
.globl loom_cuda_lazy
.hidden loom_cuda_lazy
.type loom_cuda_lazy, @function
.p2align 4
loom_cuda_lazy:
    push %rbp
    mov %rsp, %rbp
    sub $192, %rsp
    and $-16, %rsp
    mov %rdi, 0(%rsp)
    mov %rsi, 8(%rsp)
    mov %rdx, 16(%rsp)
    mov %rcx, 24(%rsp)
    mov %r8, 32(%rsp)
    mov %r9, 40(%rsp)
    mov %rax, 48(%rsp)
    mov %r10, 56(%rsp)
    movdqa %xmm0, 64(%rsp)
    movdqa %xmm1, 80(%rsp)
    movdqa %xmm2, 96(%rsp)
    movdqa %xmm3, 112(%rsp)
    movdqa %xmm4, 128(%rsp)
    movdqa %xmm5, 144(%rsp)
    movdqa %xmm6, 160(%rsp)
    movdqa %xmm7, 176(%rsp)
    mov 8(%rbp), %rdi
    call loom_cuda_resolve
    mov %rax, %r11
    mov 0(%rsp), %rdi
    mov 8(%rsp), %rsi
    mov 16(%rsp), %rdx
    mov 24(%rsp), %rcx
    mov 32(%rsp), %r8
    mov 40(%rsp), %r9
    mov 48(%rsp), %rax
    mov 56(%rsp), %r10
    movdqa 64(%rsp), %xmm0
    movdqa 80(%rsp), %xmm1
    movdqa 96(%rsp), %xmm2
    movdqa 112(%rsp), %xmm3
    movdqa 128(%rsp), %xmm4
    movdqa 144(%rsp), %xmm5
    movdqa 160(%rsp), %xmm6
    movdqa 176(%rsp), %xmm7
    mov %rbp, %rsp
    pop %rbp
    add $8, %rsp
    jmp *%r11
.size loom_cuda_lazy, .-loom_cuda_lazy
.popsection
)");

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
    if (dladdr(reinterpret_cast<void*>(&loom_cuda_resolve), &self) != 0 &&
        self.dli_fname != nullptr) {
        const std::string_view path{self.dli_fname};
        const auto slash = path.rfind('/');
        if (slash != std::string_view::npos) {
            const std::string beside = std::string(path.substr(0, slash + 1)) + loom_cuda_library;
            if (void* handle = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
            error = dlerror();
        }
    }
    if (void* handle = dlopen(loom_cuda_library, RTLD_NOW | RTLD_LOCAL)) return handle;
    error += (error.empty() ? "" : "; ") + std::string(dlerror());
    return nullptr;
}

/// Points every slot at its function in the library; the reason when one is missing (then no
/// slot is changed). Both lists of names are sorted (cmake/cuda_boundary.cmake): one walk
/// matches them.
std::string connect(void* library)
{
    const auto names = static_cast<const char* const*>(dlsym(library, "loom_cuda_function_names"));
    const auto functions = static_cast<const CudaFunction*>(dlsym(library, "loom_cuda_functions"));
    if (names == nullptr || functions == nullptr) return "it has no table of functions";
    const auto match = [&](bool fill) -> std::string {
        std::size_t found = 0;
        for (std::size_t slot = 0; slot < loom_cuda_slot_count; ++slot) {
            const char* wanted = loom_cuda_slot_names[slot];
            while (names[found] != nullptr && std::strcmp(names[found], wanted) < 0) ++found;
            if (names[found] == nullptr || std::strcmp(names[found], wanted) != 0) {
                return "it lacks " + readable(wanted) +
                       " (built from other sources than its caller)";
            }
            if (fill) loom_cuda_slots[slot] = functions[found];
        }
        return {};
    };
    std::string missing = match(false);
    if (missing.empty()) match(true);
    return missing;
}

/// Empty when loaded, else why not. Once per process (a failure is not retried: the files
/// do not change while it runs).
const std::string& load_error()
{
    static const std::string error = [] {
        std::string reason;
        void* backend = open_backend(reason);
        if (backend == nullptr) {
            return "cannot load " + std::string(loom_cuda_library) + " (" + reason + ")";
        }
        reason = connect(backend);
        if (!reason.empty()) {
            dlclose(backend);
            return std::string(loom_cuda_library) + " does not match its caller: " + reason;
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

CudaFunction loom_cuda_resolve(std::size_t slot) noexcept
{
    const std::string& error = loom::detail::load_error();
    if (!error.empty()) {
        // No way to report it to the caller, which called a plain function.
        std::fprintf(stderr, "loom: %s\n", error.c_str());
        std::abort();
    }
    return loom_cuda_slots[slot];
}

#else
// The CUDA objects are part of libloom: nothing to load.
namespace loom::detail {
void load_cuda_backend(const char*) {}
bool cuda_backend_loaded() noexcept { return true; }
}  // namespace loom::detail
#endif
#endif
