// Launch::team_vector on CUDA for square real matrices of small order N (a template constant):
// one thread per matrix, the whole matrix in registers, every loop unrolled. A block of
// `block_threads` threads takes as many consecutive matrices and moves them through shared
// memory: in as one flat run of values (cp.async, 32 consecutive values per warp instruction,
// all of a thread's copies in flight), out the same way, whole matrices (both triangles for
// trtri, so that every 32-byte sector is written whole and never merged with what DRAM held).
// The lane-per-row kernels (cuda_rows.cuh) spread a matrix over a group of lanes and pay
// shuffles and a barrier per step; at these orders one thread does the O(N^3) work alone for
// fewer instructions than the group spends exchanging values.
//
//   getrf  partial pivoting as detail::getrf_partial (the first largest |a|, a NaN on the
//          diagonal keeps its row, one below is never taken); rows are swapped in registers.
//          Orders 11..32 (getrf_shared_kernel): the matrix stays in the staging, L = 1, 4, 8
//          or 16 lanes per matrix, the pivot row in registers, rows swapped in shared memory;
//          at even orders two entries of a row per 16-byte access (27, 29, 31: the even-pitch
//          rows of that layout, single-entry operations); at 16, 20, 24, 25, 26, 27, 28, 29, 30, 31, 32 two steps per
//          pass over the trailing rows.
//   trtri  substitution as the rows kernel (column j of the inverse, rows moving away from the
//          diagonal), a zero diagonal entry leaves the matrix as it was and sets info.
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "base/cuda/helpers.cuh"
#include "batched/front/cuda_async.cuh"
#include "batched/front/operand.hpp"

namespace loom::batched::cuda_front::thread {

using front::Operand;
using front::Operands;

/// Matrices (threads) per block.
constexpr int block_threads = 64;
/// The largest order served (getrf; trtri stops earlier): at n = 10 a matrix is 200 of a
/// thread's 255 registers.
constexpr int max_order = 10;

/// Values of shared memory per matrix: odd, so that the threads of a warp, each reading entry
/// e of its own matrix, fall on distinct banks.
constexpr int pitch_for(int n) { return (n * n) | 1; }

/// The smallest p >= at_least with p = residue (mod 32).
constexpr int padded_to(int at_least, int residue)
{
    return at_least + ((residue - at_least) % 32 + 32) % 32;
}

/// Two consecutive values as one aligned load.
template <typename T>
struct PairOf;
template <>
struct PairOf<double> {
    using type = double2;
};
template <>
struct PairOf<float> {
    using type = float2;
};

/// The smallest even row pitch >= n whose half is odd: rows 16-byte aligned for pair accesses,
/// and 8 consecutive rows at one column on 8 distinct 16-byte bank groups.
constexpr int pair_pitch(int n)
{
    const int even = n + n % 2;
    return even / 2 % 2 == 1 ? even : even + 2;
}

/// A block's matrices of order N staged in shared memory, L lanes per matrix (a thread per
/// matrix when L = 1). Entry (i, j) of matrix m at m * pitch + i * row_pitch + j. L = 1: rows
/// packed, an odd pitch (each thread reading entry e of its own matrix: distinct banks). L > 1:
/// the lanes of a group read one column of different rows, so rows at an odd pitch, and the
/// groups of a warp apart by L banks (pitch = L mod 32). Pairs (L > 1): rows at pair_pitch, so
/// that a lane reads and writes two entries of its row as one 16-byte access; the matrices
/// 16-byte aligned, at L = 4 the two groups of a quarter warp 8 values apart (distinct banks).
template <int N, int L = 1, bool Pairs = false>
struct Block {
    static constexpr int values = N * N;
    static constexpr int row_pitch = L == 1 ? N : Pairs ? pair_pitch(N) : (N | 1);
    static constexpr int pitch = L == 1   ? pitch_for(N)
                                 : Pairs ? padded_to(N * row_pitch, L == 4 ? 8 : L)
                                         : padded_to(N * row_pitch, L);
    size_type first;  ///< the block's first matrix
    int count;        ///< its matrices (fewer in the last block)
    int threads;      ///< the block's threads

