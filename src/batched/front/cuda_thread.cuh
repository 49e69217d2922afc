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
//   trtri  substitution as the rows kernel (column j of the inverse, rows moving away from the
//          diagonal), a zero diagonal entry leaves the matrix as it was and sets info.
#pragma once

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

template <int N>
struct Block {
    static constexpr int values = N * N;
    static constexpr int pitch = pitch_for(N);
    size_type first;  ///< the block's first matrix
    int count;        ///< its matrices (fewer in the last block)

    __device__ static Block make(size_type total)
    {
        Block blk;
        blk.first = static_cast<size_type>(blockIdx.x) * block_threads;
        const size_type left = total - blk.first;
        blk.count = left < block_threads ? static_cast<int>(left) : block_threads;
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
        for (int e = static_cast<int>(threadIdx.x); e < total; e += block_threads) {
            const int m = e / values;  // constant divisors: multiplications
            const int r = e % values;
            T* at = run ? const_cast<T*>(base) + e : &o.global(first + m)(r / N, r % N);
            f(m * pitch + r, at);
        }
    }
    template <typename T>
    __device__ void load(const Operand<T>& o, T* s) const
    {
        for_entries(o, [&](int i, T* at) { async::copy(s + i, at); });
        async::wait_all();
        __syncthreads();
    }
    template <typename T>
    __device__ void store(const Operand<T>& o, const T* s) const
    {
        __syncthreads();
        for_entries(o, [&](int i, T* at) { *at = s[i]; });
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

/// P A = L U with partial pivoting, pivots 0-based, info the first zero pivot column + 1.
template <int N, typename T>
__global__ void __launch_bounds__(block_threads)
    getrf_kernel(Operands<T, 1> ops, int32* pivots, int32* info, size_type count)
{
    on_own_matrix<N>(ops[0], count, [&](T(&a)[N][N], size_type b) {
        int failed = 0;
        LOOM_PRAGMA_UNROLL
        for (int k = 0; k < N; ++k) {
            int p = k;
            T largest = a[k][k] < T(0) ? -a[k][k] : a[k][k];
            LOOM_PRAGMA_UNROLL
            for (int i = k + 1; i < N; ++i) {
                const T candidate = a[i][k] < T(0) ? -a[i][k] : a[i][k];
                if (candidate > largest) {
                    largest = candidate;
                    p = i;
                }
            }
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

template <int N, typename T>
constexpr std::size_t shared_bytes()
{
    return static_cast<std::size_t>(block_threads) * pitch_for(N) * sizeof(T);
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

inline unsigned blocks_for(size_type count)
{
    return static_cast<unsigned>((count + block_threads - 1) / block_threads);
}

}  // namespace loom::batched::cuda_front::thread
