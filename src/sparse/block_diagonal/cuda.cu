// CUDA block-diagonal kernels.
//
//  * invert: one warp per block, the block in the warp's slice of shared memory (row-major).
//    The rows are gathered a lane per row; Gauss-Jordan then runs a lane per column: the
//    pivot is a warp arg-max (largest |re| + |im|, first row on ties, as on the host), the
//    row swap touches only each lane's own column, and the column swaps that undo the row
//    swaps are never done: each lane tracks which eliminated column becomes its column of
//    the inverse, and the write-out reads through that map (coalesced, column-major).
//  * compress: one warp per block, scaled by a power of two and rounded to its precision.
//  * apply: a group of S lanes per block, S the power of two covering the largest block, so
//    a warp serves 32 / S small blocks; lane i computes row i of the block's product,
//    reading the block column-major (coalesced across the group) in its stored precision.
//    No shuffles: b's entries are broadcast loads, so each group may branch on its block's
//    precision independently.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/warp.cuh"
#include "base/kernel_scalar.hpp"
#include "base/instantiate.hpp"
#include "sparse/block_diagonal/kernels.hpp"
#include "sparse/block_diagonal/storage.hpp"

namespace loom::sparse::cuda {
namespace {

using namespace loom::cuda;

constexpr int apply_block_size = 256;
/// Shared memory a thread block may use without opting in.
constexpr long long default_shared_bytes = 48 * 1024;
constexpr int max_warps_per_block = 4;

template <typename R>
__device__ R abs_real(R value)
{
    if constexpr (std::is_same_v<R, float>) {
        return fabsf(value);
    } else {
        return fabs(value);
    }
}

template <typename R>
__device__ R magnitude(R value)
{
    return abs_real(value);
}
template <typename R>
__device__ R magnitude(thrust::complex<R> value)
{
    return thrust::abs(value);
}

/// |re| + |im|, the pivot magnitude (base/kernel_scalar.hpp, as on the host).
using loom::detail::abs1;

/// max that propagates NaN (so a NaN block yields a NaN condition number, as on the host).
template <typename R>
__device__ R max_nan(R a, R b)
{
    return (a > b || a != a) ? a : b;
}

/// The maximum over the warp, in every lane.
template <typename R>
__device__ R warp_max(R value)
{
    for (int offset = warp_size / 2; offset > 0; offset /= 2) {
        value = max_nan(value, __shfl_xor_sync(full_mask, value, offset));
    }
    return value;
}

/// The largest magnitude over the warp and the smallest index holding it, in every lane.
template <typename R>
__device__ void warp_arg_max(R& value, int& index)
{
    for (int offset = warp_size / 2; offset > 0; offset /= 2) {
        const R other = __shfl_xor_sync(full_mask, value, offset);
        const int other_index = __shfl_xor_sync(full_mask, index, offset);
        if (other > value || (other == value && other_index < index)) {
            value = other;
            index = other_index;
        }
    }
}

/// sum_i |a(i, column)| of an n x n row-major block.
template <typename D>
__device__ device_real_t<D> column_abs_sum(const D* a, int n, int column)
{
    device_real_t<D> sum = 0;
    for (int i = 0; i < n; ++i) sum += magnitude(a[i * n + column]);
    return sum;
}

template <typename R>
__device__ bool is_finite(R value)
{
    return isfinite(value);
}

__device__ void record_failure(std::int64_t* failure, long long code)
{
    atomicMin(reinterpret_cast<long long*>(failure), code);
}

template <typename D, typename I>
__global__ void invert_blocks_kernel(long long num_blocks, const I* __restrict__ block_ptrs,
                                     const I* __restrict__ row_ptrs, const I* __restrict__ cols,
                                     const D* __restrict__ values, int block_area,
                                     const std::int64_t* __restrict__ offsets,
                                     unsigned char* __restrict__ storage,
                                     device_real_t<D>* __restrict__ conditions,
                                     std::int64_t* failure)
{
    using R = device_real_t<D>;
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    const int lane = threadIdx.x % warp_size;
    const int warp = threadIdx.x / warp_size;
    const int warps = blockDim.x / warp_size;
    D* a = reinterpret_cast<D*>(shared_bytes) + warp * block_area;
    for (long long k = blockIdx.x * static_cast<long long>(warps) + warp; k < num_blocks;
         k += static_cast<long long>(gridDim.x) * warps) {
        const long long begin = block_ptrs[k];
        const int n = static_cast<int>(block_ptrs[k + 1] - begin);
        for (int e = lane; e < n * n; e += warp_size) a[e] = D(0);
        __syncwarp();
        if (lane < n) {
            for (auto p = row_ptrs[begin + lane]; p < row_ptrs[begin + lane + 1]; ++p) {
                const long long col = static_cast<long long>(cols[p]) - begin;
                if (col >= 0 && col < n) a[lane * n + col] += values[p];
            }
        }
        __syncwarp();
        const R norm = warp_max(lane < n ? column_abs_sum(a, n, lane) : R(0));

        int source = lane;  // the eliminated column that becomes this lane's inverse column
        int failed_step = -1;
        for (int step = 0; step < n; ++step) {
            R pivot_magnitude = lane >= step && lane < n ? abs1(a[lane * n + step]) : R(-1);
            if (!(pivot_magnitude >= 0)) pivot_magnitude = R(-1);  // NaN never pivots
            int pivot = lane;
            warp_arg_max(pivot_magnitude, pivot);
            if (!(pivot_magnitude > 0)) {
                failed_step = step;
                break;
            }
            if (pivot != step && lane < n) {
                const D t = a[step * n + lane];
                a[step * n + lane] = a[pivot * n + lane];
                a[pivot * n + lane] = t;
            }
            if (source == step) {
                source = pivot;
            } else if (source == pivot) {
                source = step;
            }
            __syncwarp();
            const D inverse_pivot = D(1) / a[step * n + step];
            if (lane < n && lane != step) {
                const D scaled = a[step * n + lane] * inverse_pivot;
                a[step * n + lane] = scaled;
                for (int i = 0; i < n; ++i) {
                    if (i != step) a[i * n + lane] -= a[i * n + step] * scaled;
                }
            }
            __syncwarp();  // column `step` is read above before its lane rewrites it
            if (lane == step) {
                for (int i = 0; i < n; ++i) {
                    if (i != step) a[i * n + step] = -(a[i * n + step] * inverse_pivot);
                }
                a[step * n + step] = inverse_pivot;
            }
            __syncwarp();
        }

        if (failed_step >= 0) {
            if (lane == 0) {
                record_failure(failure, k * block_storage::failure_radix + failed_step);
            }
        } else {
            const R condition =
                norm * warp_max(lane < n ? column_abs_sum(a, n, source) : R(0));
            if (lane == 0) {
                conditions[k] = condition;
                if (!is_finite(condition)) {
                    record_failure(failure,
                                   k * block_storage::failure_radix +
                                       block_storage::non_finite_step);
                }
            }
            D* out = reinterpret_cast<D*>(storage + offsets[k]);
            for (int j = 0; j < n; ++j) {
                const int column = __shfl_sync(full_mask, source, j);
                if (lane < n) out[j * n + lane] = a[lane * n + column];
            }
        }
        __syncwarp();  // the next block reuses the shared slice
    }
}

template <typename R>
__device__ R power_of_two_exponent(R largest, int& exponent)
{
    if constexpr (std::is_same_v<R, float>) {
        return frexpf(largest, &exponent);
    } else {
        return frexp(largest, &exponent);
    }
}

template <typename R>
__device__ R power_of_two(int exponent)
{
    if constexpr (std::is_same_v<R, float>) {
        return ldexpf(1.0f, exponent);
    } else {
        return ldexp(1.0, exponent);
    }
}

template <typename S, typename R>
__device__ void store_scaled(const R* source, int count, R inv_scale, S* dest, int lane)
{
    for (int e = lane; e < count; e += warp_size) {
        dest[e] = block_storage::store_real<S>(source[e] * inv_scale);
    }
}

template <typename R, typename I>
__global__ void compress_blocks_kernel(long long num_blocks, int parts, StoragePrecision working,
                                       const I* __restrict__ block_ptrs,
                                       const std::int64_t* __restrict__ source_offsets,
                                       const unsigned char* __restrict__ source,
                                       const std::uint8_t* __restrict__ precisions,
                                       const std::int64_t* __restrict__ offsets,
                                       unsigned char* __restrict__ storage,
                                       R* __restrict__ scales)
{
    const int lane = threadIdx.x % warp_size;
    const int warps = blockDim.x / warp_size;
    for (long long k = blockIdx.x * static_cast<long long>(warps) + threadIdx.x / warp_size;
         k < num_blocks; k += static_cast<long long>(gridDim.x) * warps) {
        const int n = static_cast<int>(block_ptrs[k + 1] - block_ptrs[k]);
        const int count = n * n * parts;
        const R* reals = reinterpret_cast<const R*>(source + source_offsets[k]);
        unsigned char* dest = storage + offsets[k];
        const auto precision = static_cast<StoragePrecision>(precisions[k]);
        if (precision == working) {
            for (int e = lane; e < count; e += warp_size) {
                reinterpret_cast<R*>(dest)[e] = reals[e];
            }
            if (lane == 0) scales[k] = R(1);
            continue;
        }
        R largest = 0;
        for (int e = lane; e < count; e += warp_size) {
            largest = max_nan(largest, abs_real(reals[e]));
        }
        largest = warp_max(largest);
        int exponent = 0;
        power_of_two_exponent(largest, exponent);
        const R inv_scale = power_of_two<R>(-exponent);
        if (precision == StoragePrecision::float32) {
            store_scaled(reals, count, inv_scale, reinterpret_cast<float*>(dest), lane);
        } else {
            store_scaled(reals, count, inv_scale, reinterpret_cast<std::uint16_t*>(dest), lane);
        }
        if (lane == 0) scales[k] = power_of_two<R>(exponent);
    }
}

/// Entry e of a block stored as S.
template <typename D, typename S>
__device__ D load_entry(const S* block, int e)
{
    using R = device_real_t<D>;
    if constexpr (std::is_same_v<D, R>) {
        return block_storage::load_real<R>(block[e]);
    } else {
        return D(block_storage::load_real<R>(block[2 * e]),
                 block_storage::load_real<R>(block[2 * e + 1]));
    }
}

/// Row `lane` of op(block) times b, for every column: x = factor * result + beta * x.
template <typename S, typename D>
__device__ void apply_row(const S* __restrict__ stored, int n, int lane, bool transposes,
                          bool conjugates, D factor, const D* __restrict__ b, long long b_stride,
                          D beta, D* __restrict__ x, long long x_stride, long long cols)
{
    for (long long c = 0; c < cols; ++c) {
        D result(0);
        for (int j = 0; j < n; ++j) {
            D value = load_entry<D>(stored, transposes ? lane * n + j : j * n + lane);
            if (conjugates) value = conj_dev(value);
            result += value * b[j * b_stride + c];
        }
        D& out = x[lane * x_stride + c];
        out = beta == D(0) ? factor * result : factor * result + beta * out;
    }
}

template <typename D, typename I>
__global__ void __launch_bounds__(apply_block_size)
    apply_blocks_kernel(long long num_blocks, int group, const I* __restrict__ block_ptrs,
                        const std::int64_t* __restrict__ offsets,
                        const std::uint8_t* __restrict__ precisions,
                        const device_real_t<D>* __restrict__ scales,
                        const unsigned char* __restrict__ storage, bool transposes,
                        bool conjugates, D alpha, const D* __restrict__ b, long long b_stride,
                        D beta, D* __restrict__ x, long long x_stride, long long cols)
{
    const long long threads = num_blocks * group;
    for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
         t < threads; t += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long k = t / group;
        const int lane = static_cast<int>(t % group);
        const long long begin = block_ptrs[k];
        const int n = static_cast<int>(block_ptrs[k + 1] - begin);
        if (lane >= n) continue;
        const unsigned char* stored = storage + offsets[k];
        const D factor = alpha * scales[k];
        const D* bk = b + begin * b_stride;
        D* xk = x + begin * x_stride;
        switch (static_cast<StoragePrecision>(precisions[k])) {
        case StoragePrecision::float64:
            apply_row(reinterpret_cast<const double*>(stored), n, lane, transposes, conjugates,
                      factor, bk, b_stride, beta, xk, x_stride, cols);
            break;
        case StoragePrecision::float32:
            apply_row(reinterpret_cast<const float*>(stored), n, lane, transposes, conjugates,
                      factor, bk, b_stride, beta, xk, x_stride, cols);
            break;
        default:
            apply_row(reinterpret_cast<const std::uint16_t*>(stored), n, lane, transposes,
                      conjugates, factor, bk, b_stride, beta, xk, x_stride, cols);
            break;
        }
    }
}

/// The smallest power of two >= size (size in [1, 32]).
int group_size(size_type size)
{
    int group = 1;
    while (group < size) group *= 2;
    return group;
}

}  // namespace

