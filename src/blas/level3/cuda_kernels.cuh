// The CUDA kernels of level-2/3 BLAS on device-typed strided views, and their launchers.
// Included by cuda.cu only (one translation unit instantiates them).
#pragma once

#include <algorithm>

#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "blas/level3/strided.hpp"
#include "loom/base/array.hpp"

namespace loom::blas::cuda_kernels {

using detail::mul;
using detail::Strided;
using detail::Triangle;
using namespace loom::cuda;

constexpr int warp_size = 32;
constexpr long long max_grid_y = 65535;

/// Shared-memory array of a type with constructors (thrust::complex may not be __shared__).
#define LOOM_SHARED_ARRAY(T, name, count)                                                      \
    __shared__ alignas(T) unsigned char name##_storage[(count) * sizeof(T)];                   \
    T* name = reinterpret_cast<T*>(name##_storage)

template <typename D>
__device__ inline D combine(D alpha, D sum, D beta, const D* out)
{
    // beta == 0 must not read the output: it may hold NaN or be uninitialized.
    return beta == D{} ? alpha * sum : alpha * sum + beta * *out;
}

// ------------------------------------------------------------------------------------ gemm

constexpr int gemm_bm = 64;
constexpr int gemm_bn = 64;
constexpr int gemm_bk = 16;
constexpr int gemm_threads = 256;  // 16 x 16, each 4 x 4 entries of C

/// Stages a rows x cols tile of M at (i0, j0) into s, zero-padded: column-major within the
/// tile (s[c * rows + r]) or row-major (s[r * cols + c]), whichever the compute loop reads
/// without bank conflicts. Consecutive threads walk the dimension of stride 1 in memory.
template <int rows, int cols, bool column_major, typename D>
__device__ inline void load_tile(const Strided<const D>& M, long long i0, long long j0, D* s)
{
    constexpr int per_thread = rows * cols / gemm_threads;
    const bool along_rows = M.cs == 1;
#pragma unroll
    for (int p = 0; p < per_thread; ++p) {
        const int e = threadIdx.x + p * gemm_threads;
        const int r = along_rows ? e / cols : e % rows;
        const int c = along_rows ? e % cols : e / rows;
        const long long i = i0 + r;
        const long long j = j0 + c;
        s[column_major ? c * rows + r : r * cols + c] = i < M.rows && j < M.cols ? M(i, j) : D{};
    }
}

template <typename D>
__global__ void __launch_bounds__(gemm_threads)
    gemm_kernel(D alpha, Strided<const D> A, Strided<const D> B, D beta, Strided<D> C)
{
    LOOM_SHARED_ARRAY(D, As, gemm_bm * gemm_bk);  // As[k * bm + r]
    LOOM_SHARED_ARRAY(D, Bs, gemm_bk * gemm_bn);  // Bs[k * bn + c]
    const int tx = threadIdx.x % 16;
    const int ty = threadIdx.x / 16;
    const long long j0 = static_cast<long long>(blockIdx.x) * gemm_bn;
    const long long row_tiles = ceildiv(C.rows, gemm_bm);
    for (long long tile = blockIdx.y; tile < row_tiles; tile += gridDim.y) {
        const long long i0 = tile * gemm_bm;
        D acc[4][4];
#pragma unroll
        for (int a = 0; a < 4; ++a) {
#pragma unroll
            for (int b = 0; b < 4; ++b) acc[a][b] = D{};
        }
        for (long long k0 = 0; k0 < A.cols; k0 += gemm_bk) {
            load_tile<gemm_bm, gemm_bk, true>(A, i0, k0, As);
            load_tile<gemm_bk, gemm_bn, false>(B, k0, j0, Bs);
            __syncthreads();
#pragma unroll
            for (int k = 0; k < gemm_bk; ++k) {
                D a[4], b[4];
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    a[q] = As[k * gemm_bm + ty + 16 * q];
                    b[q] = Bs[k * gemm_bn + tx + 16 * q];
                }
#pragma unroll
                for (int p = 0; p < 4; ++p) {
#pragma unroll
                    for (int q = 0; q < 4; ++q) acc[p][q] += mul(a[p], b[q]);
                }
            }
            __syncthreads();
        }
#pragma unroll
        for (int p = 0; p < 4; ++p) {
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const long long i = i0 + ty + 16 * p;
                const long long j = j0 + tx + 16 * q;
                if (i < C.rows && j < C.cols) {
                    D* out = C.ptr(i, j);
                    *out = combine(alpha, acc[p][q], beta, out);
                }
            }
        }
    }
}

