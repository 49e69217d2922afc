// Launch::team_vector on CUDA for square real matrices of order n <= 32: a group of G lanes of
// one warp per matrix (G the power of two >= n, so a warp holds 32 / G matrices), with the
// order a template parameter (exact up to 8, a bound of 16 or 32 above) so that every loop
// unrolls and the per-lane rows and columns live in registers. No block-wide barrier: a group
// synchronizes with __syncwarp and exchanges values with shuffles over its own lanes.
//
//   gemm   n <= 16: lane i holds row i of A and of C; B is staged in shared memory (row k by
//          the group's lanes, one column each: coalesced), read as broadcasts. n = 17..32:
//          one warp per matrix with register tiles of C (cuda_warp_gemm.cuh), for double on
//          the FP64 tensor cores (cuda_dmma_gemm.cuh).
//   trmm   lane j computes column j of the result from its column of B (in registers) and
//          the staged triangle; rows of the result go back coalesced.
//   trtri  lane j computes column j of the inverse by substitution on the staged triangle;
//          the reciprocals of the diagonal are computed once, by their lane, and shuffled.
//          n <= thread_trtri_max: a thread per matrix (cuda_thread.cuh).
//   getrf  n <= 10: a thread per matrix, the matrix in registers; other n <= 32: 1, 4, 8 or
//          16 lanes per matrix, the matrix in shared memory (cuda_thread.cuh).
//
// Staging into shared memory is coalesced (a row per instruction) and, from the bound 16 on,
// cp.async (cuda_async.cuh): every copy of a lane in flight at once; see NOTES.md.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/cuda/helpers.cuh"
#include "batched/front/cuda_async.cuh"
#include "batched/front/cuda_dmma_gemm.cuh"
#include "batched/front/cuda_thread.cuh"
#include "batched/front/cuda_warp_gemm.cuh"
#include "batched/front/operand.hpp"
#include "batched/front/routines.hpp"
#include "loom/batched/front.hpp"

namespace loom::batched::cuda_front::rows {

using front::Operands;
using thread::PairOf;

/// Threads per block: 128 / G matrices, whatever n (at most 33 KB of shared memory).
constexpr int block_threads = 128;
/// The largest order served (one matrix per warp).
constexpr int max_order = 32;
/// Matrices one launch takes (the grid is one pass of at least 4 matrices per block).
constexpr size_type max_count = static_cast<size_type>(INT_MAX) * 4;

constexpr int lanes_for(int n)
{
    int g = 1;
    while (g < n) g *= 2;
    return g;
}

/// Values of shared memory per matrix. The groups of a warp read the same entry of their own
/// matrices at once: an odd pitch (odd orders), or one of 2 mod 16 (even orders, where pairs of
/// entries are read as one 16-byte load), puts them on distinct banks.
constexpr int pitch_for(int nmax)
{
    const int square = nmax * nmax;
    if (nmax % 2 == 1) return square;
    return lanes_for(nmax) == 32 ? square : square + 2;
}

/// The template bound serving order n: exact up to 8, then 16 and 32.
constexpr int bound_for(int n) { return n <= 8 ? n : n <= 16 ? 16 : 32; }

template <int NMAX>
struct Group {
    static constexpr int lanes = lanes_for(NMAX);
    static constexpr int per_block = block_threads / lanes;
    int lane;      ///< within the group
    int index;     ///< group within the block
    unsigned mask; ///< the group's lanes within the warp
    int n;         ///< the order (a constant when NMAX <= 8)