    __device__ static Block make(size_type total)
    {
        Block blk;
        blk.threads = static_cast<int>(blockDim.x);
        const int matrices = blk.threads / L;
        blk.first = static_cast<size_type>(blockIdx.x) * matrices;
        const size_type left = total - blk.first;
        blk.count = left < matrices ? static_cast<int>(left) : matrices;
        return blk;
    }
    /// Whether the block's matrices of o are one run of count * N^2 values.
    template <typename T>
    __device__ bool flat(const Operand<T>& o) const
    {
        return !o.transposed && o.stride == N && o.batch_stride == values;
    }
    /// f(s, global) for every entry: s its index in the staging, global its address.
    template <typename T, typename F>
    __device__ LOOM_INLINE void for_entries(const Operand<T>& o, F&& f) const
    {
        const int total = count * values;
        const bool run = flat(o);
        const T* base = o.data + first * values;
        for (int e = static_cast<int>(threadIdx.x); e < total; e += threads) {
            const int m = e / values;  // constant divisors: multiplications
            const int r = e % values;
            T* at = run ? const_cast<T*>(base) + e : &o.global(first + m)(r / N, r % N);
            if constexpr (row_pitch == N) {
                f(m * pitch + r, at);
            } else {
                f(m * pitch + r / N * row_pitch + r % N, at);
            }
        }
    }
    /// Whether the block's matrices move as pairs of entries, one 16-byte access each (Pairs
    /// with an even order: a pair never straddles two rows, and every row starts aligned).
    template <typename T>
    __device__ bool paired(const Operand<T>& o) const
    {
        if constexpr (!Pairs || N % 2 != 0) {
            return false;
        } else {
            return flat(o) && reinterpret_cast<std::uintptr_t>(o.data) % (2 * sizeof(T)) == 0;
        }
    }
    /// f(s, global) for every pair of entries (paired(o) only).
    template <typename T, typename F>
    __device__ LOOM_INLINE void for_pairs(const Operand<T>& o, F&& f) const
    {
        const int total = count * values / 2;
        T* base = const_cast<T*>(o.data) + first * values;
        for (int e2 = static_cast<int>(threadIdx.x); e2 < total; e2 += threads) {
            const int e = 2 * e2;
            const int m = e / values;
            const int r = e % values;
            f(m * pitch + r / N * row_pitch + r % N, base + e);
        }
    }
    template <typename T>
    __device__ void load(const Operand<T>& o, T* s) const
    {
        if (paired(o)) {
            for_pairs(o, [&](int i, T* at) {
                if constexpr (sizeof(T) == 8) {
                    async::copy16(s + i, at);
                } else {
                    async::copy(reinterpret_cast<unsigned long long*>(s + i),
                                reinterpret_cast<const unsigned long long*>(at));
                }
            });
        } else {
            for_entries(o, [&](int i, T* at) { async::copy(s + i, at); });
        }
        async::wait_all();
        __syncthreads();
    }
    template <typename T>
    __device__ void store(const Operand<T>& o, const T* s) const
    {
        __syncthreads();
        if (paired(o)) {
            using Pair = typename PairOf<T>::type;
            for_pairs(o, [&](int i, T* at) {
                *reinterpret_cast<Pair*>(at) = *reinterpret_cast<const Pair*>(s + i);
            });
        } else {
            for_entries(o, [&](int i, T* at) { *at = s[i]; });
        }
    }
};

template <int N, typename T>
__device__ LOOM_INLINE void read(const T* s, T (&a)[N][N])
{
    LOOM_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) {
        LOOM_PRAGMA_UNROLL
        for (int j = 0; j < N; ++j) a[i][j] = s[i * N + j];
    }
}