template <typename D>
void launch_gemm(const CudaExecutor& exec, D alpha, Strided<const D> A, Strided<const D> B,
                 D beta, Strided<D> C)
{
    if (C.rows == 0 || C.cols == 0) return;
    const dim3 grid(static_cast<unsigned>(ceildiv(C.cols, gemm_bn)),
                    static_cast<unsigned>(std::min(ceildiv(C.rows, gemm_bm), max_grid_y)));
    gemm_kernel<<<grid, gemm_threads, 0, stream_of(exec)>>>(alpha, A, B, beta, C);
    check_launch("loom::blas::gemm");
}

// ------------------------------------------------------------------------------------ gemv

constexpr int gemv_threads = 256;

/// Rows of A contiguous: one warp per row, lanes along the row, a fixed butterfly sum.
template <typename D>
__global__ void __launch_bounds__(gemv_threads)
    gemv_rows_kernel(D alpha, Strided<const D> A, Strided<const D> x, D beta, Strided<D> y)
{
    const int lane = threadIdx.x % warp_size;
    const long long warps = static_cast<long long>(gridDim.x) * (gemv_threads / warp_size);
    for (long long i = (static_cast<long long>(blockIdx.x) * gemv_threads + threadIdx.x) / warp_size;
         i < A.rows; i += warps) {
        D sum{};
        for (long long k = lane; k < A.cols; k += warp_size) sum += mul(A(i, k), x(k, 0));
        for (int offset = warp_size / 2; offset > 0; offset /= 2) {
            if constexpr (detail::complex_like<D>) {
                sum += D(__shfl_down_sync(0xffffffffu, sum.real(), offset),
                         __shfl_down_sync(0xffffffffu, sum.imag(), offset));
            } else {
                sum += __shfl_down_sync(0xffffffffu, sum, offset);
            }
        }
        if (lane == 0) {
            D* out = y.ptr(i, 0);
            *out = combine(alpha, sum, beta, out);
        }
    }
}

/// Columns of A contiguous (or any strides): one thread per row, consecutive threads on
/// consecutive rows.
template <typename D>
__global__ void __launch_bounds__(gemv_threads)
    gemv_columns_kernel(D alpha, Strided<const D> A, Strided<const D> x, D beta, Strided<D> y)
{
    for (long long i = static_cast<long long>(blockIdx.x) * gemv_threads + threadIdx.x; i < A.rows;
         i += static_cast<long long>(gridDim.x) * gemv_threads) {
        D sum{};
        for (long long k = 0; k < A.cols; ++k) sum += mul(A(i, k), x(k, 0));
        D* out = y.ptr(i, 0);
        *out = combine(alpha, sum, beta, out);
    }
}

template <typename D>
void launch_gemv(const CudaExecutor& exec, D alpha, Strided<const D> A, Strided<const D> x,
                 D beta, Strided<D> y)
{
    if (A.rows == 0) return;
    if (A.cs == 1 && A.rs != 1) {
        gemv_rows_kernel<<<grid_for(exec, A.rows * warp_size, gemv_threads, 16), gemv_threads, 0,
                           stream_of(exec)>>>(alpha, A, x, beta, y);
    } else {
        gemv_columns_kernel<<<grid_for(exec, A.rows, gemv_threads, 16), gemv_threads, 0,
                              stream_of(exec)>>>(alpha, A, x, beta, y);
    }
    check_launch("loom::blas::gemv");
}

