// The kernels behind Array, written once for OpenMP and CUDA on the unified launchers
// (base/parallel.hpp): fill (the reference backend fills inline in array.cpp), and the
// index gather the families with unified kernels share (their reference backends keep
// their own loops, the oracles).
#pragma once

#include <complex>
#include <cstdint>

#include "base/parallel.hpp"
#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/half.hpp"
#include "loom/base/types.hpp"

/// The element types Array::fill is built for, on every backend (array.cpp, and its CUDA
/// half in base/cuda/array.cu): M(T) for each.
#define LOOM_FOR_EACH_ARRAY_TYPE(M) \
    M(int32);                       \
    M(int64);                       \
    M(std::uint32_t);               \
    M(std::uint64_t);               \
    M(float);                       \
    M(double);                      \
    M(std::complex<float>);         \
    M(std::complex<double>);        \
    M(half);                        \
    M(bfloat16)

namespace loom::array_kernels {

template <typename Exec, typename T>
void fill(const Exec& exec, T* data, size_type n, const T& value)
{
    const auto d = detail::kernel_data(exec, data);
    const auto v = detail::kernel_value(exec, value);
    detail::parallel_for(
        exec, n, [=] LOOM_HOST_DEVICE(size_type i) { d[i] = v; }, "loom::Array::fill");
}

/// out[k] = table[indices[k]] for every k (out may be indices itself: each k reads its index
/// before it writes).
template <typename Exec, typename I>
void gather(const Exec& exec, const Array<I>& table, const Array<I>& indices, Array<I>& out,
            const char* where)
{
    const I* from = table.data();
    const I* at = indices.data();
    I* o = out.data();
    detail::parallel_for(
        exec, indices.size(), [=] LOOM_HOST_DEVICE(size_type k) { o[k] = from[at[k]]; }, where);
}

}  // namespace loom::array_kernels

namespace loom::cuda {

/// array_kernels::fill on CUDA (base/cuda/array.cu).
template <typename T>
void fill(const CudaExecutor& exec, T* data, size_type n, T value);

}  // namespace loom::cuda
