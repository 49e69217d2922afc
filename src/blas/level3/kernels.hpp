// Per-backend entry points of level-2/3 BLAS (include/loom/blas/dense_blas.hpp), declared once
// for every backend on strided views (strided.hpp): transposes, conjugation and Side::right
// arrive already folded into the views. level3.cpp checks arguments and dispatches.
// Vendor entry points take the public arguments and return false when the library cannot
// express the call (the caller then takes the native path).
#pragma once

#include "blas/level3/strided.hpp"
#include "loom/base/executor.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/config.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_BLAS_LEVEL3_KERNELS(Exec)                                                 \
    /* C = alpha A B + beta C (C not read when beta is 0); C does not overlap A or B */         \
    template <typename V>                                                                       \
    void gemm(const Exec& exec, V alpha, detail::Strided<const V> A, detail::Strided<const V> B, \
              V beta, detail::Strided<V> C);                                                    \
    /* y = alpha A x + beta y, x and y single columns */                                        \
    template <typename V>                                                                       \
    void gemv(const Exec& exec, V alpha, detail::Strided<const V> A, detail::Strided<const V> x, \
              V beta, detail::Strided<V> y);                                                    \
    /* B = alpha T^{-1} B */                                                                    \
    template <typename V>                                                                       \
    void trsm(const Exec& exec, detail::Triangle<const V> T, V alpha, detail::Strided<V> B);    \
    /* B = alpha T B */                                                                         \
    template <typename V>                                                                       \
    void trmm(const Exec& exec, detail::Triangle<const V> T, V alpha, detail::Strided<V> B);    \
    /* C = alpha At B + beta C with At m x k (k long), B k x n: one team per entry and chunk */ \
    template <typename V>                                                                       \
    void gemm_dot(const Exec& exec, V alpha, detail::Strided<const V> At,                       \
                  detail::Strided<const V> B, V beta, detail::Strided<V> C)

LOOM_DECLARE_ON_EACH_BACKEND(loom::blas, LOOM_DECLARE_BLAS_LEVEL3_KERNELS)

#define LOOM_DECLARE_BLAS_LEVEL3_VENDOR(...)                                                   \
    template <typename V>                                                                       \
    bool gemm(__VA_ARGS__ Op op_a, Op op_b, V alpha, const matrix::Dense<V>& A,                 \
              const matrix::Dense<V>& B, V beta, matrix::Dense<V>& C);                          \
    template <typename V>                                                                       \
    bool gemv(__VA_ARGS__ Op op, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& x, \
              V beta, matrix::Dense<V>& y);                                                     \
    template <typename V>                                                                       \
    bool trsm(__VA_ARGS__ Side side, Uplo uplo, Op op, Diag diag, V alpha,                      \
              const matrix::Dense<V>& A, matrix::Dense<V>& B);                                  \
    template <typename V>                                                                       \
    bool trmm(__VA_ARGS__ Side side, Uplo uplo, Op op, Diag diag, V alpha,                      \
              const matrix::Dense<V>& A, matrix::Dense<V>& B)

/// OpenBLAS (any BLAS with the Fortran interface), host memory; only with LOOM_WITH_BLAS.
namespace loom::blas::openblas {
#if LOOM_HAS_BLAS
LOOM_DECLARE_BLAS_LEVEL3_VENDOR();
#endif
}
/// cuBLAS on the executor's handle and stream.
namespace loom::blas::cublas {
LOOM_DECLARE_BLAS_LEVEL3_VENDOR(const CudaExecutor& exec, );
}

/* Explicit instantiation of every kernel for one backend, inside its namespace */
#define LOOM_INSTANTIATE_BLAS_LEVEL3_KERNELS(Exec, V)                                          \
    template void gemm(const Exec&, V, detail::Strided<const V>, detail::Strided<const V>, V,  \
                       detail::Strided<V>);                                                    \
    template void gemv(const Exec&, V, detail::Strided<const V>, detail::Strided<const V>, V,  \
                       detail::Strided<V>);                                                    \
    template void trsm(const Exec&, detail::Triangle<const V>, V, detail::Strided<V>);         \
    template void trmm(const Exec&, detail::Triangle<const V>, V, detail::Strided<V>);         \
    template void gemm_dot(const Exec&, V, detail::Strided<const V>, detail::Strided<const V>, V, \
                           detail::Strided<V>);
