// How a public kernel function reaches a backend that may not be compiled in. Inside an
// `exec->run(overloaded{...})` visitor, wrap each backend call:
//     [&](const OmpExecutor& e) { LOOM_OMP_CALL("loom::sparse::spmv", omp::spmv(e, ...)); }
// Without that backend the call is never referenced (so never linked) and NotCompiled is raised.
#pragma once

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
