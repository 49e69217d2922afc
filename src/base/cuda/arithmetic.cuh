// Device arithmetic on Loom's device value types (float, double, thrust::complex): products
// without a library call, loads through the read-only cache, and atomic sums. Used by the
// kernels of spmv, spmv_stencil, spgemm and spadd.
#pragma once

#include <type_traits>

#include <thrust/complex.h>

namespace loom::cuda {

template <typename T>
struct is_device_complex : std::false_type {};
template <typename T>
struct is_device_complex<thrust::complex<T>> : std::true_type {};
template <typename T>
inline constexpr bool is_device_complex_v = is_device_complex<T>::value;

/// The real type of a device value type (double for thrust::complex<double>): the device twin
/// of loom::remove_complex_t, which knows std::complex only.
template <typename T>
struct device_real { using type = T; };
template <typename T>
struct device_real<thrust::complex<T>> { using type = T; };
template <typename T>
using device_real_t = typename device_real<T>::type;

/// The CUDA vector type with the layout of thrust::complex<T>.
template <typename T>
struct pair_of;
template <>
struct pair_of<float> { using type = float2; };
template <>
struct pair_of<double> { using type = double2; };

/// a * b; for complex types the textbook formula, without the infinity recovery of a
/// library multiply (which would make every product a branchy call).
template <typename D>
__device__ __forceinline__ D mul(const D& a, const D& b)
{
    if constexpr (is_device_complex_v<D>) {
        return D(a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real());
    } else {
        return a * b;
    }
}

/// *p by one of the load intrinsics (`__ldg`, `__ldcs`, `__ldcg`: which cache keeps the line),
/// a complex value as one load of the pair of its parts.
template <typename D, typename Load>
__device__ __forceinline__ D load_by(const D* p, Load load)
{
    if constexpr (is_device_complex_v<D>) {
        using Pair = typename pair_of<typename D::value_type>::type;
        const Pair v = load(reinterpret_cast<const Pair*>(p));
        return D(v.x, v.y);
    } else {
        return load(p);
    }
}

/// *p through the read-only cache (for data that neighbouring threads read again).
template <typename D>
__device__ __forceinline__ D load_cached(const D* p)
{
    return load_by(p, [](const auto* q) { return __ldg(q); });
}

/// *target += value. Complex values are added part by part (there is no 128-bit, or 64-bit
/// float pair, atomicAdd): other threads may see one part updated before the other.
template <typename D>
__device__ __forceinline__ void atomic_add(D* target, const D& value)
{
    if constexpr (is_device_complex_v<D>) {
        auto* parts = reinterpret_cast<typename D::value_type*>(target);
        atomicAdd(parts, value.real());
        atomicAdd(parts + 1, value.imag());
    } else {
        atomicAdd(target, value);
    }
}

}  // namespace loom::cuda
