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

/// trtri_packed_kernel: a thread per matrix for every order up to packed_trtri_max, the
/// triangle alone in shared memory (packed row by row, n (n + 1) / 2 values at an odd pitch:
/// the threads of a warp, each at entry e of its own matrix, fall on distinct banks). Only the
/// triangle's entries are copied in and out, so the sectors that hold no entry of it are never
/// fetched nor written (n = 16: 40 of the 64 sectors of a matrix each way; a whole-matrix
/// staging moves all 64). An upper triangle is staged mirrored, U(i, j) at L(n-1-i, n-1-j), so
/// that one lower substitution serves both.
constexpr int packed_trtri_max = 16;
/// Matrices (threads) per block: one warp, so that a warp waits on no other for its staging.
constexpr int packed_trtri_threads = 32;

constexpr int packed_at(int i, int j)
{
    return i * (i + 1) / 2 + j;
}

/// Values of shared memory per matrix: the packed triangle, odd.
template <int N>
constexpr int packed_pitch()
{
    return (N * (N + 1) / 2) | 1;
}

/// Where each of a thread's staging copies goes: the block copies matrix by matrix, a warp
/// instruction taking 32 consecutive stored entries of one matrix (coalesced), so the thread's
/// q-th copy of every matrix is the same stored entry q * W + thread. Computed once per thread.
template <int N, int W>
struct PackedStage {
    static constexpr int copies = (N * N + W - 1) / W;
    int offset[copies];  ///< offset in the stored matrix, -1 where the entry is not staged
    int packed[copies];  ///< index in the packed (mirrored for upper) triangle

    template <typename T>
    __device__ static PackedStage make(const Operand<T>& o, bool lower, bool unit)
    {
        PackedStage st;
        const int t = static_cast<int>(threadIdx.x);
        LOOM_PRAGMA_UNROLL
        for (int q = 0; q < copies; ++q) {
            const int r = q * W + t;
            const int si = r / N;  // stored row and column
            const int sj = r % N;
            const int vi = o.transposed ? sj : si;  // the routine's entry
            const int vj = o.transposed ? si : sj;
            const int i = lower ? vi : N - 1 - vi;
            const int j = lower ? vj : N - 1 - vj;
            const bool staged = r < N * N && j <= i && !(unit && i == j);
            st.offset[q] = staged ? si * static_cast<int>(o.stride) + sj : -1;
            st.packed[q] = staged ? packed_at(i, j) : 0;
        }
        return st;
    }
};

/// Whether part `part` of `parts` computes column j of the inverse (two parts: columns 0, 3, 4,
/// 7, 8, ... and 1, 2, 5, 6, ...: about equal work, column j costing ~(n - j)^2 / 2 products).
constexpr bool owns_column(int j, int part, int parts)
{
    return parts == 1 || ((j % 4 == 0 || j % 4 == 3) == (part == 0));
}

/// Waits for the `parts` warps sharing the block's matrices (named barrier 1).
template <int Parts>
__device__ LOOM_INLINE void sync_parts()
{
    if constexpr (Parts > 1) asm volatile("bar.sync 1, %0;\n" ::"n"(32 * Parts) : "memory");
}

