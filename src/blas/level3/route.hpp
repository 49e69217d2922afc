// Native or vendor: the choice behind blas::Backend, shared by BLAS and LAPACK dispatch.
#pragma once

#include "base/dispatch.hpp"
#include "loom/base/executor.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/config.hpp"

namespace loom::blas::detail {

enum class Route { native, vendor };

/// Whether this build has a vendor library for the executor's memory.
inline bool vendor_compiled(const Executor& exec)
{
    return exec.kind() == ExecKind::cuda ? bool(LOOM_HAS_CUDA) : bool(LOOM_HAS_BLAS);
}

/// `vendor_wins`: whether, on this executor and shape, the vendor library is the faster one.
/// Backend::vendor without a vendor library raises NotCompiled; automatic keeps the reference
/// executor native (it is the oracle) and uses a host BLAS only when built with one.
inline Route choose_route(const char* where, const Executor& exec, Backend backend,
                          bool vendor_wins)
{
    switch (backend) {
    case Backend::native: return Route::native;
    case Backend::vendor:
        if (!vendor_compiled(exec)) {
            throw NotCompiled(where, "a host BLAS/LAPACK (reconfigure with LOOM_WITH_BLAS=ON)");
        }
        return Route::vendor;
    default:
        if (exec.kind() == ExecKind::reference || !vendor_compiled(exec)) return Route::native;
        return vendor_wins ? Route::vendor : Route::native;
    }
}

}  // namespace loom::blas::detail

#if LOOM_HAS_CUDA
#define LOOM_CUDA_VENDOR(...) __VA_ARGS__
#else
#define LOOM_CUDA_VENDOR(...) false
#endif
#if LOOM_HAS_BLAS
#define LOOM_HOST_VENDOR(...) __VA_ARGS__
#else
#define LOOM_HOST_VENDOR(...) false
#endif

/// True when the route is vendor and the library took the call: cuda_ns::fn(exec, args...)
/// on CUDA, host_ns::fn(args...) on the host. False sends the caller down the native path.
#define LOOM_TRY_VENDOR(route, exec, cuda_ns, host_ns, fn, ...)                                \
    ((route) == ::loom::blas::detail::Route::vendor &&                                         \
     (exec).run(::loom::detail::overloaded{                                                    \
         [&]([[maybe_unused]] const ::loom::CudaExecutor& e) -> bool {                         \
             return LOOM_CUDA_VENDOR(cuda_ns::fn(e, __VA_ARGS__));                             \
         },                                                                                    \
         [&](const auto&) -> bool { return LOOM_HOST_VENDOR(host_ns::fn(__VA_ARGS__)); }}))
