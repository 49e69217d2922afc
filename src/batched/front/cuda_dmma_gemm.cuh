// C = alpha A B + beta C for square double matrices of order 17..32 on CUDA, on the FP64
// tensor cores, C in MT x MT tiles of 8 x 8:
//   * 17..24: 3 x 3 tiles, one warp per matrix, mma.sync m8n8k4 (45 DMMA at n = 17);
//   * 25..32: 4 x 4 tiles, two warps per matrix (each two tile rows), sm_90's m16n8k8, one
//     instruction for two tile rows and 8 values of k: 32 DMMA per matrix at n = 32, where
//     m8n8k4 needed 128 and took about the same time at every order 25..32 (bound by them,
//     not by memory: session-9 NOTES).
// The SIMT warp gemm (cuda_warp_gemm.cuh, float) spends 1,024 DFMA and 192 LDS.128 per
// matrix at n = 32. Staging (cp.async) and the padding with zeros are the SIMT kernel's.
//
// Fragments (PTX ISA, .f64): with g = lane / 4 and t = lane % 4, m8n8k4 takes A(g, t) of the
// 8 x 4 tile of A, B(t, g) of the 4 x 8 tile of B and holds C(g, 2t), C(g, 2t + 1) of the
// 8 x 8 tile of C; m16n8k8 takes A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4) and B(t, g),
// B(t + 4, g), and holds the C pairs of rows g and g + 8: the same per 8 x 8 tile. A lane's C
// entries are thus pairs in a row: 16-byte accesses where the rows allow, 8 rows x 64 bytes
// per instruction; a contiguous C whose rows do not (odd orders) is read and written 32
// consecutive values per instruction instead, its tiles rearranged through shared memory.
// Summation: per tile k ascending in steps of 4 or 8 (each step one fused operation of the
// tensor core), then beta C + alpha sum, as the other kernels; not bitwise equal to them.
#pragma once

#include "base/cuda/helpers.cuh"
#include "batched/front/cuda_async.cuh"
#include "batched/front/cuda_warp_gemm.cuh"
#include "batched/front/operand.hpp"
#include "loom/batched/view.hpp"

