// The Fortran interface of BLAS and LAPACK (OpenBLAS, reference LAPACK, ...), declared once for
// the whole library so that no cblas.h/lapacke.h is needed, with type-overloaded C++ wrappers.
// Only for builds with LOOM_WITH_BLAS. Integers are 32-bit (the LP64 interface every
// distribution ships). Every CHARACTER argument carries its hidden length (a size_t after the
// other arguments, as gfortran passes it): a prototype without them calls the wrong ABI.
//
// Row-major matrices are column-major matrices transposed: every caller maps
// row-major calls to column-major ones (C = A B  <=>  C^T = B^T A^T) instead of copying.
#pragma once

#include <climits>
#include <complex>
#include <cstddef>

#include "loom/base/types.hpp"

namespace loom::fortran {

using blas_int = int;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

/// Whether a size or stride fits the library's integers.
inline bool fits(size_type value) { return value >= 0 && value <= INT_MAX; }

extern "C" {
#define LOOM_FORTRAN_DECLARE(p, T)                                                             \
    void p##gemm_(const char*, const char*, const blas_int*, const blas_int*, const blas_int*, \
                  const T*, const T*, const blas_int*, const T*, const blas_int*, const T*, T*, \
                  const blas_int*, std::size_t, std::size_t);                                   \
    void p##gemv_(const char*, const blas_int*, const blas_int*, const T*, const T*,           \
                  const blas_int*, const T*, const blas_int*, const T*, T*, const blas_int*,    \
                  std::size_t);                                                                 \
    void p##trsm_(const char*, const char*, const char*, const char*, const blas_int*,          \
                  const blas_int*, const T*, const T*, const blas_int*, T*, const blas_int*,    \
                  std::size_t, std::size_t, std::size_t, std::size_t);                          \
    void p##trmm_(const char*, const char*, const char*, const char*, const blas_int*,          \
                  const blas_int*, const T*, const T*, const blas_int*, T*, const blas_int*,    \
                  std::size_t, std::size_t, std::size_t, std::size_t);                          \
    void p##getrf_(const blas_int*, const blas_int*, T*, const blas_int*, blas_int*, blas_int*); \
    void p##trtri_(const char*, const char*, const blas_int*, T*, const blas_int*, blas_int*,   \
                   std::size_t, std::size_t);                                                   \
    void p##potrf_(const char*, const blas_int*, T*, const blas_int*, blas_int*, std::size_t);
LOOM_FORTRAN_DECLARE(s, float)
LOOM_FORTRAN_DECLARE(d, double)
LOOM_FORTRAN_DECLARE(c, cfloat)
LOOM_FORTRAN_DECLARE(z, cdouble)
#undef LOOM_FORTRAN_DECLARE
}

#define LOOM_FORTRAN_WRAPPERS(p, T)                                                            \
    inline void gemm(char ta, char tb, blas_int m, blas_int n, blas_int k, T alpha, const T* A, \
                     blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc)        \
    {                                                                                           \
        p##gemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);         \
    }                                                                                           \
    inline void gemv(char t, blas_int m, blas_int n, T alpha, const T* A, blas_int lda,         \
                     const T* x, blas_int incx, T beta, T* y, blas_int incy)                    \
    {                                                                                           \
        p##gemv_(&t, &m, &n, &alpha, A, &lda, x, &incx, &beta, y, &incy, 1);                    \
    }                                                                                           \
    inline void trsm(char side, char uplo, char t, char diag, blas_int m, blas_int n, T alpha,  \
                     const T* A, blas_int lda, T* B, blas_int ldb)                              \
    {                                                                                           \
        p##trsm_(&side, &uplo, &t, &diag, &m, &n, &alpha, A, &lda, B, &ldb, 1, 1, 1, 1);        \
    }                                                                                           \
    inline void trmm(char side, char uplo, char t, char diag, blas_int m, blas_int n, T alpha,  \
                     const T* A, blas_int lda, T* B, blas_int ldb)                              \
    {                                                                                           \
        p##trmm_(&side, &uplo, &t, &diag, &m, &n, &alpha, A, &lda, B, &ldb, 1, 1, 1, 1);        \
    }                                                                                           \
    inline blas_int getrf(blas_int m, blas_int n, T* A, blas_int lda, blas_int* pivots)         \
    {                                                                                           \
        blas_int info = 0;                                                                      \
        p##getrf_(&m, &n, A, &lda, pivots, &info);                                              \
        return info;                                                                            \
    }                                                                                           \
    inline blas_int trtri(char uplo, char diag, blas_int n, T* A, blas_int lda)                 \
    {                                                                                           \
        blas_int info = 0;                                                                      \
        p##trtri_(&uplo, &diag, &n, A, &lda, &info, 1, 1);                                      \
        return info;                                                                            \
    }                                                                                           \
    inline blas_int potrf(char uplo, blas_int n, T* A, blas_int lda)                            \
    {                                                                                           \
        blas_int info = 0;                                                                      \
        p##potrf_(&uplo, &n, A, &lda, &info, 1);                                                \
        return info;                                                                            \
    }
LOOM_FORTRAN_WRAPPERS(s, float)
LOOM_FORTRAN_WRAPPERS(d, double)
LOOM_FORTRAN_WRAPPERS(c, cfloat)
LOOM_FORTRAN_WRAPPERS(z, cdouble)
#undef LOOM_FORTRAN_WRAPPERS

}  // namespace loom::fortran