// ----------------------------------------------------------------- triangular diagonal blocks

constexpr int tri_block = 32;
constexpr int tri_threads = 128;  // columns of B per thread block

/// The diagonal block of T (at most tri_block square) staged into shared memory, conjugation
/// applied, the diagonal replaced by 1 for a unit triangle.
template <typename D>
__device__ inline void load_triangle(const Triangle<const D>& T, D* s)
{
    const long long n = T.view.rows;
    for (int e = threadIdx.x; e < tri_block * tri_block; e += blockDim.x) {
        const int r = e / tri_block;
        const int c = e % tri_block;
        const bool inside = r < n && c < n && (T.lower ? c <= r : c >= r);
        s[e] = !inside ? D{} : (r == c && T.unit) ? D{1} : T.view(r, c);
    }
    __syncthreads();
}

/// x = T^-1 x (solve) or x = alpha T x, T the staged diagonal block (n rows) and x one column
/// of B held in registers (all loop bounds are compile-time).
template <bool solve, bool lower, typename D>
__device__ inline void apply_diagonal_block(const D* s, long long n, D alpha, D (&x)[tri_block])
{
#pragma unroll
    for (int step = 0; step < tri_block; ++step) {
        // A solve needs the rows it depends on done, a product the rows it reads untouched.
        const int i = lower == solve ? step : tri_block - 1 - step;
        if (i < n) {
            if constexpr (solve) {
                D v = x[i];
#pragma unroll
                for (int k = 0; k < tri_block; ++k) {
                    if (lower ? k < i : k > i) v -= mul(s[i * tri_block + k], x[k]);
                }
                x[i] = v / s[i * tri_block + i];
            } else {
                D sum{};
#pragma unroll
                for (int k = 0; k < tri_block; ++k) {
                    if (lower ? k <= i : k >= i) sum += mul(s[i * tri_block + k], x[k]);
                }
                x[i] = alpha * sum;
            }
        }
    }
}

/// Solves T X = B (solve) or B = alpha T B in place, T one diagonal block, one thread per
/// column of B.
template <bool solve, bool lower, typename D>
__global__ void __launch_bounds__(tri_threads)
    diagonal_block_kernel(Triangle<const D> T, D alpha, Strided<D> B)
{
    LOOM_SHARED_ARRAY(D, s, tri_block * tri_block);
    load_triangle(T, s);
    const long long n = T.view.rows;
    const long long j = static_cast<long long>(blockIdx.x) * tri_threads + threadIdx.x;
    if (j >= B.cols) return;
    D x[tri_block];
#pragma unroll
    for (int i = 0; i < tri_block; ++i) x[i] = i < n ? *B.ptr(i, j) : D{};
    apply_diagonal_block<solve, lower>(s, n, alpha, x);
#pragma unroll
    for (int i = 0; i < tri_block; ++i) {
        if (i < n) *B.ptr(i, j) = x[i];
    }
}

template <typename D>
__global__ void __launch_bounds__(gemv_threads) scale_kernel(D alpha, Strided<D> B)
{
    const long long count = B.rows * B.cols;
    for (long long e = static_cast<long long>(blockIdx.x) * gemv_threads + threadIdx.x; e < count;
         e += static_cast<long long>(gridDim.x) * gemv_threads) {
        // Consecutive threads along the contiguous dimension.
        const long long i = B.cs == 1 ? e / B.cols : e % B.rows;
        const long long j = B.cs == 1 ? e % B.cols : e / B.rows;
        *B.ptr(i, j) *= alpha;
    }
}

template <typename D>
void launch_scale(const CudaExecutor& exec, D alpha, Strided<D> B)
{
    const long long count = B.rows * B.cols;
    if (count == 0) return;
    scale_kernel<<<grid_for(exec, count, gemv_threads, 16), gemv_threads, 0, stream_of(exec)>>>(
        alpha, B);
    check_launch("loom::blas::trsm");
}

