// The unified launchers: a simple kernel is written once, as a LOOM_HOST_DEVICE lambda or
// functor over an index, in a header beside its family's backends (unified.hpp), and the
// OpenMP and CUDA entry points both call that one template with their executor:
//
//     template <typename Exec, typename V>                               // unified.hpp
//     void fill(const Exec& exec, matrix::Dense<V>& x, V value)
//     {
//         const auto X = loom::detail::kernel_matrix(exec, x);
//         const auto v = loom::detail::kernel_value(exec, value);
//         loom::detail::parallel_for(exec, x.rows(), x.cols(),
//             [=] LOOM_HOST_DEVICE(size_type i, size_type j) { X(i, j) = v; });
//     }
//
// Each backend keeps its own memory access pattern: OpenMP splits the index range statically
// over the executor's threads (the element-wise form on the calling thread below
// omp::min_parallel_elements elements), CUDA runs a grid-stride loop, consecutive threads on
// consecutive indices. parallel_reduce is deterministic for a given executor and size: OpenMP
// combines per-thread partials of static chunks in thread order, CUDA runs CUB's reduction.
// The launchers are declared here for both backends and defined by base/omp/launch.hpp and
// base/cuda/parallel.cuh: a translation unit includes the one of its backend, so an OpenMP
// file never sees CUDA code. The tuned reductions of blas/dense (multi-column, in the
// executor's memory) and the scans of base/prefix_sum.hpp keep their own kernels.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"

namespace loom::detail {

/// The type a kernel body sees for a value of type T held by an executor of type Exec: T on
/// the host; on CUDA thrust::complex for std::complex (base/cuda/parallel.cuh), which has its
/// layout and works in device code.
template <typename Exec, typename T>
struct kernel_type {
    using type = T;
};
template <typename T>
struct kernel_type<CudaExecutor, T>;
template <typename Exec, typename T>
using kernel_type_t = typename kernel_type<Exec, T>::type;

/// exec's memory as the kernel body sees it.
template <typename Exec, typename T>
kernel_type_t<Exec, T>* kernel_data(const Exec&, T* data)
{
    return reinterpret_cast<kernel_type_t<Exec, T>*>(data);
}

/// A row-major block of rows (a Dense multi-vector) as the kernel body sees it: element (i, j)
/// at data[i * stride + j].
template <typename T>
struct KernelMatrix {
    T* data;
    size_type stride;

    LOOM_HOST_DEVICE T& operator()(size_type i, size_type j) const { return data[i * stride + j]; }
};

/// Rows of `stride` elements from data, in exec's memory, as the kernel body sees them.
template <typename Exec, typename T>
KernelMatrix<kernel_type_t<Exec, T>> kernel_matrix(const Exec& exec, T* data, size_type stride)
{
    return {kernel_data(exec, data), stride};
}
/// x (a matrix::Dense, or anything with data() and stride()) as the kernel body sees it.
template <typename Exec, typename M>
auto kernel_matrix(const Exec& exec, M& x)
{
    return kernel_matrix(exec, x.data(), x.stride());
}

/// A host value (a scalar argument) as the kernel body sees it, captured by value.
template <typename Exec, typename T>
kernel_type_t<Exec, T> kernel_value(const Exec&, const T& value)
{
    return kernel_type_t<Exec, T>(value);
}

/// What a failed launch names when the caller does not say.
inline constexpr const char* parallel_for_caller = "loom::detail::parallel_for";

/// f(i) for i in [0, n); `where` names the caller in errors.
template <typename F>
void parallel_for(const OmpExecutor& exec, size_type n, F f,
                  const char* where = parallel_for_caller);
template <typename F>
void parallel_for(const CudaExecutor& exec, size_type n, F f,
                  const char* where = parallel_for_caller);

/// The same where the iterations differ much in cost (rows of very different lengths): on
/// OpenMP handed out dynamically, omp::uneven_chunk at a time; on CUDA as parallel_for.
template <typename F>
void parallel_for_uneven(const OmpExecutor& exec, size_type n, F f,
                         const char* where = parallel_for_caller);
template <typename F>
void parallel_for_uneven(const CudaExecutor& exec, size_type n, F f,
                         const char* where = parallel_for_caller);

/// f(i, j) for every element of a rows x cols block (a row-major multi-vector).
template <typename F>
void parallel_for(const OmpExecutor& exec, size_type rows, size_type cols, F f,
                  const char* where = parallel_for_caller);
template <typename F>
void parallel_for(const CudaExecutor& exec, size_type rows, size_type cols, F f,
                  const char* where = parallel_for_caller);

/// op(...op(op(init, f(0)), f(1))..., f(n - 1)) in some order, read back to the host: op must
/// be associative and commutative (Max, Sum on integers); T a plain host-and-device type.
template <typename T, typename F, typename Op>
T parallel_reduce(const OmpExecutor& exec, size_type n, F f, T init, Op op,
                  const char* where = parallel_for_caller);
template <typename T, typename F, typename Op>
T parallel_reduce(const CudaExecutor& exec, size_type n, F f, T init, Op op,
                  const char* where = parallel_for_caller);

/// The larger of two values, for parallel_reduce.
struct Max {
    template <typename T>
    LOOM_HOST_DEVICE T operator()(const T& a, const T& b) const
    {
        return a < b ? b : a;
    }
};

}  // namespace loom::detail