template <int N, typename T>
__device__ LOOM_INLINE void write(T* s, const T (&a)[N][N])
{
    LOOM_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) {
        LOOM_PRAGMA_UNROLL
        for (int j = 0; j < N; ++j) s[i * N + j] = a[i][j];
    }
}

template <typename T>
__device__ T* shared_values()
{
    extern __shared__ __align__(16) unsigned char loom_thread_shared[];
    return reinterpret_cast<T*>(loom_thread_shared);
}

/// Stages the block's matrices of o, calls f(a, b) on this thread's matrix b held in registers
/// a (f returns whether a goes back), and stores the block's matrices.
template <int N, typename T, typename F>
__device__ LOOM_INLINE void on_own_matrix(const Operand<T>& o, size_type count, F&& f)
{
    const auto blk = Block<N>::make(count);
    T* s = shared_values<T>();
    blk.load(o, s);
    const int t = static_cast<int>(threadIdx.x);
    if (t < blk.count) {
        T a[N][N];
        read(s + t * Block<N>::pitch, a);
        if (f(a, blk.first + t)) write(s + t * Block<N>::pitch, a);
    }
    blk.store(o, s);
}

/// The pivot row of step k: the first i >= k of the largest |entry(i)| (LAPACK's choice: a NaN
/// on the diagonal keeps row k, one below is never taken).
template <int N, typename Entry>
__device__ LOOM_INLINE int first_largest(int k, Entry&& entry)
{
    const auto magnitude = [](auto x) { return x < decltype(x)(0) ? -x : x; };
    int p = k;
    auto largest = magnitude(entry(k));
    LOOM_PRAGMA_UNROLL
    for (int i = k + 1; i < N; ++i) {
        const auto candidate = magnitude(entry(i));
        if (candidate > largest) {
            largest = candidate;
            p = i;
        }
    }
    return p;
}

/// P A = L U with partial pivoting, pivots 0-based, info the first zero pivot column + 1.
template <int N, typename T>
__global__ void __launch_bounds__(block_threads)
    getrf_kernel(Operands<T, 1> ops, int32* pivots, int32* info, size_type count)
{
    on_own_matrix<N>(ops[0], count, [&](T(&a)[N][N], size_type b) {
        int failed = 0;
        LOOM_PRAGMA_UNROLL
        for (int k = 0; k < N; ++k) {
            const int p = first_largest<N>(k, [&](int i) { return a[i][k]; });
            pivots[b * N + k] = p;
            // Rows k and p trade places (a select per entry: the registers have fixed names).
            LOOM_PRAGMA_UNROLL
            for (int i = k + 1; i < N; ++i) {
                const bool swap = p == i;
                LOOM_PRAGMA_UNROLL
                for (int j = 0; j < N; ++j) {
                    const T x = a[k][j];
                    const T y = a[i][j];
                    a[k][j] = swap ? y : x;
                    a[i][j] = swap ? x : y;
                }
            }
            if (a[k][k] == T(0)) {  // the column is zero from the diagonal down
                if (failed == 0) failed = k + 1;
                continue;
            }
            const T inv = T(1) / a[k][k];
            LOOM_PRAGMA_UNROLL
            for (int i = k + 1; i < N; ++i) {
                const T l = a[i][k] * inv;
                LOOM_PRAGMA_UNROLL
                for (int j = k + 1; j < N; ++j) a[i][j] -= l * a[k][j];
                a[i][k] = l;
            }
        }
        info[b] = failed;
        return true;
    });
}

/// f(std::integral_constant<int, k>) for k = 0 .. N - 1, in order.
template <int N, typename F>
__device__ LOOM_INLINE void for_each_step(F&& f)
{
    [&]<int... K>(std::integer_sequence<int, K...>) {
        (f(std::integral_constant<int, K>{}), ...);
    }(std::make_integer_sequence<int, N>{});
}