/// One diagonal block (at most tri_block square): solve (trsm) or multiply (trmm).
template <typename D>
void launch_diagonal_block(const CudaExecutor& exec, bool solve, Triangle<const D> T, D alpha,
                           Strided<D> B, const char* where)
{
    const long long chunks = ceildiv(B.cols, tri_threads);
    for (long long first = 0; first < chunks; first += max_grid_y) {
        // Grid x is limited only by 2^31 - 1; chunked anyway to keep the arithmetic in range.
        const long long count = std::min(chunks - first, max_grid_y);
        auto part = B.block(0, first * tri_threads, B.rows,
                            std::min(B.cols - first * tri_threads, count * tri_threads));
        const auto grid = static_cast<unsigned>(count);
        auto launch = [&](auto kernel) {
            kernel<<<grid, tri_threads, 0, stream_of(exec)>>>(T, alpha, part);
        };
        if (solve) {
            T.lower ? launch(diagonal_block_kernel<true, true, D>)
                    : launch(diagonal_block_kernel<true, false, D>);
        } else {
            T.lower ? launch(diagonal_block_kernel<false, true, D>)
                    : launch(diagonal_block_kernel<false, false, D>);
        }
        check_launch(where);
    }
}

template <typename D>
void launch_trsm(const CudaExecutor& exec, Triangle<const D> T, D alpha, Strided<D> B)
{
    if (B.rows == 0 || B.cols == 0) return;
    if (alpha != D{1}) launch_scale(exec, alpha, B);
    const long long n = T.view.rows;
    const long long blocks = ceildiv(n, tri_block);
    for (long long step = 0; step < blocks; ++step) {
        const long long b = T.lower ? step : blocks - 1 - step;
        const long long k0 = b * tri_block;
        const long long kb = std::min<long long>(tri_block, n - k0);
        auto X = B.block(k0, 0, kb, B.cols);
        launch_diagonal_block(exec, true, {T.view.block(k0, k0, kb, kb), T.lower, T.unit}, D{1},
                              X, "loom::blas::trsm");
        const long long rest_begin = T.lower ? k0 + kb : 0;
        const long long rest = T.lower ? n - k0 - kb : k0;
        if (rest > 0) {
            launch_gemm(exec, D{-1}, T.view.block(rest_begin, k0, rest, kb),
                        Strided<const D>(X), D{1}, B.block(rest_begin, 0, rest, B.cols));
        }
    }
}

template <typename D>
void launch_trmm(const CudaExecutor& exec, Triangle<const D> T, D alpha, Strided<D> B)
{
    if (B.rows == 0 || B.cols == 0) return;
    const long long n = T.view.rows;
    const long long blocks = ceildiv(n, tri_block);
    for (long long step = 0; step < blocks; ++step) {
        const long long b = T.lower ? blocks - 1 - step : step;
        const long long k0 = b * tri_block;
        const long long kb = std::min<long long>(tri_block, n - k0);
        auto X = B.block(k0, 0, kb, B.cols);
        launch_diagonal_block(exec, false, {T.view.block(k0, k0, kb, kb), T.lower, T.unit}, alpha,
                              X, "loom::blas::trmm");
        const long long rest_begin = T.lower ? 0 : k0 + kb;
        const long long rest = T.lower ? k0 : n - k0 - kb;
        if (rest > 0) {
            launch_gemm(exec, alpha, T.view.block(k0, rest_begin, kb, rest),
                        Strided<const D>(B.block(rest_begin, 0, rest, B.cols)), D{1}, X);
        }
    }
}

// -------------------------------------------------------------------------------- gemm_dot

constexpr int dot_threads = 256;

