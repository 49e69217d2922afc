// CUDA building blocks of the SpMM, SDDMM and FusedMM kernels: A's rows and the dense
// operands in device types, groups of G lanes (a power of two) working on one row or one
// chunk of entries, the entries of a row handed round a group by shuffles (a batch at a
// time), and the compile-time group shapes (G lanes, PerLane columns each) for a given k.
#pragma once

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/half.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/warp.cuh"
#include "sparse/spmm/operand.hpp"

namespace loom::sparse::cuda {

constexpr int spmm_block_size = 256;
/// Blocks per multiprocessor of a grid-stride launch: enough to fill every warp slot.
constexpr int spmm_blocks_per_sm = 8;

template <typename D, typename I>
struct CsrRows {
    long long rows;
    const I* row_ptrs;
    const I* cols;
    const D* values;
};

template <typename V, typename I>
CsrRows<loom::cuda::device_type_t<V>, I> rows_of(const matrix::Csr<V, I>& A)
{
    return {A.rows(), A.row_ptrs().data(), A.col_idxs().data(),
            loom::cuda::as_device(A.values().data())};
}

template <typename T>
DenseOperand<loom::cuda::device_type_t<T>> on_device(DenseOperand<T> d)
{
    return {loom::cuda::as_device(d.data), d.row_step, d.col_step};
}

/// d(i, j), with the row-major case's unit column step known at compile time.
template <bool RowMajor, typename T>
__device__ __forceinline__ T* element(const DenseOperand<T>& d, long long i, long long j)
{
    return RowMajor ? d.data + i * d.row_step + j : d.data + i * d.row_step + j * d.col_step;
}

/// The lanes of this thread's aligned group of G lanes.
template <int G>
__device__ __forceinline__ unsigned group_mask()
{
    if constexpr (G == loom::cuda::warp_size) {
        return loom::cuda::full_mask;
    } else {
        return ((1u << G) - 1u) << (threadIdx.x % loom::cuda::warp_size / G * G);
    }
}

/// *p through the streaming (evict-first) cache path: for data read once, such as A's entries,
/// so that it does not push out of L2 the rows of B that neighbouring rows gather again.
template <typename T>
__device__ __forceinline__ T load_streaming(const T* p)
{
    T value;
    if constexpr (sizeof(T) == 2) {
        const unsigned short bits = __ldcs(reinterpret_cast<const unsigned short*>(p));
        memcpy(&value, &bits, sizeof(value));
    } else if constexpr (sizeof(T) == 4) {
        const unsigned bits = __ldcs(reinterpret_cast<const unsigned*>(p));
        memcpy(&value, &bits, sizeof(value));
    } else if constexpr (sizeof(T) == 8) {
        const unsigned long long bits = __ldcs(reinterpret_cast<const unsigned long long*>(p));
        memcpy(&value, &bits, sizeof(value));
    } else {
        // complex<double>: a plain load (the short-row kernel serves it, the hint need not)
        value = *p;
    }
    return value;
}

/// Entry e of A (column, value) through the read-only cache, or the streaming path.
template <bool Streaming, typename T>
__device__ __forceinline__ T load_entry(const T* p)
{
    if constexpr (Streaming) {
        return load_streaming(p);
    } else {
        return loom::cuda::load_cached(p);
    }
}

/// Entry e of A's values, conjugated when `conj` (complex types only) and widened to
/// compute_type_t<D> (float for the 16-bit storage types).
template <bool Streaming = false, typename D, typename I>
__device__ __forceinline__ compute_type_t<D> entry_value(const CsrRows<D, I>& A, bool conj,
                                                         long long e)
{
    auto value = static_cast<compute_type_t<D>>(load_entry<Streaming>(A.values + e));
    if constexpr (loom::cuda::is_device_complex_v<D>) {
        if (conj) value = loom::cuda::conj_dev(value);
    }
    return value;
}

/// visit(cols, values, count) for the entries [begin, end) of A in batches of Batch (a power
/// of two): cols[u] and values[u] for u < count <= Batch are consecutive entries, seen by every
/// lane of the group. The group loads max(G, Batch) entries at once (Batch / G per lane when
/// the group is narrower than a batch), so that a visitor can issue all the loads a batch
/// needs before it uses any: Batch gathers in flight per lane instead of one.
template <int G, int Batch, bool Streaming = false, int Step = (G > Batch ? G : Batch),
          typename D, typename I, typename Visit>
__device__ __forceinline__ void for_each_entry_batch(const CsrRows<D, I>& A, bool conj,
                                                     long long begin, long long end, Visit&& visit)
{
    constexpr int step = Step;
    static_assert(step % G == 0 && step % Batch == 0);
    constexpr int held = step / G;
    using T = compute_type_t<D>;
    const int lane = threadIdx.x % G;
    const unsigned mask = group_mask<G>();
    for (long long base = begin; base < end; base += step) {
        I col[held];
        T value[held];
#pragma unroll
        for (int h = 0; h < held; ++h) {
            const long long e = base + h * G + lane;
            col[h] = e < end ? load_entry<Streaming>(A.cols + e) : I{0};
            value[h] = e < end ? entry_value<Streaming>(A, conj, e) : T{};
        }
        const int count = static_cast<int>(min(static_cast<long long>(step), end - base));
#pragma unroll
        for (int t0 = 0; t0 < step; t0 += Batch) {
            if (t0 >= count) break;
            I cols[Batch];
            T values[Batch];
#pragma unroll
            for (int u = 0; u < Batch; ++u) {
                const int t = t0 + u;
                if constexpr (G == 1) {
                    cols[u] = col[t];
                    values[u] = value[t];
                } else {
                    cols[u] = __shfl_sync(mask, col[t / G], t % G, G);
                    values[u] = loom::cuda::shuffle(value[t / G], t % G, mask, G);
                }
            }
            visit(cols, values, min(Batch, count - t0));
        }
    }
}

/// visit(col, a) for the entries [begin, end) of A, a = entry_value, one at a time; every
/// lane of the group calls it with the same range and sees every entry.
template <int G, typename D, typename I, typename Visit>
__device__ __forceinline__ void for_each_entry(const CsrRows<D, I>& A, bool conj, long long begin,
                                               long long end, Visit&& visit)
{
    for_each_entry_batch<G, 1>(A, conj, begin, end,
                               [&](const I(&cols)[1], const compute_type_t<D>(&values)[1], int) {
                                   visit(cols[0], values[0]);
                               });
}

/// body(i) for this thread's group's share of [0, count): a group of G lanes per index,
/// grid-stride (the groups of the grid take consecutive indices, then move on together).
template <int G, typename Body>
__device__ __forceinline__ void for_each_group_index(long long count, Body&& body)
{
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / G;
    for (long long i = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / G;
         i < count; i += groups) {
        body(i);
    }
}

/// Calls body.template operator()<G, PerLane>() with the group shape for k columns.
template <bool RowMajor, typename Body>
void with_shape(long long k, Body&& body)
{
    if (k <= 4) {
        body.template operator()<4, 1>();
    } else if (k <= 8) {
        body.template operator()<8, 1>();
    } else if (k <= 16) {
        body.template operator()<16, 1>();
    } else if constexpr (!RowMajor) {
        body.template operator()<32, 1>();
    } else if (k <= 32) {
        body.template operator()<32, 1>();
    } else if (k <= 64) {
        body.template operator()<32, 2>();
    } else if (k <= 128) {
        body.template operator()<32, 4>();
    } else {
        body.template operator()<32, 8>();
    }
}

/// Calls body.template operator()<G, PerLane, RowMajor>() for the operands' layouts and k.
template <typename T, typename U, typename Body>
void with_kernel_shape(const DenseOperand<T>& B, const DenseOperand<U>& C, long long k, Body&& body)
{
    if (B.row_major() && C.row_major()) {
        with_shape<true>(
            k, [&]<int G, int PerLane>() { body.template operator()<G, PerLane, true>(); });
    } else {
        with_shape<false>(
            k, [&]<int G, int PerLane>() { body.template operator()<G, PerLane, false>(); });
    }
}

/// Blocks of a grid-stride launch over `groups` groups of G lanes.
template <int G>
unsigned blocks_for(const CudaExecutor& exec, long long groups)
{
    return loom::cuda::grid_for(exec, groups * G, spmm_block_size, spmm_blocks_per_sm);
}

}  // namespace loom::sparse::cuda