    __device__ static Group make(int runtime_n)
    {
        Group g;
        g.lane = static_cast<int>(threadIdx.x) % lanes;
        g.index = static_cast<int>(threadIdx.x) / lanes;
        const int first = static_cast<int>(threadIdx.x) % 32 / lanes * lanes;
        g.mask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << first;
        g.n = NMAX <= 8 ? NMAX : runtime_n;
        return g;
    }
    __device__ size_type matrix() const
    {
        return static_cast<size_type>(blockIdx.x) * per_block + index;
    }
    __device__ void sync() const { __syncwarp(mask); }
    template <typename T>
    __device__ T from(const T& value, int lane_in_group) const
    {
        return __shfl_sync(mask, value, lane_in_group, lanes);
    }
    template <typename T>
    __device__ T xor_lane(const T& value, int offset) const
    {
        return __shfl_xor_sync(mask, value, offset, lanes);
    }
};

/// Copies the entries (k, j) of M with keep(k, j) into s[k * pitch + j] (pitch 0: n), lane j
/// taking column j: one row per instruction, coalesced. From the bound 16 on, every copy of the
/// lane is in flight at once (cp.async; a 32 x 32 matrix is 8 KB per warp); the small orders,
/// whose measured figures were reached with it, keep loading all their rows into registers
/// before storing them. The group syncs before reading s.
template <int NMAX, typename T, typename Keep>
__device__ LOOM_INLINE void stage(const Group<NMAX>& g, const View<T>& M, T* s, Keep keep,
                                  int pitch = 0)
{
    if (pitch == 0) pitch = g.n;
    const int j = g.lane;
    if (j >= g.n) return;
    if constexpr (NMAX >= 16) {
        LOOM_PRAGMA_UNROLL
        for (int k = 0; k < NMAX; ++k) {
            if (k < g.n && keep(k, j)) async::copy(s + k * pitch + j, &M(k, j));
        }
        async::wait_all();
    } else {
        T r[NMAX];
        LOOM_PRAGMA_UNROLL
        for (int k = 0; k < NMAX; ++k) {
            if (keep(k, j)) r[k] = M(k, j);
        }
        LOOM_PRAGMA_UNROLL
        for (int k = 0; k < NMAX; ++k) {
            if (keep(k, j)) s[k * pitch + j] = r[k];
        }
    }
}

struct Everything {
    __device__ bool operator()(int, int) const { return true; }
};
template <bool Lower>
struct Triangle {
    __device__ bool operator()(int k, int j) const { return Lower ? j <= k : j >= k; }
};

template <typename T>
__device__ T* shared_values()
{
    extern __shared__ __align__(16) unsigned char loom_rows_shared[];
    return reinterpret_cast<T*>(loom_rows_shared);
}

// ---------------------------------------------------------------------------------------- gemm

/// C = alpha A B + beta C (C not read when beta is zero), the products summed over k in
/// order as Gemm<Mode::Serial> does.
template <int NMAX, typename T>
__global__ void __launch_bounds__(block_threads)
    gemm_kernel(Operands<T, 3> ops, T alpha, T beta, size_type count, int runtime_n)
{
    const auto g = Group<NMAX>::make(runtime_n);
    const size_type b = g.matrix();
    if (b >= count) return;
    const int n = g.n;
    const int i = g.lane;
    const auto A = ops[0].global(b);
    const auto B = ops[1].global(b);
    const auto C = ops[2].global(b);
    const bool beta_zero = beta == T(0);
    T a[NMAX];
    T c[NMAX];
    LOOM_PRAGMA_UNROLL
    for (int k = 0; k < NMAX; ++k) {
        a[k] = T(0);
        c[k] = T(0);
        if (k < n && i < n) {
            a[k] = A(i, k);
            if (!beta_zero) c[k] = C(i, k);
        }
    }
    T* sB = shared_values<T>() + g.index * pitch_for(NMAX);
    stage(g, B, sB, Everything{});
    g.sync();
    if (i >= n) return;
    // Two columns at a time: two independent sums, and for an even order one 16-byte load of
    // B(k, j..j+1) per k (the pitch keeps each group's B 16-byte aligned then).
    LOOM_PRAGMA_UNROLL
    for (int j = 0; j < NMAX; j += 2) {
        if (j >= n) break;
        const bool pair = j + 1 < n;
        T s0(0);
        T s1(0);
        if (n % 2 == 0) {
            using Pair = typename PairOf<T>::type;
            LOOM_PRAGMA_UNROLL
            for (int k = 0; k < NMAX; ++k) {
                if (k < n) {
                    const Pair b2 = *reinterpret_cast<const Pair*>(sB + k * n + j);
                    s0 += a[k] * b2.x;
                    s1 += a[k] * b2.y;
                }
            }
        } else {
            LOOM_PRAGMA_UNROLL
            for (int k = 0; k < NMAX; ++k) {
                if (k < n) {
                    s0 += a[k] * sB[k * n + j];
                    if (pair) s1 += a[k] * sB[k * n + j + 1];
                }
            }
        }
        C(i, j) = beta_zero ? alpha * s0 : beta * c[j] + alpha * s0;
        if (j + 1 < NMAX && pair) C(i, j + 1) = beta_zero ? alpha * s1 : beta * c[j + 1] + alpha * s1;
    }
}

// ---------------------------------------------------------------------------------------- trmm

/// B = alpha A B for the triangular A (Side::Left as the front call canonicalized it). Lane j
/// computes column j: it loads its column of B into registers (row by row across the group:
/// coalesced), the triangle is staged in shared memory and read as broadcasts, and row i of
/// the result goes out as one coalesced row per instruction. Each entry is summed in the order
/// of detail::tri_mult: the diagonal term first, then the columns moving away from it.
template <int NMAX, bool Lower, bool Unit, typename T>
__global__ void __launch_bounds__(block_threads)
    trmm_kernel(Operands<T, 2> ops, T alpha, size_type count, int runtime_n)
{
    const auto g = Group<NMAX>::make(runtime_n);
    const size_type b = g.matrix();
    if (b >= count) return;
    const int n = g.n;
    const int j = g.lane;
    const auto A = ops[0].global(b);
    const auto B = ops[1].global(b);
    if (alpha == T(0)) {  // as the routine: B = 0 without reading A or B
        if (j < n) {
            LOOM_PRAGMA_UNROLL
            for (int i = 0; i < NMAX; ++i) {
                if (i < n) B(i, j) = T(0);
            }
        }
        return;
    }
    // The column's loads are in flight while the triangle is staged.
    T x[NMAX];  // alpha B(k, j)
    LOOM_PRAGMA_UNROLL
    for (int k = 0; k < NMAX; ++k) {
        x[k] = T(0);
        if (k < n && j < n) x[k] = B(k, j);
    }
    T* sA = shared_values<T>() + g.index * pitch_for(NMAX);
    stage(g, A, sA, Triangle<Lower>{});
    g.sync();
    if (j >= n) return;
    LOOM_PRAGMA_UNROLL
    for (int k = 0; k < NMAX; ++k) x[k] = alpha * x[k];
    LOOM_PRAGMA_UNROLL
    for (int i = 0; i < NMAX; ++i) {
        if (i >= n) break;
        T s = Unit ? x[i] : sA[i * n + i] * x[i];
        if constexpr (Lower) {
            LOOM_PRAGMA_UNROLL
            for (int k = i - 1; k >= 0; --k) s += sA[i * n + k] * x[k];
        } else {
            LOOM_PRAGMA_UNROLL
            for (int k = i + 1; k < NMAX; ++k) {
                if (k < n) s += sA[i * n + k] * x[k];
            }
        }
        B(i, j) = s;
    }
}

// --------------------------------------------------------------------------------------- trtri

/// A = inv(A) for the triangular A, in place (the other triangle and a unit diagonal are not
/// touched); a zero diagonal entry leaves A as it was and sets info (LAPACK's convention).
/// Column j of the inverse: X(j, j) = 1 / A(j, j) and, moving away from the diagonal,
/// X(i, j) = -X(i, i) sum_k A(i, k) X(k, j) over the k between j and i.
template <int NMAX, bool Lower, bool Unit, typename T>
__global__ void __launch_bounds__(block_threads)
    trtri_kernel(Operands<T, 1> ops, int32* info, size_type count, int runtime_n)
{
    const auto g = Group<NMAX>::make(runtime_n);
    const size_type b = g.matrix();
    if (b >= count) return;
    const int n = g.n;
    const int j = g.lane;
    const auto A = ops[0].global(b);
    // From the bound 16 on, rows at the even pitch NMAX: the sums read A(r, k..k+1) as one
    // load (half the shared-memory wavefronts, which bound this kernel at n = 16).
    constexpr bool pairs = NMAX >= 16;
    const int pitch = pairs ? NMAX : n;
    T* sA = shared_values<T>() + g.index * pitch_for(NMAX);
    stage(g, A, sA, Triangle<Lower>{}, pitch);
    g.sync();
    T reciprocal(1);
    if constexpr (!Unit) {
        const bool zero = j < n && sA[j * pitch + j] == T(0);
        const unsigned zeros = __ballot_sync(g.mask, zero) & g.mask;
        if (zeros != 0) {
            const int first = __ffs(static_cast<int>(zeros >> (__ffs(static_cast<int>(g.mask)) - 1)));
            if (info != nullptr && j == 0) info[b] = first;
            return;
        }
        if (j < n) reciprocal = T(1) / sA[j * pitch + j];
    }
    T x[NMAX];
    LOOM_PRAGMA_UNROLL
    for (int s = 0; s < NMAX; ++s) {
        const int r = Lower ? s : NMAX - 1 - s;  // row of the inverse, away from row 0 / n - 1
        x[r] = T(0);
        if (r >= n) continue;
        const T r_reciprocal = Unit ? T(1) : g.from(reciprocal, r);
        if (r == j) {
            x[r] = reciprocal;
        } else if (Lower ? r > j : r < j) {
            T sum(0);
            if constexpr (pairs) {
                using Pair = typename PairOf<T>::type;
                LOOM_PRAGMA_UNROLL
                for (int k = 0; k < NMAX; k += 2) {
                    // (The pair may hold an entry outside the triangle: it is never used.)
                    if (Lower ? k >= r : k + 1 <= r) continue;
                    const Pair a = *reinterpret_cast<const Pair*>(sA + r * pitch + k);
                    if (Lower ? k >= j : k > r && k <= j) sum += a.x * x[k];
                    if (Lower ? k + 1 >= j && k + 1 < r : k + 1 <= j) sum += a.y * x[k + 1];
                }
            } else {
                LOOM_PRAGMA_UNROLL
                for (int k = 0; k < NMAX; ++k) {
                    const bool between = Lower ? k >= j && k < r : k > r && k <= j;
                    if (between) sum += sA[r * pitch + k] * x[k];
                }
            }
            x[r] = Unit ? -sum : -(r_reciprocal * sum);
        }
    }
    if (j < n) {
        LOOM_PRAGMA_UNROLL
        for (int r = 0; r < NMAX; ++r) {
            const bool inside = Lower ? r > j : r < j;
            if (r < n && (inside || (!Unit && r == j))) A(r, j) = x[r];
        }
    }
    if (info != nullptr && j == 0) info[b] = 0;
}

// ------------------------------------------------------------------------------------ dispatch

/// The order when every operand is n x n with 1 <= n <= 32, else 0.
template <typename T, int K>
int square_order(const Operands<T, K>& ops)
{
    const int n = ops[0].rows;
    for (int k = 0; k < K; ++k) {
        if (ops[k].rows != n || ops[k].cols != n) return 0;
    }
    return n >= 1 && n <= max_order ? n : 0;
}

/// Calls launch(std::integral_constant<int, bound_for(n)>).
template <typename F>
void with_bound(int n, F&& launch)
{
    switch (bound_for(n)) {
    case 1: return launch(std::integral_constant<int, 1>{});
    case 2: return launch(std::integral_constant<int, 2>{});
    case 3: return launch(std::integral_constant<int, 3>{});
    case 4: return launch(std::integral_constant<int, 4>{});
    case 5: return launch(std::integral_constant<int, 5>{});
    case 6: return launch(std::integral_constant<int, 6>{});
    case 7: return launch(std::integral_constant<int, 7>{});
    case 8: return launch(std::integral_constant<int, 8>{});
    case 16: return launch(std::integral_constant<int, 16>{});
    default: return launch(std::integral_constant<int, 32>{});
    }
}

struct Grid {
    unsigned blocks;
    std::size_t shared;
};

template <int NMAX, typename T>
Grid grid_for(size_type count, bool staged)
{
    constexpr int per_block = Group<NMAX>::per_block;
    const auto blocks = (count + per_block - 1) / per_block;
    return {static_cast<unsigned>(blocks),
            staged ? static_cast<std::size_t>(per_block) * pitch_for(NMAX) * sizeof(T) : 0};
}

/// Runs launch(bound, grid, stream) on exec for count matrices of order n (bound: with_bound's
/// constant, grid: grid_for's) and checks the launch under `name`; false, launching nothing,
/// where no kernel here takes n or count (the call then runs the generic team_vector launch).
template <typename T, typename F>
bool launch_rows(const CudaExecutor& exec, size_type count, int n, bool staged, const char* name,
                 F&& launch)
{
    if (n == 0 || count > max_count) return false;
    const CudaExecutor::DeviceScope scope(exec.device_id());
    with_bound(n, [&](auto bound) {
        launch(bound, grid_for<decltype(bound)::value, T>(count, staged),
               loom::cuda::stream_of(exec));
    });
    loom::cuda::check_launch(name);
    return true;
}

/// The orders up to which a thread per matrix (cuda_thread.cuh) beats the lane groups. H200,
/// 163840 matrices, double, us (thread / the launch automatic took before): getrf n = 2 10.3 /
/// 10.8 serial, 3 10.5 / 14.2, 4 16.6 / 23.5, 5 22.7 / 36.7, 6 35.6 / 55.4, 7 49.0 / 66.4 rows,
/// 8 61.5 / 79.0 rows, 9 79.4 / 214.9 getrf_wide, 10 95.1 / 231.7 getrf_wide (208 and 248
/// registers, no spill; 11 would not fit); trtri n = 3 10.9 / 12.0 serial, 4 13.2 / 17.3,
/// 5 19.4 / 25.3 rows, 6 30.2 / 30.3, 8 53.7 / 45.5.
constexpr int thread_getrf_max = 10;
constexpr int thread_trtri_max = 5;

/// Calls launch(std::integral_constant<int, n>) for Low <= n <= N.
template <int N = thread::max_order, int Low = 1, typename F>
void with_order(int n, F&& launch)
{
    if constexpr (N >= Low) {
        if (n == N) return launch(std::integral_constant<int, N>{});
        with_order<N - 1, Low>(n, std::forward<F>(launch));
    }
}

/// Lanes per matrix of getrf_shared_kernel by order, 0 where it does not run (n <= 10: a thread
/// per matrix with the matrix in registers). H200, 163840 matrices, double, us, one step per
/// pass (the measured lanes per matrix, L, P: with pairs; getrf_wide_kernel, deleted; cuBLAS
/// getrfBatched): n = 11 L1 147 / 260 / 402, 12 L1 186 L4 184 L2 213 L8 278 / 276 / 452,
/// 13 L1 217 / - / 503, 16 L1 418 L4 367 L8 358 L16 384 L4P 330 L8P 326 / 384 / 677, 17 L1 538
/// L4 452 L8 518 / 1188 / 1152, 20 L1 1148 / - / 1400, 24 L1 2754 L4 1537 L8 959 L16 1290 L8P
/// 891 / 1650 / 1817, 25 L8 1269 L16 1323 / 1678 / 2047, 26 L8 1389 L16 1488 L8P 1174 / 1711 /
/// 2053, 27 L8P 1687 L16P 1631 / 1768 / 2511, 28 L8 2558 L16 1806 L8P 1464 L16P 1495 / 1813 /
/// 2302, 29 L8P 2208 L16P 1812 / 1830 / 2507, 30 L8P 1892 L16P 1704 / 1842 / 2690, 31 L8P 3029
/// L16P 2238 / 1882 / 4856, 32 L8 4207 L16 1999 L4 6355 L8P 2586 L16P 1879 / 1938 / 2694.
constexpr int shared_getrf_lanes(int n)
{
    if (n <= thread_getrf_max || n > max_order) return 0;
    if (n <= 26) return n <= 13 ? 1 : n <= 18 ? 4 : 8;
    return n == 28 ? 8 : 16;
}

/// Whether getrf_shared_kernel takes pairs of entries at order n (lane groups only): at even
/// orders, and 27, 29 and 31; at the other odd orders the single-entry form (H200, us, single /
/// pairs): 15 308 / 399, 17 448 / 545, 19 627 / 718, 21 743 / 866, 23 852 / 1031, 25 1263 / 1364.
constexpr bool shared_getrf_pairs(int n)
{
    return shared_getrf_lanes(n) > 1 && (n % 2 == 0 || n == 27 || n == 29 || n == 31);
}

/// Whether the pair layout also takes pairs in its operations (pivot row, swap, updates): not at
/// 27, 29 and 31, where only the layout pays (H200, us, pair layout with pair / single-entry
/// operations): 27 1632 / 1516, 29 1812 / 1695; 14 259 / 277, 16 330 / 352, 26 1168 / 1207,
/// 28 1454 / 1521, 22, 24, 30, 32 within 1%.
constexpr bool shared_getrf_pair_ops(int n)
{
    return shared_getrf_pairs(n) && n != 27 && n != 29 && n != 31;
}

/// Whether getrf_shared_kernel takes two steps per pass over the trailing rows at order n. H200,
/// 163840 matrices, us, one / two steps per pass (ratio to cuBLAS getrfBatched, same run):
/// double 16 334 / 286 (2.36x), 20 642 / 557 (2.52x), 24 888 / 808 (2.24x), 25 1264 / 1183
/// (1.73x), 26 1170 / 998 (2.05x), 27 1513 / 1419 (1.77x), 28 1458 / 1254 (1.84x), 29 1691 /
/// 1597 (1.58x), 30 1700 / 1462 (1.84x), 31 1877 (getrf_wide) / 1745 (2.78x), 32 1878 / 1601
/// (1.69x); float 16 200 / 180, 24 692 / 543, 25 729 / 616, 28 1020 / 798, 31 1084 / 1090,
/// 32 1143 / 971. Other orders not measured.
constexpr bool shared_getrf_fused(int n) { return n == 16 || n == 20 || n >= 24; }

/// Runs getrf_shared_kernel for order n where it serves n; false if not.
template <typename T>
bool launch_shared_getrf(const CudaExecutor& exec, size_type count, int n, const Operands<T, 1>& ops,
                         const front::GetrfCall& f)
{
    if (shared_getrf_lanes(n) == 0 || count > INT_MAX) return false;
    const CudaExecutor::DeviceScope scope(exec.device_id());
    with_order<max_order, thread_getrf_max + 1>(n, [&](auto order) {
        constexpr int N = decltype(order)::value;
        constexpr int L = shared_getrf_lanes(N);
        if constexpr (L != 0) {
            constexpr bool P = shared_getrf_pairs(N);
            constexpr auto kernel =
                thread::getrf_shared_kernel<N, L, T, P, shared_getrf_pair_ops(N), shared_getrf_fused(N)>;
            constexpr int threads = thread::shared_getrf_threads<N, L, T, P>();
            constexpr auto shared = thread::shared_bytes<N, T, L, P>(threads);
            static const bool allowed = thread::allow_shared(kernel, shared);
            (void)allowed;  // if refused, the launch fails and says so
            const auto blocks = (count + threads / L - 1) / (threads / L);
            kernel<<<static_cast<unsigned>(blocks), threads, shared, loom::cuda::stream_of(exec)>>>(
                ops, f.pivots, f.info, count);
        }
    });
    loom::cuda::check_launch("loom::batched::getrf (CUDA team_vector)");
    return true;
}

/// Runs launch(order, blocks, shared bytes, stream) for the thread-per-matrix kernels
/// (n <= thread::max_order) and checks the launch under `name`; false where count is too large.
template <typename T, typename F>
bool launch_thread(const CudaExecutor& exec, size_type count, int n, const char* name, F&& launch)
{
    if (count > static_cast<size_type>(INT_MAX) * thread::block_threads) return false;
    const CudaExecutor::DeviceScope scope(exec.device_id());
    with_order(n, [&](auto order) {
        constexpr int N = decltype(order)::value;
        launch(order, thread::blocks_for(count), thread::shared_bytes<N, T>(),
               loom::cuda::stream_of(exec));
    });
    loom::cuda::check_launch(name);
    return true;
}

/// Whether a functor has a kernel here (real values only: the complex ones run the generic
/// team_vector launch).
template <typename T, int K, typename F>
bool run(const CudaExecutor&, size_type, const Operands<T, K>&, const F&)
{
    return false;
}

template <typename T>
    requires std::is_floating_point_v<T>
bool run(const CudaExecutor& exec, size_type count, const Operands<T, 3>& ops,
         const front::GemmCall<T, Trans::NoTranspose, Trans::NoTranspose>& f)
{
    const int n = square_order(ops);
    constexpr auto name = "loom::batched::gemm (CUDA team_vector)";
    if (n >= warp_gemm::min_order) {  // one warp per matrix, register tiles of C
        if (count > warp_gemm::max_count) return false;
        const CudaExecutor::DeviceScope scope(exec.device_id());
        if constexpr (std::is_same_v<T, double>) {  // on the FP64 tensor cores
            dmma_gemm::launch(exec, ops, f.alpha, f.beta, count, n);
        } else {
            warp_gemm::launch(exec, ops, f.alpha, f.beta, count, n);
        }
        loom::cuda::check_launch(name);
        return true;
    }
    return launch_rows<T>(exec, count, n, true, name, [&](auto bound, Grid grid, auto stream) {
        constexpr int NMAX = decltype(bound)::value;
        if constexpr (NMAX < warp_gemm::min_order) {
            gemm_kernel<NMAX, T><<<grid.blocks, block_threads, grid.shared, stream>>>(
                ops, f.alpha, f.beta, count, n);
        }
    });
}

/// trmm's and trtri's kernels take the triangle and the diagonal as flags.
template <typename UploT>
constexpr bool lower_v = std::is_same_v<UploT, Uplo::Lower>;
template <typename DiagT>
constexpr bool unit_v = std::is_same_v<DiagT, Diag::Unit>;

template <typename T, typename UploT, typename DiagT>
    requires std::is_floating_point_v<T>
bool run(const CudaExecutor& exec, size_type count, const Operands<T, 2>& ops,
         const front::TriangularCall<T, UploT, Trans::NoTranspose, DiagT, false>& f)
{
    const int n = square_order(ops);
    return launch_rows<T>(exec, count, n, true, "loom::batched::trmm (CUDA team_vector)",
                          [&](auto bound, Grid grid, auto stream) {
        trmm_kernel<decltype(bound)::value, lower_v<UploT>, unit_v<DiagT>, T>
            <<<grid.blocks, block_threads, grid.shared, stream>>>(ops, f.alpha, count, n);
    });
}

template <typename T, typename UploT, typename DiagT>
    requires std::is_floating_point_v<T>
bool run(const CudaExecutor& exec, size_type count, const Operands<T, 1>& ops,
         const front::TrtriCall<UploT, DiagT>& f)
{
    const int n = square_order(ops);
    constexpr auto name = "loom::batched::trtri (CUDA team_vector)";
    if (n != 0 && n <= thread_trtri_max) {
        return launch_thread<T>(exec, count, n, name,
                                [&](auto order, unsigned blocks, std::size_t shared, auto stream) {
            constexpr int N = decltype(order)::value;
            if constexpr (N <= thread_trtri_max) {
                thread::trtri_kernel<N, lower_v<UploT>, unit_v<DiagT>, T>
                    <<<blocks, thread::block_threads, shared, stream>>>(ops, f.info, count);
            }
        });
    }
    return launch_rows<T>(exec, count, n, true, name, [&](auto bound, Grid grid, auto stream) {
        constexpr int NMAX = decltype(bound)::value;
        if constexpr (NMAX > thread_trtri_max) {
            trtri_kernel<NMAX, lower_v<UploT>, unit_v<DiagT>, T>
                <<<grid.blocks, block_threads, grid.shared, stream>>>(ops, f.info, count, n);
        }
    });
}

template <typename T>
    requires std::is_floating_point_v<T>
bool run(const CudaExecutor& exec, size_type count, const Operands<T, 1>& ops,
         const front::GetrfCall& f)
{
    const int n = square_order(ops);
    constexpr auto name = "loom::batched::getrf (CUDA team_vector)";
    static_assert(thread_getrf_max == thread::max_order, "orders 11..32: getrf_shared_kernel");
    if (n != 0 && n <= thread_getrf_max) {
        return launch_thread<T>(exec, count, n, name,
                                [&](auto order, unsigned blocks, std::size_t shared, auto stream) {
            constexpr auto kernel = thread::getrf_kernel<decltype(order)::value, T>;
            static const bool allowed = thread::allow_shared(kernel, shared);
            (void)allowed;  // if refused, the launch fails and says so
            kernel<<<blocks, thread::block_threads, shared, stream>>>(ops, f.pivots, f.info, count);
        });
    }
    return launch_shared_getrf<T>(exec, count, n, ops, f);
}

}  // namespace loom::batched::cuda_front::rows
