// Asynchronous global -> shared copies (cp.async, sm_80 and later) for the staging of the
// batched kernels: a lane can have all the entries it stages in flight at once without holding
// them in registers, which is what keeps HBM busy when a warp stages a whole matrix (the
// register-staged copies of a 32 x 32 double matrix had 16 rows of 8 bytes per lane in flight).
// Before sm_80 the same calls copy synchronously.
#pragma once

#include <cstdint>

#include "loom/launch/macros.hpp"

namespace loom::batched::cuda_front::async {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define LOOM_BATCHED_CP_ASYNC 1
#else
#define LOOM_BATCHED_CP_ASYNC 0
#endif

__device__ LOOM_INLINE unsigned shared_address(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// *dst = valid ? *src : 0 for one value of 4 or 8 bytes (src is not read when !valid, but
/// must be a valid address).
template <typename T>
__device__ LOOM_INLINE void copy(T* dst, const T* src, bool valid = true)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
#if LOOM_BATCHED_CP_ASYNC
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(shared_address(dst)),
                 "l"(src), "n"(sizeof(T)), "r"(valid ? static_cast<int>(sizeof(T)) : 0)
                 : "memory");
#else
    *dst = valid ? *src : T(0);
#endif
}

/// 16 bytes (both addresses 16-byte aligned); zeros where !valid. Bypasses L1: the staged
/// entries are read once.
__device__ LOOM_INLINE void copy16(void* dst, const void* src, bool valid = true)
{
#if LOOM_BATCHED_CP_ASYNC
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)),
                 "l"(src), "r"(valid ? 16 : 0)
                 : "memory");
#else
    *static_cast<int4*>(dst) = valid ? *static_cast<const int4*>(src) : make_int4(0, 0, 0, 0);
#endif
}

/// Waits for every copy this thread started; the group's sync that follows makes the copies of
/// the other lanes visible.
__device__ LOOM_INLINE void wait_all()
{
#if LOOM_BATCHED_CP_ASYNC
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

}  // namespace loom::batched::cuda_front::async
