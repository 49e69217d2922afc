// cuSPARSE, cuBLAS and cuSOLVER are loaded when Loom first calls them, not when libloom is
// loaded: together they are ~850 MB of shared objects whose loading took 0.3 s of every process
// start (each test, each `loom --help`), also for users who never create a CUDA executor.
//
// A vendor call is written with the function's own name:
//     LOOM_VENDOR(cusparseSpMV)(handle, op, ...);
// `decltype(&::cusparseSpMV)` gives the signature without referencing the symbol, so libloom
// has no link-time dependency on the library; the first call at each site looks it up.
#pragma once

#include <string>

namespace loom::cuda::vendor {

/// The address of the vendor function `name`, from the library its prefix names (cusparse*,
/// cublas*, cusolver*), loading that library first if needed. Raises loom::Error naming the
/// library and the loader's reason when either is missing.
void* symbol(const char* name);

/// A vendor function looked up once, called with its own signature.
template <typename F>
class Function;

template <typename R, typename... Args>
class Function<R (*)(Args...)> {
public:
    explicit Function(const char* name) : call_{reinterpret_cast<R (*)(Args...)>(symbol(name))} {}
    R operator()(Args... args) const { return call_(args...); }

private:
    R (*call_)(Args...);
};

/// A failed call's text as written, for error messages: `LOOM_VENDOR(f)(args)` reads `f(args)`.
std::string call_text(const char* call);

}  // namespace loom::cuda::vendor

// A static per call site: thread-safe initialisation, and a failed lookup is retried next call.
// Two levels so that `fn` is macro-expanded first: cuBLAS's `cublasDgemm` names the symbol
// `cublasDgemm_v2` (the unsuffixed one is the legacy API with another signature).
#define LOOM_VENDOR(fn) LOOM_VENDOR_FUNCTION(fn)
#define LOOM_VENDOR_FUNCTION(fn)                                                  \
    ([]() -> const ::loom::cuda::vendor::Function<decltype(&::fn)>& {             \
        static const ::loom::cuda::vendor::Function<decltype(&::fn)> loaded{#fn}; \
        return loaded;                                                            \
    }())