/// The block sum over the block, in thread 0 (a fixed tree: deterministic).
template <typename D>
__device__ inline D block_sum(D value)
{
    LOOM_SHARED_ARRAY(D, partial, dot_threads);
    partial[threadIdx.x] = value;
    __syncthreads();
    for (int half = dot_threads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    return partial[0];
}

/// Block (entry e of C, chunk c of the rows): the chunk's part of the dot product of row i of
/// At with column j of B, into partials[c * entries + e] (or straight into C with one chunk).
template <typename D>
__global__ void __launch_bounds__(dot_threads)
    dot_entries_kernel(D alpha, Strided<const D> At, Strided<const D> B, D beta, Strided<D> C,
                       long long chunk, D* partials)
{
    const long long entries = C.rows * C.cols;
    const long long depth = At.cols;
    for (long long e = blockIdx.x; e < entries; e += gridDim.x) {
        const long long i = e / C.cols;
        const long long j = e % C.cols;
        const long long begin = blockIdx.y * chunk;
        const long long end = std::min(depth, begin + chunk);
        D sum{};
        for (long long l = begin + threadIdx.x; l < end; l += dot_threads) {
            sum += mul(At(i, l), B(l, j));
        }
        sum = block_sum(sum);
        if (threadIdx.x == 0) {
            if (partials == nullptr) {
                D* out = C.ptr(i, j);
                *out = combine(alpha, sum, beta, out);
            } else {
                partials[blockIdx.y * entries + e] = sum;
            }
        }
        __syncthreads();  // partial[] of block_sum is reused by the next entry
    }
}

template <typename D>
__global__ void __launch_bounds__(gemv_threads)
    combine_chunks_kernel(D alpha, const D* partials, long long chunks, D beta, Strided<D> C)
{
    const long long entries = C.rows * C.cols;
    for (long long e = static_cast<long long>(blockIdx.x) * gemv_threads + threadIdx.x;
         e < entries; e += static_cast<long long>(gridDim.x) * gemv_threads) {
        D sum{};
        for (long long c = 0; c < chunks; ++c) sum += partials[c * entries + e];
        D* out = C.ptr(e / C.cols, e % C.cols);
        *out = combine(alpha, sum, beta, out);
    }
}

template <typename D>
void launch_gemm_dot(const CudaExecutor& exec, D alpha, Strided<const D> At, Strided<const D> B,
                     D beta, Strided<D> C)
{
    constexpr const char* where = "loom::blas::gemm_dot";
    const long long entries = C.rows * C.cols;
    if (entries == 0) return;
    const long long depth = At.cols;
    // Enough blocks for four waves over the SMs, but no chunk shorter than 8 rows per thread.
    const long long wanted = static_cast<long long>(exec.multiprocessor_count()) * 4;
    const long long min_chunk = static_cast<long long>(dot_threads) * 8;
    const long long chunks = std::clamp(std::min(ceildiv(wanted, entries), ceildiv(depth, min_chunk)),
                                        1LL, max_grid_y);
    const long long chunk = ceildiv(std::max(depth, 1LL), chunks);
    const dim3 grid(static_cast<unsigned>(std::min(entries, 1LL << 30)), static_cast<unsigned>(chunks));
    if (chunks == 1) {
        dot_entries_kernel<<<grid, dot_threads, 0, stream_of(exec)>>>(alpha, At, B, beta, C, chunk,
                                                                      static_cast<D*>(nullptr));
        check_launch(where);
        return;
    }
    // Host-typed storage of the same size: Array allocates on the executor.
    Array<unsigned char> partials(exec.shared_from_this(),
                                  static_cast<size_type>(sizeof(D) * chunks * entries));
    auto* partial_values = reinterpret_cast<D*>(partials.data());
    dot_entries_kernel<<<grid, dot_threads, 0, stream_of(exec)>>>(alpha, At, B, beta, C, chunk,
                                                                  partial_values);
    check_launch(where);
    combine_chunks_kernel<<<grid_for(exec, entries, gemv_threads, 16), gemv_threads, 0,
                            stream_of(exec)>>>(alpha, partial_values, chunks, beta, C);
    check_launch(where);
}

}  // namespace loom::blas::cuda_kernels
