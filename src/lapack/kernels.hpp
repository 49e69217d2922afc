// Per-backend entry points of dense LAPACK (include/loom/lapack/dense_lapack.hpp) on strided
// views, declared once for every backend; lapack.cpp checks arguments and dispatches.
// `info` points to one int32 in the executor's memory, -1 on entry; a kernel that meets an
// exactly zero pivot stores its 0-based row there unless an earlier one did (LAPACK's info - 1).
#pragma once

#include "blas/level3/strided.hpp"
#include "loom/base/executor.hpp"
#include "loom/config.hpp"
#include "loom/matrix/dense.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_LAPACK_KERNELS(Exec)                                                      \
    /* P A = L U in place (A square), 0-based pivots in exec memory */                          \
    template <typename V>                                                                       \
    void getrf(const Exec& exec, blas::detail::Strided<V> A, int32* pivots, int32* info);       \
    /* swaps row k of B with row pivots[k] for k in [first, first + count), in order or in  \
       reverse */                                                                               \
    template <typename V>                                                                       \
    void permute_rows(const Exec& exec, const int32* pivots, size_type first, size_type count,  \
                      blas::detail::Strided<V> B, bool reverse);                                \
    /* the first i with A(i, i) == 0, or -1 */                                                  \
    template <typename V>                                                                       \
    size_type first_zero_diagonal(const Exec& exec, blas::detail::Strided<const V> A);          \
    /* T = T^{-1} in place, only T's triangle read and written */                               \
    template <typename V>                                                                       \
    void trtri(const Exec& exec, blas::detail::Triangle<V> T)

LOOM_DECLARE_ON_EACH_BACKEND(loom::lapack, LOOM_DECLARE_LAPACK_KERNELS)

/// Vendor paths; false when the library cannot take the call (sizes beyond its integers).
/// getrf factors A in place and stores 0-based pivots (exec memory) and info as above.
#define LOOM_DECLARE_LAPACK_VENDOR(...)                                                        \
    template <typename V>                                                                       \
    bool getrf(__VA_ARGS__ matrix::Dense<V>& A, int32* pivots, int32* info);                    \
    template <typename V>                                                                       \
    bool trtri(__VA_ARGS__ blas::Uplo uplo, blas::Diag diag, matrix::Dense<V>& A)

namespace loom::lapack::openblas {
#if LOOM_HAS_BLAS
LOOM_DECLARE_LAPACK_VENDOR();
#endif
}
/// cuSOLVER (getrf, trtri) with cuBLAS for the layout changes.
namespace loom::lapack::cusolver {
LOOM_DECLARE_LAPACK_VENDOR(const CudaExecutor& exec, );
}

/* Explicit instantiation of every kernel for one backend, inside its namespace */
#define LOOM_INSTANTIATE_LAPACK_KERNELS(Exec, V)                                               \
    template void getrf(const Exec&, blas::detail::Strided<V>, int32*, int32*);                \
    template void permute_rows(const Exec&, const int32*, size_type, size_type,                \
                               blas::detail::Strided<V>, bool);                                \
    template size_type first_zero_diagonal(const Exec&, blas::detail::Strided<const V>);       \
    template void trtri(const Exec&, blas::detail::Triangle<V>);
