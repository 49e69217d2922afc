// CUDA dense LAPACK: the blocked drivers of algorithms.hpp on the CUDA level-3 kernels, with
// a one-block panel factorization (pivot search by a block reduction, first index on ties),
// column-parallel row interchanges and a shared-memory inverse of 32 x 32 diagonal blocks.
// The panel is the latency-bound part; cuSOLVER takes large matrices by default.
#include <algorithm>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "blas/level3/kernels.hpp"
#include "lapack/algorithms.hpp"
#include "lapack/kernels.hpp"
#include "loom/base/array.hpp"

namespace loom::lapack::cuda {

using blas::detail::mul;
using blas::detail::Strided;
using blas::detail::Triangle;
using namespace loom::cuda;

namespace {

constexpr int panel_columns = 32;
constexpr int panel_threads = 512;
constexpr int small_threads = 256;

#define LOOM_SHARED_ARRAY(T, name, count)                                                      \
    __shared__ alignas(T) unsigned char name##_storage[(count) * sizeof(T)];                   \
    T* name = reinterpret_cast<T*>(name##_storage)

/// LAPACK's pivot measure, |re| + |im| (base/kernel_scalar.hpp, as on the host).
using loom::detail::abs1;

/// Unblocked LU with partial pivoting of a rows x cols panel (cols <= panel_columns) by one
/// thread block; see detail::unblocked_getrf for the contract.
template <typename D>
__global__ void __launch_bounds__(panel_threads)
    panel_kernel(Strided<D> P, int32* pivots, long long offset, int32* info)
{
    using R = device_real_t<D>;
    __shared__ R best_value[panel_threads];
    __shared__ long long best_index[panel_threads];
    __shared__ long long pivot_index;
    LOOM_SHARED_ARRAY(D, pivot_row, panel_columns);
    const int t = threadIdx.x;
    const long long m = P.rows;
    const int n = static_cast<int>(P.cols);
    for (int c = 0; c < n && c < m; ++c) {
        // Each thread's rows ascend, so its first maximum is its smallest index; the tree
        // keeps the smallest index among equal values.
        R value = -1;
        long long index = c;
        for (long long r = c + t; r < m; r += panel_threads) {
            const R measure = abs1(*P.ptr(r, c));
            if (measure > value) {
                value = measure;
                index = r;
            }
        }
        best_value[t] = value;
        best_index[t] = index;
        __syncthreads();
        for (int half = panel_threads / 2; half > 0; half /= 2) {
            if (t < half) {
                const R other = best_value[t + half];
                const long long other_index = best_index[t + half];
                if (other > best_value[t] ||
                    (other == best_value[t] && other_index < best_index[t])) {
                    best_value[t] = other;
                    best_index[t] = other_index;
                }
            }
            __syncthreads();
        }
        if (t == 0) {
            const long long p = best_index[0];
            pivot_index = p;
            pivots[c] = static_cast<int32>(offset + p);
            if (*P.ptr(p, c) == D{} && *info < 0) *info = static_cast<int32>(offset + c);
        }
        __syncthreads();
        const long long p = pivot_index;
        const D pivot = *P.ptr(p, c);
        if (pivot == D{}) continue;  // a zero column below the diagonal: nothing to eliminate
        if (p != c && t < n) {
            const D above = *P.ptr(c, t);
            *P.ptr(c, t) = *P.ptr(p, t);
            *P.ptr(p, t) = above;
        }
        __syncthreads();
        if (t < n) pivot_row[t] = *P.ptr(c, t);
        __syncthreads();
        for (long long r = c + 1 + t; r < m; r += panel_threads) {
            const D l = *P.ptr(r, c) / pivot;
            *P.ptr(r, c) = l;
            for (int j = c + 1; j < n; ++j) *P.ptr(r, j) -= mul(l, pivot_row[j]);
        }
        __syncthreads();
    }
}

template <typename D>
__global__ void __launch_bounds__(small_threads)
    permute_kernel(const int32* pivots, long long first, long long count, Strided<D> B,
                   bool reverse)
{
    for (long long j = static_cast<long long>(blockIdx.x) * small_threads + threadIdx.x; j < B.cols;
         j += static_cast<long long>(gridDim.x) * small_threads) {
        for (long long s = 0; s < count; ++s) {
            const long long k = reverse ? first + count - 1 - s : first + s;
            const long long p = pivots[k];
            if (p == k) continue;
            const D row_k = *B.ptr(k, j);
            *B.ptr(k, j) = *B.ptr(p, j);
            *B.ptr(p, j) = row_k;
        }
    }
}

template <typename D>
__global__ void __launch_bounds__(small_threads)
    zero_diagonal_kernel(Strided<const D> A, unsigned long long* first)
{
    for (long long i = static_cast<long long>(blockIdx.x) * small_threads + threadIdx.x; i < A.rows;
         i += static_cast<long long>(gridDim.x) * small_threads) {
        if (*A.ptr(i, i) == D{}) atomicMin(first, static_cast<unsigned long long>(i));
    }
}

/// T = T^{-1} for one diagonal block (at most panel_columns square) in shared memory, one
/// thread per row; the unblocked algorithm of detail::unblocked_trtri with each triangular
/// product done by all rows at once.
template <typename D>
__global__ void __launch_bounds__(panel_columns) trtri_block_kernel(Triangle<D> T)
{
    LOOM_SHARED_ARRAY(D, s, panel_columns * panel_columns);
    const int n = static_cast<int>(T.view.rows);
    const int i = threadIdx.x;
    const auto inside = [&](int r, int c) { return T.lower ? c <= r : c >= r; };
    if (i < n) {
        for (int c = 0; c < n; ++c) s[i * panel_columns + c] = inside(i, c) ? *T.view.ptr(i, c) : D{};
    }
    __syncthreads();
    for (int step = 0; step < n; ++step) {
        const int j = T.lower ? n - 1 - step : step;
        if (!T.unit && i == 0) s[j * panel_columns + j] = D{1} / s[j * panel_columns + j];
        __syncthreads();
        const D negated_diagonal = T.unit ? D{-1} : -s[j * panel_columns + j];
        const bool in_rest = T.lower ? i > j && i < n : i < j;
        D sum{};
        if (in_rest) {
            sum = T.unit ? s[i * panel_columns + j] : mul(s[i * panel_columns + i], s[i * panel_columns + j]);
            const int k_begin = T.lower ? j + 1 : i + 1;
            const int k_end = T.lower ? i : j;
            for (int k = k_begin; k < k_end; ++k) sum += mul(s[i * panel_columns + k], s[k * panel_columns + j]);
        }
        __syncthreads();  // every row read the old column j
        if (in_rest) s[i * panel_columns + j] = mul(negated_diagonal, sum);
        __syncthreads();
    }
    if (i < n) {
        for (int c = 0; c < n; ++c) {
            if (inside(i, c)) *T.view.ptr(i, c) = s[i * panel_columns + c];
        }
    }
}

/// The CUDA kernels the blocked drivers are written against (host value types).
struct Kernels {
    static constexpr size_type panel_width = panel_columns;
    static constexpr size_type block_width = panel_columns;

    template <typename V>
    static void panel(const CudaExecutor& exec, Strided<V> P, int32* pivots, size_type offset,
                      int32* info)
    {
        using D = device_type_t<V>;
        panel_kernel<<<1, panel_threads, 0, stream_of(exec)>>>(P.template as<D>(), pivots,
                                                               offset, info);
        check_launch("loom::lapack::getrf");
    }
    template <typename V>
    static void diagonal_block(const CudaExecutor& exec, Triangle<V> T)
    {
        using D = device_type_t<V>;
        trtri_block_kernel<<<1, panel_columns, 0, stream_of(exec)>>>(
            Triangle<D>{T.view.template as<D>(), T.lower, T.unit});
        check_launch("loom::lapack::trtri");
    }
};

}  // namespace

template <typename V>
void getrf(const CudaExecutor& exec, Strided<V> A, int32* pivots, int32* info)
{
    detail::blocked_getrf<Kernels>(exec, A, pivots, info);
}

template <typename V>
void permute_rows(const CudaExecutor& exec, const int32* pivots, size_type first, size_type count,
                  Strided<V> B, bool reverse)
{
    if (B.cols == 0 || count == 0) return;
    using D = device_type_t<V>;
    permute_kernel<<<grid_for(exec, B.cols, small_threads, 8), small_threads, 0,
                     stream_of(exec)>>>(pivots, first, count, B.template as<D>(), reverse);
    check_launch("loom::lapack::getrs");
}

template <typename V>
size_type first_zero_diagonal(const CudaExecutor& exec, Strided<const V> A)
{
    using D = device_type_t<V>;
    constexpr const char* where = "loom::lapack::trtri";
    const auto none = static_cast<unsigned long long>(A.rows);
    Array<unsigned long long> first(exec.shared_from_this(), std::vector<unsigned long long>{none});
    zero_diagonal_kernel<<<grid_for(exec, A.rows, small_threads, 8), small_threads, 0,
                           stream_of(exec)>>>(A.template as<const D>(), first.data());
    check_launch(where);
    const auto row = first.to_host()[0];
    return row == none ? -1 : static_cast<size_type>(row);
}

template <typename V>
void trtri(const CudaExecutor& exec, Triangle<V> T)
{
    detail::blocked_trtri<Kernels>(exec, T);
}

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_LAPACK_KERNELS, CudaExecutor)

}  // namespace loom::lapack::cuda
