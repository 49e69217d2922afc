// The CUDA team launcher and team handle. Include it (or launch/team.hpp) from a .cu file
// compiled by nvcc with --extended-lambda; pass a __device__ (or __host__ __device__) lambda.
//
// Mapping: a team of team_size × vector_length threads is a thread block when it has 32
// threads or more (then team_barrier() is __syncthreads()), or an aligned slice of a warp when
// it has fewer (several teams per block; team_barrier() is __syncwarp over the slice). The
// vector lanes of a team thread are consecutive threads of one warp. Teams are spread over the
// grid with a grid-stride loop, so any league size launches. Team reductions use warp shuffles
// and, for teams of more than one warp, 64 bytes of shared memory per warp: reduced values are
// at most 64 bytes (a double complex, a pack of eight doubles). Team scratch is dynamic shared
// memory (up to the device's opt-in limit, 227 KiB on an H100).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/launch/macros.hpp"
#include "loom/launch/policy.hpp"

namespace loom::launch {
namespace detail {

/// Threads per block when teams are smaller than a warp.
constexpr int cuda_small_team_block = 128;
/// Shared bytes per warp for cross-warp team reductions (the largest reducible value).
constexpr int cuda_reduce_slot_bytes = 64;
/// Alignment of the per-team scratch slices.
constexpr size_type cuda_scratch_alignment = 64;

template <typename T>
inline constexpr bool native_shuffle_v =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long> ||
    std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> ||
    std::is_same_v<T, unsigned long long> || std::is_same_v<T, float> || std::is_same_v<T, double>;

/// __shfl_xor_sync for any trivially copyable value: moved as 32-bit words when not native.
template <typename T>
__device__ LOOM_INLINE T shuffle_xor(unsigned mask, const T& value, int offset)
{
    if constexpr (native_shuffle_v<T>) {
        return __shfl_xor_sync(mask, value, offset);
    } else {
        static_assert(std::is_trivially_copyable_v<T>, "team reductions need trivially copyable values");
        constexpr int words = (sizeof(T) + 3) / 4;
        int in[words] = {};
        int out[words];
        memcpy(in, &value, sizeof(T));
#pragma unroll
        for (int w = 0; w < words; ++w) out[w] = __shfl_xor_sync(mask, in[w], offset);
        T result;
        memcpy(&result, out, sizeof(T));
        return result;
    }
}

}  // namespace detail

/// What a team functor receives on CUDA (interface: see HostTeamMember in host_team.hpp). It is
/// only usable in device code.
class CudaTeamMember {
public:
    struct Layout {
        size_type league_rank;
        size_type league_size;
        int team_rank;
        int team_size;
        int vector_rank;
        int vector_length;
        unsigned team_mask;   // the lanes of this team within its warp
        bool block_team;      // the team is the whole block (32 threads or more)
        std::byte* scratch;
        size_type scratch_bytes;
        std::byte* reduce;    // cuda_reduce_slot_bytes per warp of a block team
    };

    LOOM_HOST_DEVICE explicit CudaTeamMember(const Layout& layout) : l_(layout) {}

    LOOM_HOST_DEVICE size_type league_rank() const { return l_.league_rank; }
    LOOM_HOST_DEVICE size_type league_size() const { return l_.league_size; }
    LOOM_HOST_DEVICE int team_rank() const { return l_.team_rank; }
    LOOM_HOST_DEVICE int team_size() const { return l_.team_size; }
    LOOM_HOST_DEVICE int vector_rank() const { return l_.vector_rank; }
    LOOM_HOST_DEVICE int vector_length() const { return l_.vector_length; }

