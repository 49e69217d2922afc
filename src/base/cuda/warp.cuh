// Warp- and block-level building blocks for CUDA kernels: shuffles of any device value type
// (thrust::complex moves as its two parts), sums and inclusive scans over a warp (or an
// aligned slice of one), an inclusive scan over a whole block, and a warp-aggregated append
// (one atomic per warp). Used by the kernels of spmv, spmm, sddmm, fusedmm, spgemm, spadd and
// block_diagonal; the team launcher (launch/cuda_team.cuh) has the reductions of its public
// team handle.
#pragma once

#include "base/cuda/arithmetic.cuh"

namespace loom::cuda {

constexpr int warp_size = 32;
/// Every lane of a warp.
constexpr unsigned full_mask = 0xffffffffu;

/// __shfl_xor_sync for float, double, integers and thrust::complex (part by part).
template <typename T>
__device__ __forceinline__ T shuffle_xor(const T& v, int lane_mask, unsigned mask = full_mask)
{
    if constexpr (is_device_complex_v<T>) {
        return T(__shfl_xor_sync(mask, v.real(), lane_mask),
                 __shfl_xor_sync(mask, v.imag(), lane_mask));
    } else {
        return __shfl_xor_sync(mask, v, lane_mask);
    }
}

/// __shfl_sync (lane `source` of each slice of `width` lanes) for float, double, integers and
/// thrust::complex (part by part).
template <typename T>
__device__ __forceinline__ T shuffle(const T& v, int source, unsigned mask = full_mask,
                                     int width = warp_size)
{
    if constexpr (is_device_complex_v<T>) {
        return T(__shfl_sync(mask, v.real(), source, width),
                 __shfl_sync(mask, v.imag(), source, width));
    } else {
        return __shfl_sync(mask, v, source, width);
    }
}

/// __shfl_up_sync for float, double, integers and thrust::complex (part by part).
template <typename T>
__device__ __forceinline__ T shuffle_up(const T& v, int delta, unsigned mask = full_mask)
{
    if constexpr (is_device_complex_v<T>) {
        return T(__shfl_up_sync(mask, v.real(), delta), __shfl_up_sync(mask, v.imag(), delta));
    } else {
        return __shfl_up_sync(mask, v, delta);
    }
}

/// Sum of `value` over each aligned slice of Width lanes (a power of two, at most 32), on
/// every lane of the slice: a butterfly of xor shuffles, in the same order on every lane.
template <int Width, typename T>
__device__ __forceinline__ T warp_sum(T value, unsigned mask = full_mask)
{
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset /= 2) value += shuffle_xor(value, offset, mask);
    return value;
}

/// Inclusive sum of an integer `value` over the aligned slices of Width lanes (a power of two,
/// at most 32) in lane order; mask names the lanes that call it (at least the caller's slice).
template <int Width, typename T>
__device__ __forceinline__ T warp_inclusive_scan(T value, unsigned mask)
{
    const int lane = threadIdx.x % Width;
#pragma unroll
    for (int d = 1; d < Width; d <<= 1) {
        const T up = __shfl_up_sync(mask, value, d, Width);
        if (lane >= d) value += up;
    }
    return value;
}

/// Inclusive sum of an integer `value` over a block of `warps` whole warps in thread order;
/// warp_totals holds a T per warp (shared memory). Every thread calls it; it synchronises the
/// block, and the caller synchronises again before warp_totals is reused.
template <typename T>
__device__ T block_inclusive_scan(T value, T* warp_totals, int warps)
{
    const int lane = threadIdx.x % warp_size;
    const int warp = threadIdx.x / warp_size;
    value = warp_inclusive_scan<warp_size>(value, full_mask);
    if (lane == warp_size - 1) warp_totals[warp] = value;
    __syncthreads();
    if (warp == 0) {
        T total = lane < warps ? warp_totals[lane] : T(0);
        total = warp_inclusive_scan<warp_size>(total, full_mask);
        if (lane < warps) warp_totals[lane] = total;
    }
    __syncthreads();
    if (warp > 0) value += warp_totals[warp - 1];
    return value;
}

/// Slot in a list for the lanes of a warp that have an entry to append (used), in lane order,
/// in one atomic on *counter per warp; -1 for the other lanes. Every lane of the warp calls it.
__device__ inline long long warp_append(bool used, unsigned long long* counter)
{
    const unsigned ballot = __ballot_sync(full_mask, used);
    if (ballot == 0) return -1;
    const int lane = threadIdx.x % warp_size;
    const int leader = __ffs(ballot) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(counter, static_cast<unsigned long long>(__popc(ballot)));
    base = __shfl_sync(full_mask, base, leader);
    return used ? static_cast<long long>(base + __popc(ballot & ((1u << lane) - 1u))) : -1;
}

}  // namespace loom::cuda