namespace loom::batched::cuda_front::dmma_gemm {

using front::Operands;
using warp_gemm::min_order;

/// MT x MT tiles of 8 x 8 cover C: 3 up to order 24, 4 up to 32.
constexpr int tiles_for(int n) { return n <= 24 ? 3 : 4; }

/// A and B staged at a pitch of 4 or 12 mod 16 values: the 16 lanes of a half warp read rows
/// g = 0..3 at columns t = 0..3 (A) or rows t at columns g (B) on 16 distinct 8-byte banks.
template <int MT>
struct Stage {
    static constexpr int rows = 8 * MT;
    static constexpr int pitch = rows + 4;
    static constexpr int values = rows * pitch;
};

// Two warps (matrices) per block as the SIMT kernel (its max_count holds): 36 KB of static
// shared memory at MT = 4.
using warp_gemm::block_threads;
using warp_gemm::warps_per_block;

/// d += a b for one 8 x 8 x 4 tile product; before sm_80 the same by shuffles.
__device__ LOOM_INLINE void mma(double (&d)[2], double a, double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
#else
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int g = lane / 4;
    const int t = lane % 4;
    for (int k = 0; k < 4; ++k) {
        const double a_gk = __shfl_sync(0xffffffffu, a, g * 4 + k);
        for (int i = 0; i < 2; ++i) d[i] += a_gk * __shfl_sync(0xffffffffu, b, (2 * t + i) * 4 + k);
    }
#endif
}

/// The tile rows [first, first + count) of MT a warp computes when W warps share a matrix.
template <int MT, int W>
struct Share {
    static_assert(MT % W == 0, "whole tile rows per warp");
    static constexpr int count = MT / W;
    int first;
    __device__ explicit Share(int part) : first(part * count) {}
    /// The warp's rows of C, [row_begin, row_end) within the n x n matrix.
    __device__ int row_begin() const { return 8 * first; }
    __device__ int row_end(int n) const { return 8 * (first + count) < n ? 8 * (first + count) : n; }
};

/// d0 += a b over rows 0..7 and d1 over rows 8..15 of one 16 x 8 x 8 product (sm_90's
/// mma.m16n8k8 for f64: a = A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4); b = B(t, g),
/// B(t + 4, g)); elsewhere the same as four m8n8k4 products.
__device__ LOOM_INLINE void mma16(double (&d0)[2], double (&d1)[2], double a0, double a1,
                                  double a2, double a3, double b0, double b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(d0[0]), "+d"(d0[1]), "+d"(d1[0]), "+d"(d1[1])
        : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#else
    mma(d0, a0, b0);
    mma(d0, a2, b1);
    mma(d1, a1, b0);
    mma(d1, a3, b1);
#endif
}

/// f(ti, tj, i, j) for each of a lane's pairs C(i, j), C(i, j + 1) in the warp's tile rows
/// (ti counted from the share's first) whose first entry lies inside the n x n matrix.
template <int MT, int W, typename F>
__device__ LOOM_INLINE void for_tile_pairs(const Share<MT, W>& share, int lane, int n, F&& f)
{
    LOOM_PRAGMA_UNROLL
    for (int ti = 0; ti < Share<MT, W>::count; ++ti) {
        LOOM_PRAGMA_UNROLL
        for (int tj = 0; tj < MT; ++tj) {
            const int i = 8 * (share.first + ti) + lane / 4;
            const int j = 8 * tj + 2 * (lane % 4);
            if (i < n && j < n) f(ti, tj, i, j);
        }
    }
}

/// f(v, e, row, col) for the entries e = begin + lane + 32 v of the warp's rows of a contiguous
/// n x n matrix (begin the offset of its first row; v < 2 MT^2 / W = the entries of C a lane
/// holds in tiles).
template <int MT, int W, typename F>
__device__ LOOM_INLINE void for_flat(const Share<MT, W>& share, int lane, int n, F&& f)
{
    warp_gemm::FlatPosition p(lane, n);
    p.row += share.row_begin();
    const int begin = share.row_begin() * n;
    const int end = share.row_end(n) * n;
    LOOM_PRAGMA_UNROLL
    for (int v = 0; v < 2 * MT * Share<MT, W>::count; ++v, p.next(n)) {
        const int e = begin + lane + 32 * v;
        if (e < end) f(v, e, p.row, p.col);
    }
}

/// Waits for the W warps of one matrix (W = 1: the warp; else named barrier `slot` + 1). The
/// barrier ids are immediates: with the id in a register ptxas reserves all 16 barriers of a
/// block, and that held the SM to 4 blocks (ncu, H200, n = 25: "Block Limit Barriers 4",
/// registers would allow 5, shared memory 6).
template <int W>
__device__ LOOM_INLINE void sync_matrix(int slot)
{
    static_assert(warps_per_block == 2, "one named barrier per slot below");
    if constexpr (W == 1) {
        __syncwarp();
    } else if (slot == 0) {
        asm volatile("bar.sync 1, %0;\n" ::"n"(32 * W) : "memory");
    } else {
        asm volatile("bar.sync 2, %0;\n" ::"n"(32 * W) : "memory");
    }
}

/// W = 1: a warp per matrix; W = 2: two warps per matrix (each half of C's tile rows, half
/// the accumulators: twice the warps per SM for the same shared memory). The launch bounds keep
/// 96 registers (10 and 5 blocks per SM, what registers and barriers then allow): without the
/// block count ptxas took 106-108 for the two-warp kernel, 4 blocks.
template <int MT, int W, bool K8 = false>
__global__ void __launch_bounds__(block_threads * W, W == 1 ? 10 : 5)
    gemm_kernel(Operands<double, 3> ops, double alpha, double beta, size_type count, int n)
{
    using S = Stage<MT>;
    __shared__ __align__(16) double staged[warps_per_block][2][S::values];
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int slot = warp / W;  // the block's matrix this warp works on
    const Share<MT, W> share(warp % W);
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const size_type b = static_cast<size_type>(blockIdx.x) * warps_per_block + slot;
    if (b >= count) return;  // whole matrices: mma.sync needs all 32 lanes
    const auto A = ops[0].global(b);
    const auto B = ops[1].global(b);
    const auto C = ops[2].global(b);
    double* sA = staged[slot][0];
    double* sB = staged[slot][1];
    // Rows and columns of A and B past n up to the k bound are zeros; those past it are never
    // read, and garbage in A's rows or B's columns past n only reaches entries of C not stored.
    const int k_bound = K8 ? (n + 7) / 8 * 8 : (n + 3) / 4 * 4;
    if (W == 1 || warp % W == 0) warp_gemm::stage(A, sA, S::pitch, n, k_bound, lane);
    if (W == 1 || warp % W == 1) warp_gemm::stage(B, sB, S::pitch, n, k_bound, lane);

    constexpr int rows = Share<MT, W>::count;  // tile rows of this warp
    const bool beta_zero = beta == 0.0;
    // C in the tiles' pattern where its rows allow 16-byte pairs (8 rows x 64 bytes per
    // instruction); else, where it is contiguous (odd orders, misaligned matrices), in the flat
    // order, its tiles passing through A's staging; else value by value in the tiles' pattern.
    const bool c_pairs = warp_gemm::pairs_fit(C, n);
    const bool c_flat = !c_pairs && warp_gemm::contiguous(C, n);
    // C's loads go out while the staging copies are in flight.
    double c[2 * rows * MT] = {};
    if (!beta_zero && c_flat) {
        for_flat(share, lane, n, [&](int v, int e, int, int) { c[v] = C.data()[e]; });
    } else if (!beta_zero) {
        for_tile_pairs(share, lane, n, [&](int ti, int tj, int i, int j) {
            double* pair = c + 2 * (ti * MT + tj);
            if (c_pairs) {
                const auto loaded = *reinterpret_cast<const double2*>(&C(i, j));
                pair[0] = loaded.x;
                pair[1] = loaded.y;
            } else {
                pair[0] = C(i, j);
                if (j + 1 < n) pair[1] = C(i, j + 1);
            }
        });
    }
    async::wait_all();
    sync_matrix<W>(slot);

    const int g = lane / 4;
    const int t = lane % 4;
    double d[rows][MT][2] = {};
    LOOM_PRAGMA_UNROLL
    for (int k = 0; K8 && k < S::rows; k += 8) {
        // Pairs of tile rows as one m16n8k8 product, k in steps of 8; an odd last tile row
        // as two m8n8k4 products.
        if (k >= k_bound) break;
        double a[rows][2];
        double bk[MT][2];
        LOOM_PRAGMA_UNROLL
        for (int ti = 0; ti < rows; ++ti) {
            const double* row = sA + (8 * (share.first + ti) + g) * S::pitch + k + t;
            a[ti][0] = row[0];
            a[ti][1] = row[4];
        }
        LOOM_PRAGMA_UNROLL
        for (int tj = 0; tj < MT; ++tj) {
            bk[tj][0] = sB[(k + t) * S::pitch + 8 * tj + g];
            bk[tj][1] = sB[(k + t + 4) * S::pitch + 8 * tj + g];
        }
        LOOM_PRAGMA_UNROLL
        for (int tj = 0; tj < MT; ++tj) {
            LOOM_PRAGMA_UNROLL
            for (int ti = 0; ti + 1 < rows; ti += 2) {
                mma16(d[ti][tj], d[ti + 1][tj], a[ti][0], a[ti + 1][0], a[ti][1], a[ti + 1][1],
                      bk[tj][0], bk[tj][1]);
            }
            if constexpr (rows % 2 == 1) {
                mma(d[rows - 1][tj], a[rows - 1][0], bk[tj][0]);
                mma(d[rows - 1][tj], a[rows - 1][1], bk[tj][1]);
            }
        }
    }
    LOOM_PRAGMA_UNROLL
    for (int k = 0; !K8 && k < S::rows; k += 4) {
        if (k >= k_bound) break;
        double a[rows];
        double bk[MT];
        LOOM_PRAGMA_UNROLL
        for (int ti = 0; ti < rows; ++ti) a[ti] = sA[(8 * (share.first + ti) + g) * S::pitch + k + t];
        LOOM_PRAGMA_UNROLL
        for (int tj = 0; tj < MT; ++tj) bk[tj] = sB[(k + t) * S::pitch + 8 * tj + g];
        LOOM_PRAGMA_UNROLL
        for (int ti = 0; ti < rows; ++ti) {
            LOOM_PRAGMA_UNROLL
            for (int tj = 0; tj < MT; ++tj) mma(d[ti][tj], a[ti], bk[tj]);
        }
    }

    const auto result = [&](double sum, double c_value) {
        return beta_zero ? alpha * sum : beta * c_value + alpha * sum;
    };
    if (c_flat) {
        sync_matrix<W>(slot);  // every lane is done reading sA
        for_tile_pairs(share, lane, n, [&](int ti, int tj, int i, int j) {
            *reinterpret_cast<double2*>(sA + i * S::pitch + j) =
                make_double2(d[ti][tj][0], d[ti][tj][1]);
        });
        __syncwarp();  // a warp reads back only its own rows
        for_flat(share, lane, n, [&](int v, int e, int row, int col) {
            C.data()[e] = result(sA[row * S::pitch + col], c[v]);
        });
        return;
    }
    for_tile_pairs(share, lane, n, [&](int ti, int tj, int i, int j) {
        const double* pair = c + 2 * (ti * MT + tj);
        const double x = result(d[ti][tj][0], pair[0]);
        const double y = result(d[ti][tj][1], pair[1]);
        if (c_pairs) {
            *reinterpret_cast<double2*>(&C(i, j)) = make_double2(x, y);
        } else {
            C(i, j) = x;
            if (j + 1 < n) C(i, j + 1) = y;
        }
    });
}

template <int MT, int W, bool K8>
void launch_tiles(const CudaExecutor& exec, const Operands<double, 3>& ops, double alpha,
                  double beta, size_type count, int n)
{
    // Several 36 KB blocks per SM need the largest shared-memory carveout.
    static const bool carveout = warp_gemm::prefer_max_shared(gemm_kernel<MT, W, K8>);
    (void)carveout;
    const auto blocks = static_cast<unsigned>((count + warps_per_block - 1) / warps_per_block);
    gemm_kernel<MT, W, K8><<<blocks, block_threads * W, 0, loom::cuda::stream_of(exec)>>>(
        ops, alpha, beta, count, n);
}

/// Orders min_order..32. Measured on the H200 (163840 matrices, us; cuBLAS strided batched in
/// brackets): 3 x 3 tiles with m8n8k4 at 17..24 (m16n8k8 there: 571 vs 522 at 17, even at
/// 20 and 24); 4 x 4 tiles, two warps per matrix with m16n8k8 at 25..32: n = 25 1156 [1133],
/// 28 1009 [1121], 31 1359 [1433], 32 1255 [1317], against one warp with m8n8k4: 1334, 1300,
/// 1595, 1301 (m16n8k8 alone: 1271, 991, 1532, 1240; two warps alone: 1263, 1236, 1483, 1238).
/// Session 14 (immediate barrier ids, 5 blocks per SM; branch-free flat walk): 25 964 [1113],
/// 27 985 [1188], 28 951 [1111], 31 1287 [1426], 32 1236 [1300].
inline void launch(const CudaExecutor& exec, const Operands<double, 3>& ops, double alpha,
                   double beta, size_type count, int n)
{
    if (tiles_for(n) == 3) return launch_tiles<3, 1, false>(exec, ops, alpha, beta, count, n);
    launch_tiles<4, 2, true>(exec, ops, alpha, beta, count, n);
}

}  // namespace loom::batched::cuda_front::dmma_gemm
