// How a public kernel function reaches a backend that may not be compiled in.
//
// The common case, a kernel family with the same entry point in each backend namespace:
//     LOOM_RUN_KERNEL("loom::sparse::transpose", *A.executor(), transpose, A, conjugate, result);
// calls reference::transpose(e, A, conjugate, result), omp::transpose(e, ...) or
// cuda::transpose(e, ...) with `e` the concrete executor, and gives back what the kernel returns.
//
// A family whose backends differ (a vendor route on CUDA, host code written inline) writes the
// visitor itself and wraps each backend call:
//     [&](const OmpExecutor& e) { LOOM_OMP_CALL("loom::sparse::spmv", omp::spmv(e, ...)); }
// Without that backend the call is never referenced (so never linked) and NotCompiled is raised.
#pragma once

#include <utility>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/config.hpp"

namespace loom::detail {

/// Builds one visitor out of several lambdas.
template <typename... F>
struct overloaded : F... {
    using F::operator()...;
};
template <typename... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace loom::detail

#if LOOM_HAS_OPENMP
#define LOOM_OMP_CALL(where, ...) __VA_ARGS__
#else
#define LOOM_OMP_CALL(where, ...) throw ::loom::NotCompiled(where, "the OpenMP backend")
#endif

#if LOOM_HAS_CUDA
#define LOOM_CUDA_CALL(where, ...) __VA_ARGS__
#else
#define LOOM_CUDA_CALL(where, ...) throw ::loom::NotCompiled(where, "the CUDA backend")
#endif

/// Declares a kernel family's entry points once per backend, in the namespaces
/// LOOM_RUN_KERNEL reaches: DECLARE(ReferenceExecutor) in ns::reference, DECLARE(OmpExecutor)
/// in ns::omp and DECLARE(CudaExecutor) in ns::cuda, where DECLARE(Exec) is the family's
/// declaration list (its kernels.hpp) and ns its namespace (loom::sparse, loom::blas, ...).
#define LOOM_DECLARE_ON_EACH_BACKEND(ns, DECLARE)      \
    namespace ns::reference {                          \
    DECLARE(::loom::ReferenceExecutor);                \
    }                                                  \
    namespace ns::omp {                                \
    DECLARE(::loom::OmpExecutor);                      \
    }                                                  \
    namespace ns::cuda {                               \
    DECLARE(::loom::CudaExecutor);                     \
    }

/// The same for a family whose simple kernels are written once for OpenMP and CUDA on the
/// unified launchers (its unified.hpp, base/parallel.hpp): OWN(Exec) lists the kernels each
/// backend writes itself, SHARED(Exec, ...) the shared ones, with the extra template
/// parameters in `...` (`typename Exec,` in ns::unified, nothing elsewhere). The reference
/// backend declares both lists; OpenMP and CUDA declare their own and take the shared ones from
/// ns::unified through a using-directive (omp::fill(exec, ...) finds unified::fill). An
/// instantiation names them ns::unified::kernel.
#define LOOM_DECLARE_ON_EACH_BACKEND_UNIFIED(ns, OWN, SHARED) \
    namespace ns::reference {                                 \
    OWN(::loom::ReferenceExecutor);                           \
    SHARED(::loom::ReferenceExecutor, );                      \
    }                                                         \
    namespace ns::unified {                                   \
    SHARED(Exec, typename Exec, );                            \
    }                                                         \
    namespace ns::omp {                                       \
    OWN(::loom::OmpExecutor);                                 \
    using namespace unified;                                  \
    }                                                         \
    namespace ns::cuda {                                      \
    OWN(::loom::CudaExecutor);                                \
    using namespace unified;                                  \
    }

// One backend per three lines reads better than the formatter's wrapping of the macros below.
// clang-format off
/// The type `reference::kernel(e, args...)` returns; every backend of a family returns it too.
#define LOOM_KERNEL_RESULT(kernel, ...)                                                        \
    decltype(reference::kernel(std::declval<const ::loom::ReferenceExecutor&>(), __VA_ARGS__))

/// Runs `kernel` on the backend of `exec` (a `const Executor&`, not a pointer) and returns its
/// result: reference::kernel(e, args...), omp::kernel(e, args...) or cuda::kernel(e, args...).
/// The backend namespaces are looked up from the call site, so each family (loom::sparse,
/// loom::blas, ...) reaches its own. `kernel` may carry template arguments (`compress<V>`);
/// at least one argument follows it. A backend that is not compiled raises NotCompiled naming
/// `where`.
#define LOOM_RUN_KERNEL(where, exec, kernel, ...)                                              \
    (exec).run(::loom::detail::overloaded{                                                     \
        [&](const ::loom::ReferenceExecutor& e) -> LOOM_KERNEL_RESULT(kernel, __VA_ARGS__) {   \
            return reference::kernel(e, __VA_ARGS__);                                          \
        },                                                                                     \
        [&]([[maybe_unused]] const ::loom::OmpExecutor& e)                                     \
            -> LOOM_KERNEL_RESULT(kernel, __VA_ARGS__) {                                       \
            LOOM_OMP_CALL(where, return omp::kernel(e, __VA_ARGS__));                          \
        },                                                                                     \
        [&]([[maybe_unused]] const ::loom::CudaExecutor& e)                                    \
            -> LOOM_KERNEL_RESULT(kernel, __VA_ARGS__) {                                       \
            LOOM_CUDA_CALL(where, return cuda::kernel(e, __VA_ARGS__));                        \
        }})
// clang-format on
