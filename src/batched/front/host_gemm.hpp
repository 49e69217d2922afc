// The vectorized host kernel of batched GEMM (Launch::simd on the OpenMP backend): one matrix
// at a time, vectors along the rows of C, register-blocked. Its AVX2+FMA version lives in
// host_gemm_avx2.cpp, the only translation unit compiled with -mavx2 -mfma; it is chosen at
// run time (once) by the CPU's features, so that a portable build runs it where it can.
// This header is host-only: nvcc never sees it.
#pragma once

#include <cstddef>

namespace loom::batched::host_kernels {

/// C := alpha op(A) op(B) + beta C for a batch of row-major C; op(A) and op(B) are given by
/// their strides, so transposes cost nothing here. C is not read when beta == 0.
template <typename T>
struct GemmBatch {
    const T* a;  ///< op(A)(i, k) of matrix b at a[b * a_batch + i * a_row + k * a_col]
    std::ptrdiff_t a_row, a_col, a_batch;
    const T* b;  ///< op(B)(k, j) of matrix b at b[b * b_batch + k * b_row + j * b_col]
    std::ptrdiff_t b_row, b_col, b_batch;
    T* c;  ///< C(i, j) of matrix b at c[b * c_batch + i * c_row + j]
    std::ptrdiff_t c_row, c_batch;
    int m, n, k;
    T alpha, beta;
};

/// Runs matrices [first, last). `scratch` holds k * n values when b_col != 1 (op(B) is
/// copied row-major there first), and may be null otherwise.
template <typename T>
using GemmKernel = void (*)(const GemmBatch<T>& batch, std::ptrdiff_t first, std::ptrdiff_t last,
                            T* scratch);

/// The vectorized kernel for this CPU, or null where there is none (the CPU lacks AVX2 or
/// FMA, or the build targets another architecture): callers then use the Serial routines.
template <typename T>
GemmKernel<T> vector_gemm_kernel();

/// The AVX2+FMA kernels (host_gemm_avx2.cpp); call only where the CPU has both.
void gemm_avx2(const GemmBatch<double>& batch, std::ptrdiff_t first, std::ptrdiff_t last,
               double* scratch);
void gemm_avx2(const GemmBatch<float>& batch, std::ptrdiff_t first, std::ptrdiff_t last,
               float* scratch);

}  // namespace loom::batched::host_kernels
