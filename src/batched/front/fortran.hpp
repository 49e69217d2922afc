// The Fortran BLAS/LAPACK routines the host vendor path loops over (LOOM_WITH_BLAS builds),
// overloaded on the value type. Column-major, 32-bit integers (LP64 OpenBLAS).
#pragma once

#include <climits>
#include <complex>

#include "loom/base/types.hpp"

namespace loom::batched::fortran {

using blas_int = int;

inline bool fits(size_type value) { return value >= 0 && value <= INT_MAX; }

#define LOOM_FORTRAN_DECLARE(p, T)                                                             \
    void p##gemm_(const char*, const char*, const blas_int*, const blas_int*, const blas_int*, \
                  const T*, const T*, const blas_int*, const T*, const blas_int*, const T*, T*, \
                  const blas_int*);                                                            \
    void p##trsm_(const char*, const char*, const char*, const char*, const blas_int*,          \
                  const blas_int*, const T*, const T*, const blas_int*, T*, const blas_int*);  \
    void p##trmm_(const char*, const char*, const char*, const char*, const blas_int*,          \
                  const blas_int*, const T*, const T*, const blas_int*, T*, const blas_int*);  \
    void p##trtri_(const char*, const char*, const blas_int*, T*, const blas_int*, blas_int*);  \
    void p##getrf_(const blas_int*, const blas_int*, T*, const blas_int*, blas_int*,           \
                   blas_int*);                                                                 \
    void p##potrf_(const char*, const blas_int*, T*, const blas_int*, blas_int*);

extern "C" {
LOOM_FORTRAN_DECLARE(s, float)
LOOM_FORTRAN_DECLARE(d, double)
LOOM_FORTRAN_DECLARE(c, std::complex<float>)
LOOM_FORTRAN_DECLARE(z, std::complex<double>)
}

#define LOOM_FORTRAN_OVERLOADS(p, T)                                                           \
    inline void gemm(char ta, char tb, blas_int m, blas_int n, blas_int k, T alpha, const T* a, \
                     blas_int lda, const T* b, blas_int ldb, T beta, T* c, blas_int ldc)       \
    {                                                                                           \
        p##gemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);              \
    }                                                                                           \
    inline void trsm(char side, char uplo, char trans, char diag, blas_int m, blas_int n,       \
                     T alpha, const T* a, blas_int lda, T* b, blas_int ldb)                     \
    {                                                                                           \
        p##trsm_(&side, &uplo, &trans, &diag, &m, &n, &alpha, a, &lda, b, &ldb);               \
    }                                                                                           \
    inline void trmm(char side, char uplo, char trans, char diag, blas_int m, blas_int n,       \
                     T alpha, const T* a, blas_int lda, T* b, blas_int ldb)                     \
    {                                                                                           \
        p##trmm_(&side, &uplo, &trans, &diag, &m, &n, &alpha, a, &lda, b, &ldb);               \
    }                                                                                           \
    inline blas_int trtri(char uplo, char diag, blas_int n, T* a, blas_int lda)                 \
    {                                                                                           \
        blas_int info = 0;                                                                      \
        p##trtri_(&uplo, &diag, &n, a, &lda, &info);                                            \
        return info;                                                                            \
    }                                                                                           \
    inline blas_int getrf(blas_int m, blas_int n, T* a, blas_int lda, blas_int* ipiv)           \
    {                                                                                           \
        blas_int info = 0;                                                                      \
        p##getrf_(&m, &n, a, &lda, ipiv, &info);                                                \
        return info;                                                                            \
    }                                                                                           \
    inline blas_int potrf(char uplo, blas_int n, T* a, blas_int lda)                            \
    {                                                                                           \
        blas_int info = 0;                                                                      \
        p##potrf_(&uplo, &n, a, &lda, &info);                                                   \
        return info;                                                                            \
    }

LOOM_FORTRAN_OVERLOADS(s, float)
LOOM_FORTRAN_OVERLOADS(d, double)
LOOM_FORTRAN_OVERLOADS(c, std::complex<float>)
LOOM_FORTRAN_OVERLOADS(z, std::complex<double>)

#undef LOOM_FORTRAN_DECLARE
#undef LOOM_FORTRAN_OVERLOADS

}  // namespace loom::batched::fortran