    LOOM_HOST_DEVICE void team_barrier() const
    {
#ifdef __CUDA_ARCH__
        if (l_.block_team) {
            __syncthreads();
        } else {
            __syncwarp(l_.team_mask);
        }
#endif
    }
    LOOM_HOST_DEVICE void vector_barrier() const
    {
#ifdef __CUDA_ARCH__
        __syncwarp(vector_mask());
#endif
    }

    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void team_for(I n, F&& f) const
    {
        for (I i = l_.team_rank; i < n; i += l_.team_size) f(i);
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void vector_for(I n, F&& f) const
    {
        for (I i = l_.vector_rank; i < n; i += l_.vector_length) f(i);
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void team_vector_for(I n, F&& f) const
    {
        for (I i = thread_in_team(); i < n; i += team_threads()) f(i);
    }

    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto team_reduce_sum(I n, F&& f) const
    {
        std::decay_t<decltype(f(n))> sum{};
        team_for(n, [&](I i) { sum += f(i); });
        // The lanes of a team thread hold the same partial sum: combine across team ranks.
        return combine(sum, l_.vector_length);
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto vector_reduce_sum(I n, F&& f) const
    {
        std::decay_t<decltype(f(n))> sum{};
        vector_for(n, [&](I i) { sum += f(i); });
#ifdef __CUDA_ARCH__
        const unsigned mask = vector_mask();
        for (int offset = 1; offset < l_.vector_length; offset <<= 1) {
            sum += detail::shuffle_xor(mask, sum, offset);
        }
#endif
        return sum;
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto team_vector_reduce_sum(I n, F&& f) const
    {
        std::decay_t<decltype(f(n))> sum{};
        team_vector_for(n, [&](I i) { sum += f(i); });
        return combine(sum, 1);
    }

    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void team_single(F&& f) const
    {
        if (l_.team_rank == 0 && l_.vector_rank == 0) f();
    }

    LOOM_HOST_DEVICE void* team_scratch(size_type bytes) const { return scratch_.take(bytes); }
    template <typename T>
    LOOM_HOST_DEVICE T* team_scratch(size_type count) const
    {
        return scratch_.template take<T>(count);
    }

private:
    LOOM_HOST_DEVICE int team_threads() const { return l_.team_size * l_.vector_length; }
    LOOM_HOST_DEVICE int thread_in_team() const { return l_.team_rank * l_.vector_length + l_.vector_rank; }
    LOOM_HOST_DEVICE unsigned vector_mask() const
    {
        if (l_.vector_length == 32) return 0xffffffffu;
#ifdef __CUDA_ARCH__
        const int lane = threadIdx.x % 32;
#else
        const int lane = 0;
#endif
        return ((1u << l_.vector_length) - 1u) << (lane & ~(l_.vector_length - 1));
    }

    /// Sum over the team's threads of value, starting at lane distance first (lanes closer than
    /// that are not combined); every thread receives the same result.
    template <typename T>
    LOOM_HOST_DEVICE T combine(T value, int first) const
    {
#ifndef __CUDA_ARCH__
        (void)first;
        return value;  // never runs on the host: a CudaTeamMember only exists in kernels
#else
        const int width = l_.block_team ? 32 : team_threads();
        for (int offset = first; offset < width; offset <<= 1) {
            value += detail::shuffle_xor(l_.team_mask, value, offset);
        }
        if (!l_.block_team || team_threads() == 32) return value;
        static_assert(sizeof(T) <= detail::cuda_reduce_slot_bytes,
                      "team reductions take values of at most 64 bytes");
        const int warps = team_threads() / 32;
        const int warp = thread_in_team() / 32;
        if (threadIdx.x % 32 == 0) {
            memcpy(l_.reduce + warp * detail::cuda_reduce_slot_bytes, &value, sizeof(T));
        }
        __syncthreads();
        T total{};
        for (int w = 0; w < warps; ++w) {  // the same order everywhere: identical results
            T part;
            memcpy(&part, l_.reduce + w * detail::cuda_reduce_slot_bytes, sizeof(T));
            total += part;
        }
        __syncthreads();  // the slots are free again
        return total;
#endif
    }

    Layout l_;
    mutable detail::TeamScratch scratch_{l_.scratch, l_.scratch_bytes};
};

namespace detail {

struct CudaTeamShape {
    int team_size;
    int vector_length;
    int teams_per_block;
    size_type scratch_bytes;   // per team, as the policy asked
    size_type scratch_stride;  // per team, aligned
    size_type reduce_bytes;    // per block
};

template <typename F>
__global__ void team_kernel(F functor, size_type league_size, CudaTeamShape shape)
{
    extern __shared__ __align__(64) unsigned char loom_team_shared[];
    const int team_threads = shape.team_size * shape.vector_length;
    const int thread = threadIdx.x;
    const int team_in_block = thread / team_threads;
    const int thread_in_team = thread % team_threads;
    const bool block_team = team_threads >= 32;
    const int lane = thread % 32;
    const unsigned team_mask =
        block_team ? 0xffffffffu : ((1u << team_threads) - 1u) << (lane / team_threads * team_threads);
    std::byte* shared = reinterpret_cast<std::byte*>(loom_team_shared);
    CudaTeamMember::Layout layout{0,
                                  league_size,
                                  thread_in_team / shape.vector_length,
                                  shape.team_size,
                                  thread_in_team % shape.vector_length,
                                  shape.vector_length,
                                  team_mask,
                                  block_team,
                                  shared + shape.reduce_bytes + team_in_block * shape.scratch_stride,
                                  shape.scratch_bytes,
                                  shared};
    const size_type stride = static_cast<size_type>(gridDim.x) * shape.teams_per_block;
    for (size_type rank = static_cast<size_type>(blockIdx.x) * shape.teams_per_block + team_in_block;
         rank < league_size; rank += stride) {
        layout.league_rank = rank;
        const CudaTeamMember member(layout);
        functor(member);
        // The next team on these threads reuses the scratch: wait until this one is done.
        if (shape.scratch_bytes > 0 && rank + stride < league_size) member.team_barrier();
    }
}

inline void check_cuda(cudaError_t status, const char* what, const char* where)
{
    if (status != cudaSuccess) {
        throw CudaError(where, std::string(what) + " failed: " + cudaGetErrorName(status) + " (" +
                                   cudaGetErrorString(status) + ")");
    }
}

}  // namespace detail

/// Team launch on CUDA, queued on the executor's stream (asynchronous, like every CUDA kernel
/// of Loom). functor must be a __device__ or __host__ __device__ lambda (or functor class).
template <typename F>
void team_parallel_for(const CudaExecutor& exec, const TeamPolicy& policy, F&& functor)
{
    using Functor = std::decay_t<F>;
    constexpr const char* where = "loom::launch::team_parallel_for";
    detail::validate(policy, where);
    if (policy.league_size == 0) return;
    const int team_threads = policy.team_threads();
    detail::CudaTeamShape shape{};
    shape.team_size = policy.team_size;
    shape.vector_length = policy.vector_length;
    shape.scratch_bytes = policy.scratch_bytes;
    shape.scratch_stride = detail::align_up(policy.scratch_bytes, detail::cuda_scratch_alignment);
    shape.reduce_bytes = team_threads > 32 ? team_threads / 32 * detail::cuda_reduce_slot_bytes : 0;
    shape.teams_per_block = team_threads >= 32 ? 1 : detail::cuda_small_team_block / team_threads;
    // Small teams share a block, and each brings its scratch: no more of them than fit in the
    // default 48 KiB, in whole warps where possible (one team's scratch may still need more).
    if (shape.scratch_stride > 0) {
        const size_type fit = 48 * 1024 / shape.scratch_stride;
        const int per_warp = team_threads >= 32 ? 1 : 32 / team_threads;
        if (fit < static_cast<size_type>(shape.teams_per_block)) {
            const size_type whole_warps = fit / per_warp * per_warp;
            shape.teams_per_block = static_cast<int>(std::max<size_type>(
                1, whole_warps > 0 ? whole_warps : fit));
        }
    }
    const size_type shared = shape.reduce_bytes + shape.teams_per_block * shape.scratch_stride;
    const size_type blocks =
        (policy.league_size + shape.teams_per_block - 1) / shape.teams_per_block;
    const unsigned grid = static_cast<unsigned>(blocks < INT_MAX ? blocks : INT_MAX);

    const CudaExecutor::DeviceScope scope(exec.device_id());
    const auto kernel = detail::team_kernel<Functor>;
    const int block = shape.teams_per_block * team_threads;
    // A functor that needs many registers cannot run in blocks of 512 or 1024 threads (the
    // kernel is not compiled for a fixed block size, which would cap registers everywhere).
    static const int max_block = [&] {
        cudaFuncAttributes attributes{};
        detail::check_cuda(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes",
                           where);
        return attributes.maxThreadsPerBlock;
    }();
    if (block > max_block) {
        throw BadInput(where, "teams of " + std::to_string(team_threads) +
                                  " threads need more registers than the GPU has for them (this "
                                  "functor runs in teams of at most " +
                                  std::to_string(max_block) + " threads)");
    }
    if (shared > 48 * 1024) {
        int limit = 0;
        detail::check_cuda(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                                  exec.device_id()),
                           "cudaDeviceGetAttribute", where);
        if (shared > limit) {
            throw BadInput(where, "team scratch of " + std::to_string(policy.scratch_bytes) +
                                      " bytes per team exceeds the device's shared memory (" +
                                      std::to_string(limit) + " bytes per block)");
        }
        detail::check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(shared)),
                           "cudaFuncSetAttribute", where);
    }
    kernel<<<grid, block, static_cast<std::size_t>(shared),
             static_cast<cudaStream_t>(exec.stream())>>>(Functor(functor), policy.league_size,
                                                                 shape);
    detail::check_cuda(cudaGetLastError(), "kernel launch", where);
}

}  // namespace loom::launch
