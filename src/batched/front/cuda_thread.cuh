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
//          Orders 11..32 but 31 (getrf_shared_kernel): the matrix stays in the staging, L = 1,
//          4, 8 or 16 lanes per matrix, the pivot row in registers, rows swapped in shared
//          memory; at even orders two entries of a row per 16-byte access (27, 29: the
//          even-pitch rows of that layout, single-entry operations).
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
/// division) are shared by fewer lanes' worth of work than in getrf_wide_kernel (one matrix
/// per 16 or 32 lanes, ~200 instructions per step and matrix).
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
template <int N, int L, typename T, bool Pairs = false, bool PairOps = Pairs>
__global__ void __launch_bounds__(block_threads)
    getrf_shared_kernel(Operands<T, 1> ops, int32* pivots, int32* info, size_type count)
{
    static_assert(L >= 1 && L <= 16 && (L & (L - 1)) == 0, "a power-of-two group in a warp");
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
        for_each_step<N>([&](auto step) {
            constexpr int k = decltype(step)::value;
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

/// getrf_regs_kernel: lanes per matrix (two rows per lane), matrices per block, and the blocks
/// per SM its registers are capped for (two rows of 32 doubles are 128 registers a lane: 168
/// at most keeps 6 blocks, 12 warps).
constexpr int regs_getrf_lanes(int n) { return n > 16 ? 16 : 8; }
constexpr int regs_getrf_threads = 64;
constexpr int regs_getrf_min_blocks = 6;

/// getrf_regs_kernel's pivot key: pivot_key's order, in 32 bits for float (|a| has 31 bits).
template <typename T>
__device__ LOOM_INLINE auto regs_key(T value, bool candidate, bool diagonal)
{
    if constexpr (sizeof(T) == 4) {
        if (!candidate) return 0u;
        const float magnitude = fabsf(static_cast<float>(value));
        if (magnitude != magnitude) return diagonal ? __float_as_uint(INFINITY) + 1u : 0u;
        return __float_as_uint(magnitude) + 1u;
    } else {
        return pivot_key(value, candidate, diagonal);
    }
}

/// The lanes of a group of L holding the largest key. Butterfly: log2(L) rounds of a shuffle.
/// Reduction: redux.sync (a 64-bit key: on the high words, then on the low words only where
/// several lanes share the high word, a tie of magnitudes' top 20 mantissa bits).
template <int L, bool Redux, typename Key>
__device__ LOOM_INLINE unsigned regs_largest(unsigned mask, Key key)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (Redux && sizeof(Key) == 4) {
        return __ballot_sync(mask, key == __reduce_max_sync(mask, key)) & mask;
    } else if constexpr (Redux) {
        const auto high = static_cast<unsigned>(key >> 32);
        const auto low = static_cast<unsigned>(key);
        const bool top = high == __reduce_max_sync(mask, high);
        const unsigned tops = __ballot_sync(mask, top) & mask;
        if ((tops & (tops - 1)) == 0) return tops;
        const unsigned largest_low = __reduce_max_sync(mask, top ? low : 0u);
        return __ballot_sync(mask, top && low == largest_low) & mask;
    }
#endif
    auto best = key;
    LOOM_PRAGMA_UNROLL
    for (int offset = 1; offset < L; offset <<= 1) {
        const auto other = __shfl_xor_sync(mask, best, offset, L);
        best = other > best ? other : best;
    }
    return __ballot_sync(mask, key == best) & mask;
}

/// Row updates of getrf_regs_kernel's step: a0[j] -= l0 u, a1[j] -= l1 u where up0, up1 (a
/// function, not a lambda capturing the rows: nvcc kept such a lambda's rows in local memory
/// at n = 32).
template <int N, typename T>
__device__ LOOM_INLINE void regs_update(T (&a0)[N], T (&a1)[N], bool up0, bool up1, T l0, T l1,
                                        int j, T u)
{
    if (up0) a0[j] -= l0 * u;
    if (up1) a1[j] -= l1 * u;
}

/// getrf for orders 9..32 with the matrix in registers: L = 16 lanes per matrix (two matrices
/// per warp; 8 lanes up to n = 16), lane c holding rows c and c + L, every step unrolled
/// (exact order N). The shared
/// kernel above reads and writes each trailing entry in shared memory at every step (at 32
/// ~170 KB per matrix through an SM's 128 bytes per cycle, the 53% of stalls on shared memory
/// of ncu) and keeps ~26 matrices per SM by its staging; here an update is one FMA on a
/// register, and only the pivot row crosses shared memory (written by its owner as pairs, read
/// by the 16 lanes as 16-byte broadcasts, one read serving both rows of a lane).
///
/// Rows are relabelled, never moved (getrf_wide's scheme): each row knows its position, the
/// pivot search takes the candidates at positions >= k, ties to the first position, and the
/// rows go to their final positions at the end. Per step: the key of each row (regs_key), the
/// lane's own winner (ties to its first position) and its reciprocal (computed while the
/// group's search runs: the division leaves the chain), the group's largest key, the owner's
/// row and reciprocal into one of two buffers (used in turn: one __syncwarp per step), then
/// each row at a position > k updated over the columns > k. Same pivots, info, operations and
/// order as detail::getrf_partial. In and out: Block's staging (one flat run, pairs at even
/// orders); the matrix's staging holds the two pivot-row buffers while the rows are in
/// registers.
template <int N, typename T, bool Redux = false, int MinBlocks = regs_getrf_min_blocks,
          bool Ahead = false>
__global__ void __launch_bounds__(regs_getrf_threads, MinBlocks)
    getrf_regs_kernel(Operands<T, 1> ops, int32* pivots, int32* info, size_type count)
{
    constexpr int L = regs_getrf_lanes(N);
    static_assert(N > L && N <= 2 * L, "two rows per lane");
    using Staged = Block<N, L, true>;
    using Pair = typename PairOf<T>::type;
    constexpr int R = Staged::row_pitch;     // even: rows 16-byte aligned
    constexpr int E = N + N % 2;             // a pivot-row buffer: the row in pairs,
    constexpr int buffer = E + 2;            // then the reciprocal (16-byte aligned)
    static_assert(2 * buffer <= Staged::pitch, "the buffers fit in the staging");
    const auto blk = Staged::make(count);
    T* s = shared_values<T>();
    blk.load(ops[0], s);
    const int t = static_cast<int>(threadIdx.x);
    const int lane = t % L;
    if (t / L < blk.count) {
        T* m = s + t / L * Staged::pitch;  // entry (i, j) at m[i * R + j]
        const size_type b = blk.first + t / L;
        const unsigned mask = ((1u << L) - 1u) << (t % 32 / L * L);
        const bool two = lane + L < N;  // the lane holds a second row
        T a0[N];
        T a1[N];
        LOOM_PRAGMA_UNROLL
        for (int j = 0; j < N; j += 2) {
            if (j + 1 < N) {
                const Pair x = *reinterpret_cast<const Pair*>(m + lane * R + j);
                a0[j] = x.x;
                a0[j + 1] = x.y;
                Pair y{};
                if (two) y = *reinterpret_cast<const Pair*>(m + (lane + L) * R + j);
                a1[j] = y.x;
                a1[j + 1] = y.y;
            } else {
                a0[j] = m[lane * R + j];
                a1[j] = two ? m[(lane + L) * R + j] : T(0);
            }
        }
        __syncwarp(mask);  // the group's rows are read: its staging now holds the buffers
        int pos0 = lane;              // where the rows stand now (-1: no second row)
        int pos1 = two ? lane + L : -1;
        int piv0 = 0;                 // ipiv(lane), ipiv(lane + L)
        int piv1 = 0;
        int failed = 0;
        // The search of step k: the keys of column k, the lane's own winner (ties to its first
        // position) with its reciprocal (computed while the group's search runs: the division
        // leaves the chain), and the lanes holding the group's largest key.
        using Key = decltype(regs_key(T(0), true, true));
        struct Search {
            Key key;
            int at;
            bool second;
            T reciprocal;
            unsigned holders;
        };
        const auto search = [&](auto step) {
            constexpr int k = decltype(step)::value;
            Search r;
            const auto key0 = regs_key(a0[k], pos0 >= k, pos0 == k);
            const auto key1 = regs_key(a1[k], pos1 >= k, pos1 == k);
            r.second = key1 > key0 || (key1 == key0 && pos1 >= 0 && pos1 < pos0);
            r.key = r.second ? key1 : key0;
            r.at = r.second ? pos1 : pos0;
            // (Non-candidates and zeros divide by one: a zero takes the division's slow path.)
            r.reciprocal = T(1) / (r.key > 1 ? (r.second ? a1[k] : a0[k]) : T(1));
            r.holders = regs_largest<L, Redux>(mask, r.key);
            return r;
        };
        Search next{};  // Ahead: step k + 1's search, run during step k's update
        // The steps are unrolled by construction (constant indices into a0, a1).
        for_each_step<N>([&](auto step) {
            constexpr int k = decltype(step)::value;
            Search now;
            if constexpr (Ahead && k > 0) {
                now = next;
            } else {
                now = search(step);
            }
            const auto key = now.key;
            const int at = now.at;
            const bool second = now.second;
            unsigned owner_bit = now.holders;
            if ((owner_bit & (owner_bit - 1)) != 0) {  // a tie: the first position wins
                const bool holder = (owner_bit >> (t % 32)) & 1u;
                int first = holder ? at : INT_MAX;
                LOOM_PRAGMA_UNROLL
                for (int offset = 1; offset < L; offset <<= 1) {
                    const int other = __shfl_xor_sync(mask, first, offset, L);
                    first = other < first ? other : first;
                }
                owner_bit = __ballot_sync(mask, holder && at == first) & mask;
            }
            const int owner = __ffs(static_cast<int>(owner_bit)) - 1;  // lane of the warp
            const bool owns = t % 32 == owner;
            // The largest key is 1 exactly when every candidate is zero (the reference's
            // zero pivot: p = k then, nothing moves).
            const bool nonzero = (__ballot_sync(mask, key > 1u) & mask) != 0;
            const int p = __shfl_sync(mask, at, owner);
            T* row = m + (k % 2) * buffer;
            constexpr int j1 = k + 1 - (k + 1) % 2;  // the first pair read
            if (owns) {
                const auto publish = [&](const T(&a)[N]) {
                    LOOM_PRAGMA_UNROLL
                    for (int j = j1; j < N; j += 2) {
                        if (j + 1 < N) {
                            Pair x;
                            x.x = a[j];
                            x.y = a[j + 1];
                            *reinterpret_cast<Pair*>(row + j) = x;
                        } else {
                            row[j] = a[j];
                        }
                    }
                };
                if (second) {
                    publish(a1);
                } else {
                    publish(a0);
                }
                row[E] = now.reciprocal;
            }
            if (lane == k % L) {
                if constexpr (k < L) {
                    piv0 = p;
                } else {
                    piv1 = p;
                }
            }
            if (!nonzero && failed == 0) failed = k + 1;
            // Rows k and p trade places: only their labels move.
            if (pos0 == k) pos0 = p;
            if (pos1 == k) pos1 = p;
            if (owns) {
                if (second) {
                    pos1 = k;
                } else {
                    pos0 = k;
                }
            }
            __syncwarp(mask);  // the pivot row is in the buffer
            const bool up0 = nonzero && pos0 > k;
            const bool up1 = nonzero && pos1 > k;
            const T inv = row[E];
            const T l0 = a0[k] * inv;
            const T l1 = a1[k] * inv;
            if (up0) a0[k] = l0;
            if (up1) a1[k] = l1;
            if constexpr (k + 1 < N) {
                Pair head;  // the pair holding column k + 1
                if constexpr (j1 + 1 < N) {
                    head = *reinterpret_cast<const Pair*>(row + j1);
                } else {
                    head.x = row[j1];
                }
                if constexpr (j1 == k + 1) {  // (k + 1, k + 2)
                    regs_update(a0, a1, up0, up1, l0, l1, k + 1, head.x);
                    if constexpr (Ahead) next = search(std::integral_constant<int, k + 1>{});
                    if constexpr (k + 2 < N) regs_update(a0, a1, up0, up1, l0, l1, k + 2, head.y);
                } else {  // (k, k + 1)
                    regs_update(a0, a1, up0, up1, l0, l1, k + 1, head.y);
                    if constexpr (Ahead) next = search(std::integral_constant<int, k + 1>{});
                }
                LOOM_PRAGMA_UNROLL
                for (int j = j1 + 2; j < N; j += 2) {
                    if (j + 1 < N) {
                        const Pair u = *reinterpret_cast<const Pair*>(row + j);
                        regs_update(a0, a1, up0, up1, l0, l1, j, u.x);
                        regs_update(a0, a1, up0, up1, l0, l1, j + 1, u.y);
                    } else {
                        regs_update(a0, a1, up0, up1, l0, l1, j, row[j]);
                    }
                }
            }
        });
        __syncwarp(mask);  // every lane has read the last buffer
        const auto put = [&](int position, const T(&a)[N]) {
            LOOM_PRAGMA_UNROLL
            for (int j = 0; j < N; j += 2) {
                if (j + 1 < N) {
                    Pair x;
                    x.x = a[j];
                    x.y = a[j + 1];
                    *reinterpret_cast<Pair*>(m + position * R + j) = x;
                } else {
                    m[position * R + j] = a[j];
                }
            }
        };
        put(pos0, a0);
        if (two) put(pos1, a1);
        pivots[b * N + lane] = piv0;
        if (two) pivots[b * N + lane + L] = piv1;
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
