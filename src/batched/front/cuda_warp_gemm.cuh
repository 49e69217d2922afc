// C = alpha A B + beta C for square real matrices of order 17..32 on CUDA: one warp per matrix,
// each lane holding an 8 x 4 tile of C in registers. Where the lane-per-row kernel of
// cuda_rows.cuh reads a row of A per lane (32 lines per load instruction) and reached 55% of
// the copy bandwidth at n = 32, here every global access is coalesced:
//   * A and B are staged in shared memory with cp.async (16-byte copies where the rows allow,
//     every copy of the warp in flight at once, no registers held);
//   * C is read and written in the tile's own pattern, which covers whole 128-byte row
//     segments per instruction: lane (ry, cx) = (lane / 8, lane % 8) owns rows ry + 4t
//     (t < 8) and columns 2cx, 2cx + 1, 16 + 2cx, 17 + 2cx.
// Per pair of k a lane reads 8 pairs A(r, k..k+1) and 4 pairs of B from shared memory for 64
// fused multiply-adds; the A pitch (order + 2) puts the 4 rows read at once on distinct banks,
// and the 8 column pairs of a B row read at once are contiguous. The products are summed over k
// in order, as Gemm<Mode::Serial> and the other kernels do.
#pragma once

#include <cstdint>
#include <type_traits>

#include "base/cuda/helpers.cuh"
#include "batched/front/cuda_async.cuh"
#include "batched/front/operand.hpp"
#include "loom/batched/view.hpp"

