// Sync-free SpTRSV with x as its own ready flag. Before a solve every entry of x is set to
// `not_ready`, a signalling NaN, which no arithmetic yields (it only makes quiet NaNs); a
// row's value, once stored, is the sign that the row is solved. A lane that needs x_c polls
// x_c itself: one load per dependency, no flag, no fence, no second load for the value.
// Every scalar is stored and loaded whole (a 4- or 8-byte access is single-copy atomic), a
// complex value part by part, each part its own flag.
#pragma once

#include <type_traits>

#include "base/cuda/arithmetic.cuh"

namespace loom::sparse::cuda::ready_values {

/// The real scalar a device value type is made of.
template <typename D>
struct Scalar {
    using type = D;
};
template <typename T>
struct Scalar<thrust::complex<T>> {
    using type = T;
};
template <typename D>
using scalar_t = typename Scalar<D>::type;

/// The unsigned integer holding the bits of scalar R.
template <typename R>
using bits_t = std::conditional_t<sizeof(R) == 8, unsigned long long, unsigned int>;

/// A NaN's bits: quiet, or the signalling one that marks an unsolved entry (`not_ready`:
/// quiet bit clear, payload nonzero; arithmetic never yields it).
template <typename R>
__device__ __forceinline__ constexpr bits_t<R> nan_bits(bool quiet)
{
    if constexpr (sizeof(R) == 8) {
        return quiet ? 0x7ff8000000000000ull : 0x7ff0dead5eedf00dull;
    } else {
        return quiet ? 0x7fc00000u : 0x7f81deadu;
    }
}
template <typename R>
__device__ __forceinline__ constexpr bits_t<R> not_ready()
{
    return nan_bits<R>(false);
}

__device__ __forceinline__ unsigned long long bits_of(double v)
{
    return static_cast<unsigned long long>(__double_as_longlong(v));
}
__device__ __forceinline__ unsigned int bits_of(float v) { return __float_as_uint(v); }
__device__ __forceinline__ double from_bits(unsigned long long b)
{
    return __longlong_as_double(static_cast<long long>(b));
}
__device__ __forceinline__ float from_bits(unsigned int b) { return __uint_as_float(b); }

/// *p as the L2 holds it now (another SM may write it during the launch).
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned int load_relaxed(const unsigned int* p)
{
    unsigned int v;
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void store_relaxed(unsigned int* p, unsigned int v)
{
    asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/// Marks *p unsolved (before the launch that solves it).
template <typename D>
__device__ __forceinline__ void mark_not_ready(D* p)
{
    using R = scalar_t<D>;
    auto* bits = reinterpret_cast<bits_t<R>*>(p);
    for (int i = 0; i < static_cast<int>(sizeof(D) / sizeof(R)); ++i) bits[i] = not_ready<R>();
}

/// *p once it is solved; between polls the lane sleeps poll_ns (0: spins).
template <typename D>
__device__ __forceinline__ D wait_value(const D* p, unsigned poll_ns)
{
    using R = scalar_t<D>;
    constexpr int parts = sizeof(D) / sizeof(R);
    const auto* bits = reinterpret_cast<const bits_t<R>*>(p);
    R value[parts];
#pragma unroll
    for (int i = 0; i < parts; ++i) {
        bits_t<R> b;
        while ((b = load_relaxed(bits + i)) == not_ready<R>()) {
            if (poll_ns > 0) __nanosleep(poll_ns);
        }
        value[i] = from_bits(b);
    }
    if constexpr (parts == 1) {
        return value[0];
    } else {
        return D(value[0], value[1]);
    }
}

/// Stores the solution v at p, where waiting lanes see it.
template <typename D>
__device__ __forceinline__ void publish_value(D* p, const D& v)
{
    using R = scalar_t<D>;
    const auto* parts = reinterpret_cast<const R*>(&v);
    auto* bits = reinterpret_cast<bits_t<R>*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(D) / sizeof(R)); ++i) {
        const auto b = bits_of(parts[i]);
        store_relaxed(bits + i, b == not_ready<R>() ? nan_bits<R>(true) : b);
    }
}

}  // namespace loom::sparse::cuda::ready_values