template <typename V, typename I>
void invert_blocks(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                   const Array<I>& block_ptrs, size_type max_block_size,
                   const Array<std::int64_t>& offsets, Array<unsigned char>& storage,
                   Array<remove_complex_t<V>>& conditions, Array<std::int64_t>& failure)
{
    const long long num_blocks = block_ptrs.size() - 1;
    if (num_blocks == 0) return;
    using D = device_type_t<V>;
    const int block_area = static_cast<int>(max_block_size * max_block_size);
    const long long warp_bytes = block_area * static_cast<long long>(sizeof(D));
    const int warps = static_cast<int>(
        std::clamp<long long>(default_shared_bytes / warp_bytes, 1, max_warps_per_block));
    invert_blocks_kernel<<<grid_for(exec, num_blocks, warps, 32), warps * warp_size,
                           warps * warp_bytes, stream_of(exec)>>>(
        num_blocks, block_ptrs.data(), A.row_ptrs().data(), A.col_idxs().data(),
        as_device(A.values().data()), block_area, offsets.data(), storage.data(),
        conditions.data(), failure.data());
    check_launch("loom::sparse::invert_blocks");
}

template <typename V, typename I>
void compress_blocks(const CudaExecutor& exec, const Array<I>& block_ptrs,
                     const Array<std::int64_t>& source_offsets,
                     const Array<unsigned char>& source, const Array<std::uint8_t>& precisions,
                     const Array<std::int64_t>& offsets, Array<unsigned char>& storage,
                     Array<remove_complex_t<V>>& scales)
{
    const long long num_blocks = precisions.size();
    if (num_blocks == 0) return;
    constexpr int warps = 8;
    compress_blocks_kernel<<<grid_for(exec, num_blocks, warps, 32), warps * warp_size, 0,
                             stream_of(exec)>>>(
        num_blocks, is_complex_v<V> ? 2 : 1, working_precision<V>(), block_ptrs.data(),
        source_offsets.data(), source.data(), precisions.data(), offsets.data(), storage.data(),
        scales.data());
    check_launch("loom::sparse::invert_blocks");
}