namespace loom::batched::cuda_front::warp_gemm {

using front::Operands;

/// The orders served, and the bound every loop is unrolled to.
constexpr int min_order = 17;
constexpr int order = 32;
/// Two warps (matrices) per block: 34 KB of shared memory for doubles, under the 48 KB a block
/// gets without opting in, and up to six blocks per SM.
constexpr int warps_per_block = 2;
constexpr int block_threads = 32 * warps_per_block;
constexpr int a_pitch = order + 2;
constexpr int b_pitch = order;
constexpr int values_per_warp = order * (a_pitch + b_pitch);

template <typename T>
using Pair = std::conditional_t<sizeof(T) == 8, double2, float2>;

template <typename T>
__device__ LOOM_INLINE bool pairs_fit(const View<T>& M, int n)
{
    constexpr auto bytes = static_cast<std::uintptr_t>(2 * sizeof(T));
    return n % 2 == 0 && M.col_stride() == 1 && M.row_stride() % 2 == 0 &&
           reinterpret_cast<std::uintptr_t>(M.data()) % bytes == 0;
}

/// Whether the n x n matrix M is one run of n^2 values.
template <typename T>
__device__ LOOM_INLINE bool contiguous(const View<T>& M, int n)
{
    return M.col_stride() == 1 && M.row_stride() == n;
}

/// Row and column of entry e = lane + 32 v of a contiguous n x n matrix, v = 0, 1, ...: a warp
/// walks the matrix 32 consecutive values (whole 128-byte lines) at a time, whatever n.
struct FlatPosition {
    int row = 0;
    int col;
    __device__ FlatPosition(int lane, int n) : col(lane) { wrap(n); }
    __device__ void next(int n)
    {
        col += 32;
        wrap(n);
    }

private:
    /// Two steps at most: col < n + 32 <= 3 n for the orders served (n >= 16), and a loop here
    /// cost a branch per step of every flat walk.
    __device__ void wrap(int n)
    {
        if (col >= n) col -= n, ++row;
        if (col >= n) col -= n, ++row;
    }
};

/// Starts copying a contiguous n x n matrix into s (row pitch `pitch`), 32 consecutive values
/// per instruction, where copying row by row would start a new line segment at every row of
/// an odd order.
template <typename T>
__device__ LOOM_INLINE void stage_flat(const T* src, T* s, int pitch, int n, int lane)
{
    FlatPosition p(lane, n);
#pragma unroll 4
    for (int e = lane; e < n * n; e += 32, p.next(n)) async::copy(s + p.row * pitch + p.col, src + e);
}

/// Starts copying the n x n matrix M into s (row pitch `pitch`), with zeros in rows and
/// columns n..padded - 1 (padded <= order), so that the k loop may run to the bound `padded`.
template <typename T>
__device__ LOOM_INLINE void stage(const View<T>& M, T* s, int pitch, int n, int padded, int lane)
{
    if (sizeof(T) == 8 && pairs_fit(M, n) && padded % 2 == 0) {
        // 16 pairs per row, two rows per instruction.
        const int c = (lane % 16) * 2;
        LOOM_PRAGMA_UNROLL
        for (int r0 = 0; r0 < order; r0 += 2) {
            const int r = r0 + lane / 16;
            if (r < padded && c < padded) {
                const bool inside = r < n && c < n;
                async::copy16(s + r * pitch + c, inside ? &M(r, c) : M.data(), inside);
            }
        }
        return;
    }
    if (contiguous(M, n)) {
        stage_flat(M.data(), s, pitch, n, lane);
        // The padding by plain stores: addresses no copy writes.
        for (int r = n; r < padded; ++r) {
            if (lane < padded) s[r * pitch + lane] = T(0);
        }
        if (lane < n) {
            for (int c = n; c < padded; ++c) s[lane * pitch + c] = T(0);
        }
        return;
    }
    LOOM_PRAGMA_UNROLL
    for (int r = 0; r < order; ++r) {
        if (r < padded && lane < padded) {
            const bool inside = r < n && lane < n;
            async::copy(s + r * pitch + lane, inside ? &M(r, lane) : M.data(), inside);
        }
    }
}

/// The columns of C a lane owns.
__device__ LOOM_INLINE int tile_column(int cx, int q) { return (q / 2) * 16 + 2 * cx + q % 2; }

/// f(t, q, i, j) for each pair of C's tile (rows i = ry + 4t, columns j, j + 1 with
/// j = tile_column(cx, q), q even) whose first entry lies inside the n x n matrix.
template <typename F>
__device__ LOOM_INLINE void for_tile_pairs(int ry, int cx, int n, F&& f)
{
    LOOM_PRAGMA_UNROLL
    for (int t = 0; t < 8; ++t) {
        LOOM_PRAGMA_UNROLL
        for (int q = 0; q < 4; q += 2) {
            const int i = ry + 4 * t;
            const int j = tile_column(cx, q);
            if (i < n && j < n) f(t, q, i, j);
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(block_threads)
    gemm_kernel(Operands<T, 3> ops, T alpha, T beta, size_type count, int n)
{
    extern __shared__ __align__(16) unsigned char loom_warp_gemm_shared[];
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const size_type b = static_cast<size_type>(blockIdx.x) * warps_per_block + warp;
    if (b >= count) return;
    const auto A = ops[0].global(b);
    const auto B = ops[1].global(b);
    const auto C = ops[2].global(b);
    T* sA = reinterpret_cast<T*>(loom_warp_gemm_shared) + warp * values_per_warp;
    T* sB = sA + order * a_pitch;
    const int padded = n + n % 2;
    stage(A, sA, a_pitch, n, padded, lane);
    stage(B, sB, b_pitch, n, padded, lane);

    const int ry = lane / 8;
    const int cx = lane % 8;
    const bool beta_zero = beta == T(0);
    const bool c_pairs = pairs_fit(C, n);
    // C's loads go out while the staging copies are in flight.
    T c[8][4] = {};
    if (!beta_zero) {
        for_tile_pairs(ry, cx, n, [&](int t, int q, int i, int j) {
            if (c_pairs) {
                const auto pair = *reinterpret_cast<const Pair<T>*>(&C(i, j));
                c[t][q] = pair.x;
                c[t][q + 1] = pair.y;
            } else {
                c[t][q] = C(i, j);
                if (j + 1 < n) c[t][q + 1] = C(i, j + 1);
            }
        });
    }
    async::wait_all();
    __syncwarp();

    T s[8][4];
    LOOM_PRAGMA_UNROLL
    for (int t = 0; t < 8; ++t) {
        LOOM_PRAGMA_UNROLL
        for (int q = 0; q < 4; ++q) s[t][q] = T(0);
    }
    LOOM_PRAGMA_UNROLL
    for (int k = 0; k < order; k += 2) {
        if (k >= n) break;
        Pair<T> b0[2];  // B(k, columns), B(k + 1, columns), by halves of the tile
        Pair<T> b1[2];
        LOOM_PRAGMA_UNROLL
        for (int h = 0; h < 2; ++h) {
            b0[h] = *reinterpret_cast<const Pair<T>*>(sB + k * b_pitch + tile_column(cx, 2 * h));
            b1[h] = *reinterpret_cast<const Pair<T>*>(sB + (k + 1) * b_pitch +
                                                      tile_column(cx, 2 * h));
        }
        LOOM_PRAGMA_UNROLL
        for (int t = 0; t < 8; ++t) {
            const auto a = *reinterpret_cast<const Pair<T>*>(sA + (ry + 4 * t) * a_pitch + k);
            LOOM_PRAGMA_UNROLL
            for (int h = 0; h < 2; ++h) {
                s[t][2 * h] += a.x * b0[h].x;
                s[t][2 * h] += a.y * b1[h].x;
                s[t][2 * h + 1] += a.x * b0[h].y;
                s[t][2 * h + 1] += a.y * b1[h].y;
            }
        }
    }

    for_tile_pairs(ry, cx, n, [&](int t, int q, int i, int j) {
        const T x = beta_zero ? alpha * s[t][q] : beta * c[t][q] + alpha * s[t][q];
        const T y = beta_zero ? alpha * s[t][q + 1] : beta * c[t][q + 1] + alpha * s[t][q + 1];
        if (c_pairs) {
            Pair<T> pair;
            pair.x = x;
            pair.y = y;
            *reinterpret_cast<Pair<T>*>(&C(i, j)) = pair;
        } else {
            C(i, j) = x;
            if (j + 1 < n) C(i, j + 1) = y;
        }
    });
}

/// Asks for the largest shared-memory carveout for kernel. A hint: a failure only costs
/// occupancy, and is cleared so that no later check sees it.
template <typename Kernel>
bool prefer_max_shared(Kernel kernel)
{
    const bool set = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                          cudaSharedmemCarveoutMaxShared) == cudaSuccess;
    if (!set) (void)cudaGetLastError();
    return set;
}

/// Matrices one launch takes (a block per warps_per_block matrices, at most 2^31 - 1 blocks).
constexpr size_type max_count = static_cast<size_type>(0x7fffffff) * warps_per_block;

template <typename T>
void launch(const CudaExecutor& exec, const Operands<T, 3>& ops, T alpha, T beta, size_type count,
            int n)
{
    // Six blocks of 34 KB per SM need the largest shared-memory carveout.
    static const bool carveout = prefer_max_shared(gemm_kernel<T>);
    (void)carveout;
    const auto blocks = static_cast<unsigned>((count + warps_per_block - 1) / warps_per_block);
    const auto shared = static_cast<std::size_t>(warps_per_block) * values_per_warp * sizeof(T);
    gemm_kernel<T><<<blocks, block_threads, shared, loom::cuda::stream_of(exec)>>>(ops, alpha, beta,
                                                                               count, n);
}

}  // namespace loom::batched::cuda_front::warp_gemm