/// The pivot search's key of a candidate as one integer: the bits of |a| (the bits of
/// non-negative doubles order like their values) plus one, so that 0, the key of
/// non-candidates, is below every candidate, a zero one included; NaN ordered as
/// detail::getrf_partial's scan sees it (on the diagonal above everything, below the diagonal
/// never taken).
template <typename T>
__device__ LOOM_INLINE unsigned long long pivot_key(T value, bool candidate, bool diagonal)
{
    if (!candidate) return 0;
    const double magnitude = fabs(static_cast<double>(value));
    if (magnitude != magnitude) return diagonal ? __double_as_longlong(INFINITY) + 1ull : 0ull;
    return static_cast<unsigned long long>(__double_as_longlong(magnitude)) + 1ull;
}

/// getrf for the orders whose matrix does not fit in a thread's registers (n > max_order): the
/// factorization, pivots and operation order of getrf_kernel with the matrix left in the
/// block's staging and the pivot row of each step in registers, L lanes per matrix (a power of
/// two up to 16; L = 1: a thread per matrix). Per step: the pivot search over the lanes' rows
/// (L > 1: then a butterfly over (key, position), ties to the first position), the pivot row
/// read by every lane, rows k and p swapped in shared memory (lane c taking the columns
/// c mod L), then each lane updates its rows i = c mod L below k: per entry one load, one FMA
/// and one store. A warp works on 32 / L matrices at once: the per-step costs (search, swap,
/// division) are shared by fewer lanes' worth of work than in the lane-per-row kernel it
/// replaced (getrf_wide_kernel, deleted in session 14: one matrix per 16 or 32 lanes, ~200
/// instructions per step and matrix).
///
/// Pairs (L > 1): rows at Block's pair_pitch, and the pivot row's read, the swap and the row
/// updates take two entries of a row per 16-byte access (an update of two entries: one load,
/// two FMA, one store, where single entries cost three instructions each); at even orders the
/// staging moves pairs too (16-byte cp.async in, 16-byte stores out). H200, double, 163840
/// matrices, us (single / pairs): 14 290 / 259, 16 365 / 330, 18 532 / 464, 22 832 / 744,
/// 24 955 / 891, 26 1379 / 1174; odd orders lost (15 308 / 399, 25 1263 / 1364: there the
/// staging stays entry by entry; ncu at 16 single: 40% of the stalls wait on shared memory,
/// 0.37 instructions issued per cycle and scheduler, 3 warps per scheduler). PairOps = false
/// keeps the pair layout (and staging) with single-entry operations.
///
/// Fused: steps k and k + 1 (k even) in one pass over the trailing rows. ncu of the kernel at
/// 32 (16 lanes, pairs): the L1/shared-memory pipe 94% busy, the trailing rows' loads and
/// stores most of its traffic (~170 of ~270 KB per matrix). Step k swaps rows k and p and
/// updates column k + 1 only (what step k + 1's search reads); step k + 1 searches, swaps
/// rows k + 1 and q (each row's step-k multiplier moves with it), every lane finishes row
/// k + 1 with step k in registers, then each trailing entry is loaded once, takes step k's
/// and step k + 1's updates in the reference's order, and is stored once. A zero pivot skips
/// its step's updates (predicates, not a multiplication by zero: an infinite entry would give
/// NaN). Same pivots, info, operations and order as the one-step form.
template <int N, int L, typename T, bool Pairs = false, bool PairOps = Pairs, bool Fused = false>
__global__ void __launch_bounds__(block_threads)
    getrf_shared_kernel(Operands<T, 1> ops, int32* pivots, int32* info, size_type count)
{
    static_assert(L >= 1 && L <= 16 && (L & (L - 1)) == 0, "a power-of-two group in a warp");
    static_assert(!Fused || L > 1, "two steps per pass: the lane groups");
    static_assert(!Pairs || L > 1, "pairs of a row: the lane groups' layout");
    using Staged = Block<N, L, Pairs>;
    using Pair = typename PairOf<T>::type;
    constexpr int R = Staged::row_pitch;
    constexpr int per_lane = (N + L - 1) / L;  // rows (and columns) of a lane
    const auto blk = Staged::make(count);
    T* s = shared_values<T>();
    blk.load(ops[0], s);
    const int t = static_cast<int>(threadIdx.x);
    const int lane = t % L;
    if (t / L < blk.count) {
        T* a = s + t / L * Staged::pitch;  // entry (i, j) at a[i * R + j]
        const size_type b = blk.first + t / L;
        const unsigned mask = L == 1 ? 0u : ((1u << L) - 1u) << (t % 32 / L * L);
        const auto sync = [&] {
            if constexpr (L > 1) __syncwarp(mask);
        };
        int failed = 0;
        // The steps are unrolled by construction: u's indices must be constants (an unroll
        // pragma left the loop rolled from n = 26 with L = 8, u then in local memory).
        // The pivot row of step kc: the first largest |entry| of column kc from row kc down
        // (L > 1: each lane over its rows, then a butterfly over (key, position)).
        const auto search = [&](auto kc) {
            constexpr int k = decltype(kc)::value;
            int p = k;
            if constexpr (L == 1) {
                p = first_largest<N>(k, [&](int i) { return a[i * R + k]; });
            } else {
                unsigned long long best = 0;
                int at = INT_MAX;
                LOOM_PRAGMA_UNROLL
                for (int r = k / L; r < per_lane; ++r) {
                    const int i = lane + r * L;
                    if (i >= k && i < N) {
                        const auto key = pivot_key(a[i * R + k], true, i == k);
                        if (key > best) {
                            best = key;
                            at = i;
                        }
                    }
                }
                LOOM_PRAGMA_UNROLL
                for (int offset = 1; offset < L; offset <<= 1) {
                    const auto other = __shfl_xor_sync(mask, best, offset, L);
                    const int other_at = __shfl_xor_sync(mask, at, offset, L);
                    if (other > best || (other == best && other_at < at)) {
                        best = other;
                        at = other_at;
                    }
                }
                p = at;
            }
            return p;
        };
        // Rows kc and p trade places, lane c taking the columns (pairs) c mod L (L > 1).
        const auto swap_rows = [&](auto kc, int p) {
            constexpr int k = decltype(kc)::value;
            if constexpr (PairOps) {
                LOOM_PRAGMA_UNROLL
                for (int c = 0; c < (N + 2 * L - 1) / (2 * L); ++c) {
                    const int j = 2 * (lane + c * L);
                    if (j + 1 < N) {
                        auto* x = reinterpret_cast<Pair*>(a + k * R + j);
                        auto* y = reinterpret_cast<Pair*>(a + p * R + j);
                        const Pair xk = *x;
                        *x = *y;
                        *y = xk;
                    } else if (j < N) {
                        const T x = a[k * R + j];
                        a[k * R + j] = a[p * R + j];
                        a[p * R + j] = x;
                    }
                }
            } else {
                LOOM_PRAGMA_UNROLL
                for (int c = 0; c < per_lane; ++c) {
                    const int j = lane + c * L;
                    if (j < N) {
                        const T x = a[k * R + j];
                        a[k * R + j] = a[p * R + j];
                        a[p * R + j] = x;
                    }
                }
            }
        };
        for_each_step<N>([&](auto step) {
            constexpr int k = decltype(step)::value;
            if constexpr (Fused && k % 2 == 1) {
                return;  // taken with step k - 1
            } else if constexpr (Fused && k + 1 < N) {
                // Steps k and k + 1 in one pass over the trailing rows (Fused, above).
                constexpr int k1 = k + 1;
                const int p = search(step);
                if (lane == 0) pivots[b * N + k] = p;
                T u[N];  // row p: step k's pivot row
                LOOM_PRAGMA_UNROLL
                for (int j = k; j < N; j += (PairOps ? 2 : 1)) {
                    if (PairOps && j + 1 < N) {
                        const Pair x = *reinterpret_cast<const Pair*>(a + p * R + j);
                        u[j] = x.x;
                        u[j + 1] = x.y;
                    } else {
                        u[j] = a[p * R + j];
                    }
                }
                sync();  // every lane has read row p
                swap_rows(step, p);
                sync();  // rows k and p are whole again
                const bool do_k = u[k] != T(0);
                if (!do_k && failed == 0) failed = k + 1;
                const T inv = T(1) / (do_k ? u[k] : T(1));
                // Step k on column k + 1 only: what step k + 1's search reads.
                LOOM_PRAGMA_UNROLL
                for (int r = (k + 1) / L; r < per_lane; ++r) {
                    const int i = lane + r * L;
                    if (do_k && i > k && i < N) {
                        T* row = a + i * R;
                        const T l = row[k] * inv;
                        row[k1] -= l * u[k1];
                        row[k] = l;
                    }
                }
                sync();  // column k + 1 is up to date
                const int q = search(std::integral_constant<int, k1>{});
                if (lane == 0) pivots[b * N + k1] = q;
                T v[N];  // row q: its step-k multiplier (column k), then step k + 1's pivot row
                LOOM_PRAGMA_UNROLL
                for (int j = k; j < N; j += (PairOps ? 2 : 1)) {
                    if (PairOps && j + 1 < N) {
                        const Pair x = *reinterpret_cast<const Pair*>(a + q * R + j);
                        v[j] = x.x;
                        v[j + 1] = x.y;
                    } else {
                        v[j] = a[q * R + j];
                    }
                }
                sync();  // every lane has read row q
                swap_rows(std::integral_constant<int, k1>{}, q);
                sync();  // rows k + 1 and q are whole again
                // Row q (now k + 1) takes step k past column k + 1, in every lane's registers.
                LOOM_PRAGMA_UNROLL
                for (int j = k1 + 1; j < N; ++j) {
                    if (do_k) v[j] -= v[k] * u[j];
                }
                const bool do_k1 = v[k1] != T(0);
                if (!do_k1 && failed == 0) failed = k1 + 1;
                const T inv1 = T(1) / (do_k1 ? v[k1] : T(1));
                // The rows loop stays rolled (the columns unroll: u's and v's indices must be
                // constants): unrolled, the kernel passed ~205 KB of code at 25, 26, 28 and
                // 30..32 and ran at half speed (H200: 32 3196 us, 28 3295, against 27 1412
                // and 29 1595 at 187 / 203 KB).
#pragma unroll 1
                for (int r = k1 / L; r < per_lane; ++r) {
                    const int i = lane + r * L;
                    T* row = a + i * R;
                    if (do_k && i == k1) {  // row k + 1 as step k left it
                        LOOM_PRAGMA_UNROLL
                        for (int j = k1 + 1; j < N; ++j) row[j] = v[j];
                    }
                    if (i > k1 && i < N) {
                        const T l = row[k];  // the row's step-k multiplier (it moved with it)
                        const T m = row[k1] * inv1;
                        if (do_k1) row[k1] = m;
                        // Both updates of an entry in one pass, in the reference's order.
                        if constexpr (PairOps) {
                            LOOM_PRAGMA_UNROLL
                            for (int j = k1 + 1; j < N; j += 2) {  // (k + 2 is even)
                                if (j + 1 < N) {
                                    auto* at = reinterpret_cast<Pair*>(row + j);
                                    Pair x = *at;
                                    if (do_k) {
                                        x.x -= l * u[j];
                                        x.y -= l * u[j + 1];
                                    }
                                    if (do_k1) {
                                        x.x -= m * v[j];
                                        x.y -= m * v[j + 1];
                                    }
                                    *at = x;
                                } else {
                                    T x = row[j];
                                    if (do_k) x -= l * u[j];
                                    if (do_k1) x -= m * v[j];
                                    row[j] = x;
                                }
                            }
                        } else {
                            LOOM_PRAGMA_UNROLL
                            for (int j = k1 + 1; j < N; ++j) {
                                T x = row[j];
                                if (do_k) x -= l * u[j];
                                if (do_k1) x -= m * v[j];
                                row[j] = x;
                            }
                        }
                    }
                }
                sync();  // the next step reads rows of every lane
                return;
            }
            const int p = search(step);
            if (lane == 0) pivots[b * N + k] = p;
            T u[N];  // the pivot row, which becomes row k
            if constexpr (PairOps) {  // entries k.. only: the swap below reads the rows itself
                LOOM_PRAGMA_UNROLL
                for (int j = k - k % 2; j < N; j += 2) {
                    if (j + 1 < N) {
                        const Pair v = *reinterpret_cast<const Pair*>(a + p * R + j);
                        u[j] = v.x;
                        u[j + 1] = v.y;
                    } else {
                        u[j] = a[p * R + j];
                    }
                }
            } else {
                LOOM_PRAGMA_UNROLL
                for (int j = 0; j < N; ++j) u[j] = a[p * R + j];
            }
            sync();  // every lane has read row p
            if constexpr (PairOps) {  // lane c takes the pairs c mod L
                LOOM_PRAGMA_UNROLL
                for (int c = 0; c < (N + 2 * L - 1) / (2 * L); ++c) {
                    const int j = 2 * (lane + c * L);
                    if (j + 1 < N) {
                        auto* x = reinterpret_cast<Pair*>(a + k * R + j);
                        auto* y = reinterpret_cast<Pair*>(a + p * R + j);
                        const Pair xk = *x;
                        *x = *y;
                        *y = xk;
                    } else if (j < N) {
                        const T x = a[k * R + j];
                        a[k * R + j] = a[p * R + j];
                        a[p * R + j] = x;
                    }
                }
            } else {
                LOOM_PRAGMA_UNROLL
                for (int c = 0; c < per_lane; ++c) {
                    const int j = lane + c * L;
                    if (j < N) {
                        const T x = a[k * R + j];
                        a[k * R + j] = L == 1 ? u[c] : a[p * R + j];  // (L = 1: j = c)
                        a[p * R + j] = x;
                    }
                }
            }
            sync();  // rows k and p are whole again
            if (u[k] == T(0)) {  // the column is zero from the diagonal down
                if (failed == 0) failed = k + 1;
                return;
            }
            const T inv = T(1) / u[k];
            LOOM_PRAGMA_UNROLL
            for (int r = (k + 1) / L; r < per_lane; ++r) {
                const int i = lane + r * L;
                if (i > k && i < N) {
                    T* row = a + i * R;
                    const T l = row[k] * inv;
                    if constexpr (PairOps) {
                        constexpr int first = k + 1 + (k + 1) % 2;  // the first pair
                        if constexpr (first > k + 1 && k + 1 < N) row[k + 1] -= l * u[k + 1];
                        LOOM_PRAGMA_UNROLL
                        for (int j = first; j + 1 < N; j += 2) {
                            auto* at = reinterpret_cast<Pair*>(row + j);
                            Pair v = *at;
                            v.x -= l * u[j];
                            v.y -= l * u[j + 1];
                            *at = v;
                        }
                        if constexpr (first < N && (N - first) % 2 == 1) row[N - 1] -= l * u[N - 1];
                    } else {
                        LOOM_PRAGMA_UNROLL
                        for (int j = k + 1; j < N; ++j) row[j] -= l * u[j];
                    }
                    row[k] = l;
                }
            }
            sync();  // the next step reads rows of every lane
        });
        if (lane == 0) info[b] = failed;
    }
    blk.store(ops[0], s);
}