template <typename V, typename I>
void apply_block_inverse(const CudaExecutor& exec, Mode mode, V alpha,
                         const BlockDiagonalInverse<V, I>& inverse, const matrix::Dense<V>& b,
                         V beta, matrix::Dense<V>& x)
{
    const long long num_blocks = inverse.num_blocks();
    const int group = group_size(inverse.max_block_size());
    apply_blocks_kernel<<<grid_for(exec, num_blocks * group, apply_block_size, 32),
                          apply_block_size, 0, stream_of(exec)>>>(
        num_blocks, group, inverse.block_ptrs().data(), inverse.offsets().data(),
        inverse.precisions().data(), inverse.scales().data(), inverse.storage().data(),
        mode == Mode::transpose || mode == Mode::conj_transpose,
        mode == Mode::conjugate || mode == Mode::conj_transpose, as_device(alpha),
        as_device(b.data()), b.stride(), as_device(beta), as_device(x.data()), x.stride(),
        b.cols());
    check_launch("loom::sparse::apply_block_inverse");
}

template <typename V, typename I>
void invert_diagonal(const CudaExecutor& exec, const matrix::Csr<V, I>& A, Array<V>& inverse,
                     Array<std::int64_t>& failure)
{
    using D = device_type_t<V>;
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const D* values = as_device(A.values().data());
    D* out = as_device(inverse.data());
    std::int64_t* first_failure = failure.data();
    loom::cuda::parallel_for(
        exec, A.rows(),
        [=] __device__(long long row) {
            D diagonal(0);
            for (auto p = row_ptrs[row]; p < row_ptrs[row + 1]; ++p) {
                if (cols[p] == row) diagonal += values[p];
            }
            const auto size = abs1(diagonal);
            const bool ok = size > 0 && is_finite(size);
            out[row] = ok ? D(1) / diagonal : D(0);
            if (!ok) record_failure(first_failure, row);
        },
        "loom::sparse::invert_diagonal");
}

template <typename V>
void apply_diagonal(const CudaExecutor& exec, Mode mode, V alpha, const Array<V>& inverse,
                    const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    using D = device_type_t<V>;
    const D* d = as_device(inverse.data());
    const D* bd = as_device(b.data());
    D* xd = as_device(x.data());
    const long long cols = b.cols();
    const long long b_stride = b.stride();
    const long long x_stride = x.stride();
    const bool conjugates = mode == Mode::conjugate || mode == Mode::conj_transpose;
    const D alpha_d = as_device(alpha);
    const D beta_d = as_device(beta);
    loom::cuda::parallel_for(
        exec, b.rows() * cols,
        [=] __device__(long long t) {
            const long long row = t / cols;
            const long long c = t - row * cols;
            const D factor = alpha_d * (conjugates ? conj_dev(d[row]) : d[row]);
            const D value = factor * bd[row * b_stride + c];
            D& out = xd[row * x_stride + c];
            out = beta_d == D(0) ? value : value + beta_d * out;
        },
        "loom::sparse::apply_diagonal");
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BLOCK_DIAGONAL_KERNELS, CudaExecutor)

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_APPLY_DIAGONAL_KERNELS, CudaExecutor)

}  // namespace loom::sparse::cuda
