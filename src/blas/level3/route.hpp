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

/// The call size (multiply-adds, or the order of a factorization) from which the vendor
/// library is the faster one, per kind of memory; each routine's values and the measurement
/// behind them are in crossovers below.
struct Crossover {
    double host;  ///< OpenBLAS/LAPACK against the OpenMP kernels
    double cuda;  ///< cuBLAS/cuSOLVER against the CUDA kernels
};

/// Default crossovers. Host: `loom bench gemm --threads 1 --routine R` with
/// OPENBLAS_NUM_THREADS=1 on the 2-core development machine (OpenBLAS 0.3.21, double, shapes
/// 2..256): OpenBLAS was 5-20x faster for gemm and gemv at every shape, and for gemm_dot at
/// every tall-skinny shape tried (m, n 1..64, k 1e4..1e5); trsm and trmm tied up to 32 and
/// lost from 64 on (2-10x); getrf was faster natively at 16, 2.4x slower at 32; trtri tied
/// up to 32. CUDA: `loom bench gemm --exec cuda --routine R` on an H200 (double): native gemm
/// won up to 64^3 (0.0101 vs 0.0131 ms), cuBLAS from 128^3 (1.75x, 5.6x at 4096^3: its FP64
/// tensor cores); gemv native up to 1024^2, cuBLAS at 8192^2 (1.14x); gemm_dot: cuBLAS 7.6x at
/// C 8 x 8 (k 1e7), tied at 1 x 1; trsm cuBLAS 1.2x at 32^3, 6x at 4096^3; getrf cuSOLVER
/// 1.15x at 32, 10x at 2048; trtri native 2x faster at 16, tied at 64, cuSOLVER 61x at 2048.
namespace crossovers {
inline constexpr Crossover gemm{0, 100 * 100 * 100};
inline constexpr Crossover gemv{0, 4096 * 4096};
inline constexpr Crossover gemm_dot{0, 2};  // the size is the entries of C
inline constexpr Crossover triangular{32 * 32 * 32, 32 * 32 * 32};
inline constexpr Crossover getrf{32, 32};
inline constexpr Crossover trtri{64, 64};
}  // namespace crossovers

/// Backend::vendor without a vendor library raises NotCompiled; automatic keeps the reference
/// executor native (it is the oracle), uses a host BLAS only when built with one, and
/// otherwise picks the vendor from the crossover on.
inline Route choose_route(const char* where, const Executor& exec, Backend backend, double size,
                          Crossover crossover)
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
        return size >= (exec.kind() == ExecKind::cuda ? crossover.cuda : crossover.host)
                   ? Route::vendor
                   : Route::native;
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