/// A = inv(A) for the triangular A, in place; the other triangle (and a unit diagonal) goes
/// back as it came. A zero diagonal entry leaves A as it was and sets info (LAPACK's
/// convention). X(j, j) = 1 / A(j, j) and, moving away from the diagonal,
/// X(i, j) = -X(i, i) sum_k A(i, k) X(k, j) over the k between j and i, k ascending.
template <int N, bool Lower, bool Unit, typename T>
__global__ void __launch_bounds__(block_threads)
    trtri_kernel(Operands<T, 1> ops, int32* info, size_type count)
{
    on_own_matrix<N>(ops[0], count, [&](T(&a)[N][N], size_type b) {
        int failed = 0;
        LOOM_PRAGMA_UNROLL
        for (int i = N - 1; i >= 0; --i) {
            if (!Unit && a[i][i] == T(0)) failed = i + 1;
        }
        if (info != nullptr) info[b] = failed;
        if (failed != 0) return false;
        T reciprocal[N];
        LOOM_PRAGMA_UNROLL
        for (int i = 0; i < N; ++i) reciprocal[i] = Unit ? T(1) : T(1) / a[i][i];
        // Column j of the inverse overwrites column j of A: its sums read A's rows outside
        // column j (still the input: the columns are taken moving away from the corner they
        // need) and the entries of column j already inverted.
        LOOM_PRAGMA_UNROLL
        for (int c = 0; c < N; ++c) {
            const int j = Lower ? c : N - 1 - c;
            if constexpr (!Unit) a[j][j] = reciprocal[j];
            LOOM_PRAGMA_UNROLL
            for (int d = 1; d < N; ++d) {
                const int r = Lower ? j + d : j - d;
                if (r < 0 || r >= N) continue;
                T sum(0);
                LOOM_PRAGMA_UNROLL
                for (int k = Lower ? j : r + 1; k < (Lower ? r : j + 1); ++k) {
                    const T x = k == j ? (Unit ? T(1) : a[j][j]) : a[k][j];
                    sum += a[r][k] * x;
                }
                a[r][j] = Unit ? -sum : -(reciprocal[r] * sum);
            }
        }
        return true;
    });
}