/// Inverts the packed lower triangle a (one matrix) in place, the columns Part owns; the info
/// (0, or the first zero diagonal entry + 1: a is then left as it was). Rows top down: row r of
/// the inverse is X(r, j) = -X(r, r) sum_k A(r, k) X(k, j) over k = j .. r - 1 ascending, from
/// the rows above (already inverted, in place) and row r of A (in registers). Rows go in pairs:
/// the second row's terms k < r0 take the same loads of X(k, j) as the first's, and its term
/// k = r0 the first's results from registers (about N^3 / 12 shared loads instead of N^3 / 6).
/// With several parts (a warp each) every part reads the diagonal, and rows r0, r1 of A, before
/// any writes them (sync_parts), and every thread passes every barrier: `active` false (no
/// matrix, or a singular one) only stops its stores.
template <int N, bool Unit, int Part, int Parts, typename T>
__device__ LOOM_INLINE int invert_packed(T* a, bool active, bool lower)
{
    int failed = 0;
    if constexpr (!Unit) {
        // The first zero of the routine's diagonal: the last one of the mirrored upper triangle.
        LOOM_PRAGMA_UNROLL
        for (int i = N - 1; i >= 0; --i) {
            if (lower && a[packed_at(i, i)] == T(0)) failed = i + 1;
        }
        LOOM_PRAGMA_UNROLL
        for (int i = 0; i < N; ++i) {
            if (!lower && a[packed_at(i, i)] == T(0)) failed = N - i;
        }
        if (Parts == 1 && failed != 0) return failed;
        active = active && failed == 0;
        T reciprocal[N];
        LOOM_PRAGMA_UNROLL
        for (int i = 0; i < N; ++i) reciprocal[i] = T(1) / a[packed_at(i, i)];
        sync_parts<Parts>();  // every part has read the diagonal
        if (Part == 0 && active) {
            LOOM_PRAGMA_UNROLL
            for (int i = 0; i < N; ++i) a[packed_at(i, i)] = reciprocal[i];
        }
    }
    // X(k, j) of the rows above (the reciprocals of the diagonal read back when needed: kept in
    // registers they took 32 of them at n = 16 and made the kernel spill).
    const auto x = [&](int k, int j) { return Unit && k == j ? T(1) : a[packed_at(k, j)]; };
    LOOM_PRAGMA_UNROLL
    for (int r0 = 1; r0 < N; r0 += 2) {
        const int r1 = r0 + 1;
        const bool pair = r1 < N;
        T a0[N];
        T a1[N];
        T s0[N];
        T s1[N];
        LOOM_PRAGMA_UNROLL
        for (int k = 0; k < N; ++k) {
            a0[k] = k < r0 ? a[packed_at(r0, k)] : T(0);
            a1[k] = pair && k < r1 ? a[packed_at(r1, k)] : T(0);
            s0[k] = T(0);
            s1[k] = T(0);
        }
        sync_parts<Parts>();
        LOOM_PRAGMA_UNROLL
        for (int k = 0; k < r0; ++k) {
            LOOM_PRAGMA_UNROLL
            for (int j = 0; j <= k; ++j) {
                if (!owns_column(j, Part, Parts)) continue;
                const T xkj = x(k, j);
                s0[j] += a0[k] * xkj;
                if (pair) s1[j] += a1[k] * xkj;
            }
        }
        const T x0 = x(r0, r0);
        LOOM_PRAGMA_UNROLL
        for (int j = 0; j < r0; ++j) {
            if (!owns_column(j, Part, Parts)) continue;
            s0[j] = Unit ? -s0[j] : -(x0 * s0[j]);
            if (active) a[packed_at(r0, j)] = s0[j];
        }
        if (pair) {
            const T x1 = x(r1, r1);
            LOOM_PRAGMA_UNROLL
            for (int j = 0; j <= r0; ++j) {
                if (!owns_column(j, Part, Parts)) continue;
                s1[j] += a1[r0] * (j == r0 ? x0 : s0[j]);
                if (active) a[packed_at(r1, j)] = Unit ? -s1[j] : -(x1 * s1[j]);
            }
        }
    }
    return failed;
}

/// A = inv(A) for the triangular A (lower or upper: a runtime flag, only the staging differs),
/// in place; the other triangle (and a unit diagonal) is neither read nor written. A zero
/// diagonal entry leaves A as it was and sets info. W threads per block, W / Parts matrices:
/// with two parts, warp p computes part p of the columns of the block's 32 matrices.
template <int N, int W, int Parts, bool Unit, typename T>
__global__ void __launch_bounds__(W)
    trtri_packed_kernel(Operands<T, 1> ops, bool lower, int32* info, size_type count)
{
    static_assert(Parts == 1 || W == 32 * Parts, "a warp per part");
    constexpr int M = W / Parts;  // matrices per block
    constexpr int pitch = packed_pitch<N>();
    const auto& o = ops[0];
    const auto st = PackedStage<N, W>::make(o, lower, Unit);
    const size_type first = static_cast<size_type>(blockIdx.x) * M;
    const size_type left = count - first;
    const int matrices = left < M ? static_cast<int>(left) : M;
    T* s = shared_values<T>();
    for (int m = 0; m < matrices; ++m) {
        const T* from = o.data + (first + m) * o.batch_stride;
        LOOM_PRAGMA_UNROLL
        for (int q = 0; q < PackedStage<N, W>::copies; ++q) {
            if (st.offset[q] >= 0) async::copy(s + m * pitch + st.packed[q], from + st.offset[q]);
        }
    }
    async::wait_all();
    __syncthreads();
    const int t = static_cast<int>(threadIdx.x) % M;
    const int part = static_cast<int>(threadIdx.x) / M;
    if constexpr (Parts == 1) {
        if (t < matrices) {
            const int failed = invert_packed<N, Unit, 0, 1>(s + t * pitch, true, lower);
            if (info != nullptr) info[first + t] = failed;
        }
    } else {
        const bool active = t < matrices;  // every thread passes the barriers
        const int failed = part == 0 ? invert_packed<N, Unit, 0, Parts>(s + t * pitch, active, lower)
                                     : invert_packed<N, Unit, 1, Parts>(s + t * pitch, active, lower);
        if (info != nullptr && active && part == 0) info[first + t] = failed;
    }
    __syncthreads();
    for (int m = 0; m < matrices; ++m) {
        T* to = o.data + (first + m) * o.batch_stride;
        LOOM_PRAGMA_UNROLL
        for (int q = 0; q < PackedStage<N, W>::copies; ++q) {
            if (st.offset[q] >= 0) to[st.offset[q]] = s[m * pitch + st.packed[q]];
        }
    }
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
