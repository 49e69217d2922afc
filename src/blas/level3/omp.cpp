// OpenMP level-2/3 BLAS. gemm packs blocks of op(A) and op(B) into contiguous buffers (which
// also resolves transposes and conjugation) and gives each thread whole tiles of C; the
// triangular kernels are blocked: a small diagonal-block solve or product, parallel over
// columns, then a parallel gemm for the rest. Every partition is static, so results depend
// only on the thread count and the sizes.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "blas/level3/kernels.hpp"

namespace loom::blas::omp {
namespace {

using detail::mul;
using detail::Strided;
using detail::Triangle;

constexpr size_type tile_m = 64;     ///< rows of a C tile
constexpr size_type tile_n = 128;    ///< columns of a C tile
constexpr size_type tile_k = 128;    ///< depth of one packed panel
constexpr size_type tri_block = 64;  ///< diagonal blocks of trsm/trmm
constexpr size_type column_chunk = 64;
constexpr size_type parallel_work = 32 * 32 * 32;  ///< multiply-adds worth a parallel region
constexpr size_type small_work = 24 * 24 * 24;     ///< multiply-adds not worth packing

size_type ceil_div(size_type a, size_type b) { return (a + b - 1) / b; }

/// rows x cols block of M at (i, j), packed row-major into out (conjugation applied).
template <typename V>
void pack(Strided<const V> M, size_type i, size_type j, size_type rows, size_type cols, V* out)
{
    for (size_type r = 0; r < rows; ++r) {
        for (size_type c = 0; c < cols; ++c) out[r * cols + c] = M(i + r, j + c);
    }
}

/// acc (rows x cols, row-major) += Ap (rows x depth) * Bp (depth x cols).
template <typename V>
void multiply_packed(const V* Ap, const V* Bp, size_type rows, size_type depth, size_type cols,
                     V* acc)
{
    for (size_type r = 0; r < rows; ++r) {
        V* out = acc + r * cols;
        for (size_type k = 0; k < depth; ++k) {
            const V a = Ap[r * depth + k];
            const V* b = Bp + k * cols;
#pragma omp simd
            for (size_type c = 0; c < cols; ++c) out[c] += mul(a, b[c]);
        }
    }
}

/// C = alpha * acc + beta * C for one tile (C not read when beta is zero).
template <typename V>
void store_tile(const V* acc, V alpha, V beta, Strided<V> C, size_type i0, size_type j0,
                size_type rows, size_type cols)
{
    for (size_type r = 0; r < rows; ++r) {
        for (size_type c = 0; c < cols; ++c) {
            V& out = *C.ptr(i0 + r, j0 + c);
            out = beta == V{} ? alpha * acc[r * cols + c] : alpha * acc[r * cols + c] + beta * out;
        }
    }
}

/// f(first, count) for chunks of column_chunk columns, in parallel.
template <typename F>
void for_column_chunks(const OmpExecutor& exec, size_type cols, F f)
{
    loom::omp::parallel_for(exec, ceil_div(cols, column_chunk), [&](size_type chunk) {
        const size_type first = chunk * column_chunk;
        f(first, std::min(column_chunk, cols - first));
    });
}

/// Solves T X = B in place for a small triangle (one diagonal block), columns in parallel.
template <typename V>
void solve_diagonal_block(const OmpExecutor& exec, Triangle<const V> T, Strided<V> B)
{
    const auto& A = T.view;
    const size_type n = A.rows;
    for_column_chunks(exec, B.cols, [&](size_type j0, size_type count) {
        for (size_type step = 0; step < n; ++step) {
            const size_type i = T.lower ? step : n - 1 - step;
            const size_type k_begin = T.lower ? 0 : i + 1;
            const size_type k_end = T.lower ? i : n;
            for (size_type k = k_begin; k < k_end; ++k) {
                const V a = A(i, k);
                for (size_type j = j0; j < j0 + count; ++j) *B.ptr(i, j) -= mul(a, *B.ptr(k, j));
            }
            if (!T.unit) {
                const V d = A(i, i);
                for (size_type j = j0; j < j0 + count; ++j) *B.ptr(i, j) /= d;
            }
        }
    });
}

/// B = alpha T B in place for a small triangle (one diagonal block), columns in parallel.
template <typename V>
void multiply_diagonal_block(const OmpExecutor& exec, Triangle<const V> T, V alpha, Strided<V> B)
{
    const auto& A = T.view;
    const size_type n = A.rows;
    for_column_chunks(exec, B.cols, [&](size_type j0, size_type count) {
        for (size_type step = 0; step < n; ++step) {
            // Away from the rows still needed (see the reference kernel).
            const size_type i = T.lower ? n - 1 - step : step;
            const size_type k_begin = T.lower ? 0 : i + 1;
            const size_type k_end = T.lower ? i : n;
            const V d = T.unit ? V{1} : A(i, i);
            for (size_type j = j0; j < j0 + count; ++j) *B.ptr(i, j) *= d;
            for (size_type k = k_begin; k < k_end; ++k) {
                const V a = A(i, k);
                for (size_type j = j0; j < j0 + count; ++j) *B.ptr(i, j) += mul(a, *B.ptr(k, j));
            }
            if (alpha != V{1}) {
                for (size_type j = j0; j < j0 + count; ++j) *B.ptr(i, j) *= alpha;
            }
        }
    });
}

template <typename V>
void scale(const OmpExecutor& exec, V alpha, Strided<V> B)
{
    loom::omp::parallel_for(exec, B.rows, [&](size_type i) {
        for (size_type j = 0; j < B.cols; ++j) *B.ptr(i, j) *= alpha;
    });
}

}  // namespace

template <typename V>
void gemm(const OmpExecutor& exec, V alpha, Strided<const V> A, Strided<const V> B, V beta,
          Strided<V> C)
{
    const size_type m = C.rows;
    const size_type n = C.cols;
    const size_type depth = A.cols;
    if (m * n * depth <= small_work) {
        // Packing and tiling cost more than they save on a product this small: rows of B
        // streamed into a row of C, as many columns at a time as a stack buffer holds.
        constexpr size_type chunk = 64;
        const bool plain_rows = B.cs == 1 && !B.conj;
        for (size_type i = 0; i < m; ++i) {
            for (size_type j0 = 0; j0 < n; j0 += chunk) {
                const size_type cols = std::min(chunk, n - j0);
                V acc[chunk] = {};
                for (size_type k = 0; k < depth; ++k) {
                    const V a = A(i, k);
                    if (plain_rows) {
                        const V* b = B.ptr(k, j0);
#pragma omp simd
                        for (size_type j = 0; j < cols; ++j) acc[j] += mul(a, b[j]);
                    } else {
                        for (size_type j = 0; j < cols; ++j) acc[j] += mul(a, B(k, j0 + j));
                    }
                }
                store_tile(acc, alpha, beta, C, i, j0, 1, cols);
            }
        }
        return;
    }
    const size_type row_tiles = ceil_div(m, tile_m);
    const size_type col_tiles = ceil_div(n, tile_n);
    // Buffers no larger than the product needs, and one thread for products too small to
    // pay for waking the team: a small gemm (Dense::apply of a small matrix) stays cheap.
    const size_type rows_max = std::min(tile_m, m);
    const size_type cols_max = std::min(tile_n, n);
    const size_type depth_max = std::min(tile_k, depth);
    const bool parallel = m * n * depth >= parallel_work;
#pragma omp parallel num_threads(exec.num_threads()) if (parallel)
    {
        std::vector<V> Ap(rows_max * depth_max), Bp(depth_max * cols_max), acc(rows_max * cols_max);
#pragma omp for schedule(static) collapse(2)
        for (size_type ti = 0; ti < row_tiles; ++ti) {
            for (size_type tj = 0; tj < col_tiles; ++tj) {
                const size_type i0 = ti * tile_m;
                const size_type j0 = tj * tile_n;
                const size_type rows = std::min(tile_m, m - i0);
                const size_type cols = std::min(tile_n, n - j0);
                std::fill(acc.begin(), acc.end(), V{});
                for (size_type k0 = 0; k0 < depth; k0 += tile_k) {
                    const size_type kb = std::min(tile_k, depth - k0);
                    pack(A, i0, k0, rows, kb, Ap.data());
                    pack(B, k0, j0, kb, cols, Bp.data());
                    multiply_packed(Ap.data(), Bp.data(), rows, kb, cols, acc.data());
                }
                store_tile(acc.data(), alpha, beta, C, i0, j0, rows, cols);
            }
        }
    }
}

template <typename V>
void gemv(const OmpExecutor& exec, V alpha, Strided<const V> A, Strided<const V> x, V beta,
          Strided<V> y)
{
    const size_type depth = A.cols;
    const auto finish = [&](size_type i, V sum) {
        V& out = *y.ptr(i, 0);
        out = beta == V{} ? alpha * sum : alpha * sum + beta * out;
    };
    if (A.row_contiguous()) {
        // Rows of op(A) are contiguous: one dot product per row.
        loom::omp::parallel_for(exec, A.rows, [&](size_type i) {
            V sum{};
            for (size_type k = 0; k < depth; ++k) sum += mul(A(i, k), x(k, 0));
            finish(i, sum);
        });
        return;
    }
    // Columns of op(A) are contiguous: each thread sweeps them for its block of rows.
    loom::omp::parallel_for(exec, ceil_div(A.rows, tile_n), [&](size_type block) {
        const size_type i0 = block * tile_n;
        const size_type rows = std::min(tile_n, A.rows - i0);
        V acc[tile_n] = {};
        for (size_type k = 0; k < depth; ++k) {
            const V xk = x(k, 0);
            for (size_type r = 0; r < rows; ++r) acc[r] += mul(A(i0 + r, k), xk);
        }
        for (size_type r = 0; r < rows; ++r) finish(i0 + r, acc[r]);
    });
}

template <typename V>
void trsm(const OmpExecutor& exec, Triangle<const V> T, V alpha, Strided<V> B)
{
    if (alpha != V{1}) scale(exec, alpha, B);
    const size_type n = T.view.rows;
    const size_type blocks = ceil_div(n, tri_block);
    for (size_type step = 0; step < blocks; ++step) {
        // Lower: top block first, then update the rows below; upper: bottom-up.
        const size_type b = T.lower ? step : blocks - 1 - step;
        const size_type k0 = b * tri_block;
        const size_type kb = std::min(tri_block, n - k0);
        auto X = B.block(k0, 0, kb, B.cols);
        solve_diagonal_block(exec, {T.view.block(k0, k0, kb, kb), T.lower, T.unit}, X);
        const size_type rest_begin = T.lower ? k0 + kb : 0;
        const size_type rest = T.lower ? n - k0 - kb : k0;
        if (rest > 0) {
            gemm(exec, V{-1}, T.view.block(rest_begin, k0, rest, kb), Strided<const V>(X), V{1},
                 B.block(rest_begin, 0, rest, B.cols));
        }
    }
}

template <typename V>
void trmm(const OmpExecutor& exec, Triangle<const V> T, V alpha, Strided<V> B)
{
    const size_type n = T.view.rows;
    const size_type blocks = ceil_div(n, tri_block);
    for (size_type step = 0; step < blocks; ++step) {
        // Rows of block b need the rows before it (lower) or after it (upper), still
        // unmodified when the blocks are walked away from them.
        const size_type b = T.lower ? blocks - 1 - step : step;
        const size_type k0 = b * tri_block;
        const size_type kb = std::min(tri_block, n - k0);
        auto X = B.block(k0, 0, kb, B.cols);
        multiply_diagonal_block(exec, {T.view.block(k0, k0, kb, kb), T.lower, T.unit}, alpha, X);
        const size_type rest_begin = T.lower ? 0 : k0 + kb;
        const size_type rest = T.lower ? k0 : n - k0 - kb;
        if (rest > 0) {
            gemm(exec, alpha, T.view.block(k0, rest_begin, kb, rest),
                 Strided<const V>(B.block(rest_begin, 0, rest, B.cols)), V{1}, X);
        }
    }
}

template <typename V>
void gemm_dot(const OmpExecutor& exec, V alpha, Strided<const V> At, Strided<const V> B, V beta,
              Strided<V> C)
{
    const size_type m = C.rows;
    const size_type n = C.cols;
    const size_type depth = At.cols;
    const int max_threads = exec.num_threads() > 0 ? exec.num_threads() : omp_get_max_threads();
    // Per-thread copies of C are only worth it while C is small; a large C is a plain gemm.
    if (m * n > 4096 || depth < 4 * max_threads) {
        gemm(exec, alpha, At, B, beta, C);
        return;
    }
    std::vector<V> partials(static_cast<std::size_t>(max_threads * m * n), V{});
    int team = 1;
#pragma omp parallel num_threads(max_threads)
    {
        const int threads = omp_get_num_threads();
        const int thread = omp_get_thread_num();
        if (thread == 0) team = threads;
        // A fixed chunk of rows per thread, summed in thread order below: deterministic.
        const size_type base = depth / threads;
        const size_type extra = depth % threads;
        const size_type begin = thread * base + std::min<size_type>(thread, extra);
        const size_type end = begin + base + (thread < extra ? 1 : 0);
        V* acc = partials.data() + thread * m * n;
        for (size_type l = begin; l < end; ++l) {
            for (size_type i = 0; i < m; ++i) {
                const V a = At(i, l);
                for (size_type j = 0; j < n; ++j) acc[i * n + j] += mul(a, B(l, j));
            }
        }
    }
    for (size_type e = 0; e < m * n; ++e) {
        V sum{};
        for (int t = 0; t < team; ++t) sum += partials[t * m * n + e];
        V& out = *C.ptr(e / n, e % n);
        out = beta == V{} ? alpha * sum : alpha * sum + beta * out;
    }
}

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_LEVEL3_KERNELS, OmpExecutor)

}  // namespace loom::blas::omp