template <int N, typename T, int L = 1, bool Pairs = false>
constexpr std::size_t shared_bytes(int threads = block_threads)
{
    return static_cast<std::size_t>(threads / L) * Block<N, L, Pairs>::pitch * sizeof(T);
}

constexpr std::size_t max_block_shared = 227 * 1024;

/// Threads per block of getrf_shared_kernel<N, L>: of 64, 32 and 16, the one that keeps the
/// most matrices resident per SM (shared memory is the limit: sm_90's 228 KB, 227 KB per block
/// and 1 KB reserved per block), the larger on a tie; 16 (half-empty warps) counted at 3/4.
template <int N, int L, typename T, bool Pairs = false>
constexpr int shared_getrf_threads()
{
    constexpr std::size_t per_sm = 228 * 1024, reserved = 1024;
    int best = block_threads;
    std::size_t most = 0;
    for (int threads = block_threads; threads >= 16 && threads >= L; threads /= 2) {
        const std::size_t bytes = shared_bytes<N, T, L, Pairs>(threads);
        if (bytes > max_block_shared) continue;
        const std::size_t resident = per_sm / (bytes + reserved) * (threads / L) * (threads >= 32 ? 4 : 3);
        if (resident > most) {
            best = threads;
            most = resident;
        }
    }
    return best;
}

/// Lets kernel take `bytes` of dynamic shared memory (beyond 48 KB a kernel must ask: getrf at
/// n = 10 in double stages 51 KB per block); false where the device refuses.
template <typename Kernel>
bool allow_shared(Kernel kernel, std::size_t bytes)
{
    if (bytes <= 48 * 1024) return true;
    const bool set = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)) == cudaSuccess;
    if (!set) (void)cudaGetLastError();
    return set;
}

inline unsigned blocks_for(size_type count, int threads = block_threads)
{
    return static_cast<unsigned>((count + threads - 1) / threads);
}

}  // namespace loom::batched::cuda_front::thread
