// Building blocks of the sync-free CUDA kernels (SpTRSV's level analysis, the ILU/IC numeric
// phase; SpTRSV's solve polls x itself, ready_values.cuh): groups of G lanes per row, rows
// handed out by a global ticket, and loads that see what other SMs wrote during the launch.
//
// Why a ticket: a row may only wait on rows whose tickets are lower. The ticket is taken by a
// block once it runs, so every row waited on is held by a block that runs (or ran): no
// deadlock, whatever order the hardware schedules blocks in. Handing tickets out in LEVEL
// order (the analysis' `order`) rather than row order keeps the groups of one warp (almost
// always) independent: in row order a stencil's row r waits on r - 1, the warp-mate's row,
// and the warp serialises on it.
#pragma once

#include <cstdint>

#include "base/cuda/arithmetic.cuh"

namespace loom::sparse::cuda::sync_free {

constexpr int warp_size = 32;

/// The lanes of this thread's group of G within its warp.
template <int G>
__device__ __forceinline__ unsigned group_mask()
{
    if constexpr (G == warp_size) {
        return 0xffffffffu;
    } else {
        const int first = (threadIdx.x % warp_size) / G * G;
        return ((1u << G) - 1u) << first;
    }
}

/// *p through L2 only: a value another SM wrote during this launch (L1 is not coherent
/// between SMs).
template <typename D>
__device__ __forceinline__ D load_coherent(const D* p)
{
    if constexpr (loom::cuda::is_device_complex_v<D>) {
        using Pair = typename loom::cuda::pair_of<typename D::value_type>::type;
        const Pair v = __ldcg(reinterpret_cast<const Pair*>(p));
        return D(v.x, v.y);
    } else {
        return __ldcg(p);
    }
}

/// The ticket of this thread's group of G in a block of BlockSize threads: the block takes
/// its BlockSize / G tickets at once (one atomic per block, not per group: millions of
/// atomics on one address would serialise in L2). Every thread of the block calls it.
template <int G, int BlockSize>
__device__ __forceinline__ unsigned long long group_ticket(unsigned int* counter)
{
    __shared__ unsigned int first_ticket;
    if (threadIdx.x == 0) first_ticket = atomicAdd(counter, BlockSize / G);
    __syncthreads();
    return first_ticket + threadIdx.x / G;
}

/// The row this thread's group works on: order[ticket], the ticket from flags[n] (the word
/// after the n row flags); false for a group past the last row. Every thread calls it.
template <int G, int BlockSize, typename I>
__device__ __forceinline__ bool take_row(I n, const I* order, std::uint32_t* flags, I& row)
{
    const auto ticket = group_ticket<G, BlockSize>(reinterpret_cast<unsigned int*>(flags + n));
    if (ticket >= static_cast<unsigned long long>(n)) return false;
    row = order[ticket];
    return true;
}

/// Spins until flags[row] holds `epoch`, then orders the caller's later loads after the
/// writes that preceded the flag (the writer fences before setting it). The poll backs off
/// (up to 256 ns between loads): tens of thousands of groups polling L2 without a pause
/// slowed the groups they wait on (session 8, H200: ~13 us per level on 160^3).
__device__ __forceinline__ void wait_for(const std::uint32_t* flags, long long row,
                                         std::uint32_t epoch)
{
    unsigned pause = 8;
    while (static_cast<const volatile std::uint32_t*>(flags)[row] != epoch) {
        __nanosleep(pause);
        if (pause < 256) pause *= 2;
    }
    __threadfence();
}

/// Publishes a finished row: every lane of the group fences its own writes, the group
/// meets, and its first lane sets the flag. Called by every lane of the group.
__device__ __forceinline__ void publish(std::uint32_t* flags, long long row, std::uint32_t epoch,
                                       unsigned mask, int lane)
{
    __threadfence();
    __syncwarp(mask);
    if (lane == 0) static_cast<volatile std::uint32_t*>(flags)[row] = epoch;
}

}  // namespace loom::sparse::cuda::sync_free
