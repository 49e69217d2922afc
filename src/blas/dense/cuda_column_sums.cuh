// Deterministic per-column sums on CUDA, shared by the vector kernels (blas/dense) and the
// fused Krylov steps (blas/krylov): a grid whose size depends only on the problem size and
// the device, one partial per block written in a fixed place, then (when there was more than
// one block) a second pass adding the partials in a fixed order; no floating-point atomics.
// column_sums calls term(i, j) exactly once per element, so a term may also update the
// element it reads (a fused update and reduction).
#pragma once

#include <algorithm>
#include <type_traits>

#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"

namespace loom::blas::cuda {

using namespace loom::cuda;

constexpr int block_size = 256;
constexpr int warp_size = 32;
/// Resident 256-thread blocks per SM that saturate memory bandwidth on Hopper.
constexpr int blocks_per_sm = 8;
/// Grid y-dimension limit; larger counts are covered by striding.
constexpr long long max_grid_y = 65535;

template <typename T>
__device__ T shuffle_down(T value, int offset)
{
    return __shfl_down_sync(0xffffffffu, value, offset);
}

template <typename T>
__device__ thrust::complex<T> shuffle_down(thrust::complex<T> value, int offset)
{
    return {shuffle_down(value.real(), offset), shuffle_down(value.imag(), offset)};
}

/// The sum over the warp, in lane 0 (a fixed butterfly, hence deterministic).
template <typename T>
__device__ T warp_sum(T value)
{
    for (int offset = warp_size / 2; offset > 0; offset /= 2) value += shuffle_down(value, offset);
    return value;
}

/// The sum over the block, in thread 0. Safe to call repeatedly in a loop.
template <typename T>
__device__ T block_sum(T value)
{
    constexpr int warps = block_size / warp_size;
    // Raw storage: thrust::complex has a constructor, which __shared__ variables may not.
    __shared__ alignas(T) unsigned char storage[warps * sizeof(T)];
    T* warp_sums = reinterpret_cast<T*>(storage);
    const int lane = threadIdx.x % warp_size;
    const int warp = threadIdx.x / warp_size;
    value = warp_sum(value);
    __syncthreads();  // the previous call's readers are done with warp_sums
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) value = warp_sum(lane < warps ? warp_sums[lane] : T{});
    return value;
}

/// The products the reductions add up.
template <bool conjugate>
struct DotProduct {
    template <typename D>
    __device__ D operator()(const D& a, const D& b) const
    {
        return (conjugate ? conj_dev(a) : a) * b;
    }
};

struct SquaredNorm {
    template <typename D>
    __device__ auto operator()(const D& a) const
    {
        if constexpr (std::is_arithmetic_v<D>) {
            return a * a;
        } else {
            return thrust::norm(a);
        }
    }
};

/// term(i, j): the product at row i, column j of strided multi-vectors.
template <typename D, typename Product>
struct BinaryTerm {
    const D* x;
    long long x_stride;
    const D* y;
    long long y_stride;
    Product product;
    __device__ auto operator()(long long i, long long j) const
    {
        return product(x[i * x_stride + j], y[i * y_stride + j]);
    }
};

template <typename D, typename Product>
struct UnaryTerm {
    const D* x;
    long long stride;
    Product product;
    __device__ auto operator()(long long i, long long j) const { return product(x[i * stride + j]); }
};

struct Identity {
    template <typename T>
    __device__ T operator()(T value) const
    {
        return value;
    }
};

struct SquareRoot {
    __device__ float operator()(float value) const { return sqrtf(value); }
    __device__ double operator()(double value) const { return sqrt(value); }
};

/// Pass 1 for one column: out[b] = finalize(sum of term(i, 0) over the rows block b visits).
template <typename Acc, typename Term, typename Out, typename Finalize>
__global__ void __launch_bounds__(block_size)
    single_column_sums_kernel(long long rows, Term term, Out out, Finalize finalize)
{
    const long long grid_stride = static_cast<long long>(gridDim.x) * block_size;
    Acc sum{};
#pragma unroll 4
    for (long long i = blockIdx.x * static_cast<long long>(block_size) + threadIdx.x; i < rows;
         i += grid_stride) {
        sum += term(i, 0);
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0) out[blockIdx.x] = finalize(sum);
}

/// Pass 1 for several columns: out[j * gridDim.x + b] = finalize(sum of term(i, j) over the
/// rows block b visits). A block covers a tile of up to block_size columns and
/// block_size / tile_cols rows at a time, so that a warp reads consecutive elements of a
/// row-major multi-vector.
template <typename Acc, typename Term, typename Out, typename Finalize>
__global__ void __launch_bounds__(block_size)
    multi_column_sums_kernel(long long rows, long long cols, Term term, Out out,
                             Finalize finalize)
{
    __shared__ alignas(Acc) unsigned char storage[block_size * sizeof(Acc)];
    Acc* thread_sums = reinterpret_cast<Acc*>(storage);
    const int tile_cols = static_cast<int>(cols < block_size ? cols : block_size);
    const int tile_rows = block_size / tile_cols;
    const int r = threadIdx.x / tile_cols;
    const int c = threadIdx.x % tile_cols;
    const long long row_step = static_cast<long long>(gridDim.x) * tile_rows;
    for (long long j0 = blockIdx.y * static_cast<long long>(tile_cols); j0 < cols;
         j0 += static_cast<long long>(gridDim.y) * tile_cols) {
        const long long j = j0 + c;
        Acc sum{};
        if (r < tile_rows && j < cols) {
#pragma unroll 4
            for (long long i = blockIdx.x * static_cast<long long>(tile_rows) + r; i < rows;
                 i += row_step) {
                sum += term(i, j);
            }
        }
        __syncthreads();  // the previous tile's readers are done with thread_sums
        thread_sums[threadIdx.x] = sum;
        __syncthreads();
        // Threads 0 .. tile_cols-1 are row 0 of the tile: each adds up its column in row order.
        if (threadIdx.x < tile_cols && j < cols) {
            Acc total{};
            for (int q = 0; q < tile_rows; ++q) total += thread_sums[q * tile_cols + threadIdx.x];
            out[j * gridDim.x + blockIdx.x] = finalize(total);
        }
    }
}

/// Pass 2: result[j] = finalize(sum of the `count` partials of column j), one block per column.
template <typename Acc, typename Out, typename Finalize>
__global__ void __launch_bounds__(block_size)
    combine_partials_kernel(long long count, long long cols, const Acc* partials, Out result,
                            Finalize finalize)
{
    for (long long j = blockIdx.x; j < cols; j += gridDim.x) {
        Acc sum{};
        for (long long b = threadIdx.x; b < count; b += block_size) sum += partials[j * count + b];
        sum = block_sum(sum);
        if (threadIdx.x == 0) result[j] = finalize(sum);
    }
}

/// Scratch memory allocated and freed in stream order, so a reduction never waits for the host.
template <typename T>
class StreamScratch {
public:
    StreamScratch(cudaStream_t stream, long long count, const char* where) : stream_(stream)
    {
        LOOM_CUDA_CHECK(cudaMallocAsync(&data_, sizeof(T) * count, stream), where);
    }
    StreamScratch(const StreamScratch&) = delete;
    StreamScratch& operator=(const StreamScratch&) = delete;
    ~StreamScratch() { cudaFreeAsync(data_, stream_); }
    T* get() const noexcept { return data_; }

private:
    cudaStream_t stream_;
    T* data_ = nullptr;
};

/// Rows each thread handles at least before another block is worth its launch: below
/// block_size * this many rows one block does the whole reduction in a single launch.
constexpr long long min_rows_per_thread = 16;

/// result[j] = finalize(sum_i term(i, j)) for the columns of a rows x cols multi-vector; the
/// result row is 1 x cols (contiguous), result a pointer or an object indexed like one. The grid depends only on the shape and the device,
/// so the result is deterministic.
template <typename Acc, typename Out, typename Term, typename Finalize>
void column_sums(const CudaExecutor& exec, long long rows, long long cols, Term term, Out result,
                 Finalize finalize, const char* where)
{
    if (cols == 0) return;
    const auto stream = stream_of(exec);
    const long long tile_cols = std::min<long long>(cols, block_size);
    const long long tile_rows = block_size / tile_cols;
    const long long col_tiles = std::min(ceildiv(cols, tile_cols), max_grid_y);
    // Fill the device once over all column tiles; at least one block, so that empty columns
    // still get their zero written.
    const long long device_blocks =
        static_cast<long long>(exec.multiprocessor_count()) * blocks_per_sm;
    const long long blocks = std::max(1LL, std::min(ceildiv(rows, tile_rows * min_rows_per_thread),
                                                    ceildiv(device_blocks, col_tiles)));
    const auto first_pass = [&](auto out, auto first_finalize) {
        const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(col_tiles));
        if (cols == 1) {
            single_column_sums_kernel<Acc>
                <<<grid, block_size, 0, stream>>>(rows, term, out, first_finalize);
        } else {
            multi_column_sums_kernel<Acc>
                <<<grid, block_size, 0, stream>>>(rows, cols, term, out, first_finalize);
        }
        check_launch(where);
    };
    if (blocks == 1) {
        first_pass(result, finalize);
        return;
    }
    StreamScratch<Acc> partials(stream, blocks * cols, where);
    first_pass(partials.get(), Identity{});
    combine_partials_kernel<<<static_cast<unsigned>(std::min(cols, max_grid_y)), block_size, 0,
                              stream>>>(blocks, cols, partials.get(), result, finalize);
    check_launch(where);
}


/// num / den, or 0 where den is 0 or the quotient is not finite.
template <typename D>
__device__ D guarded_quotient(const D& num, const D& den)
{
    if (den == D{}) return D{};
    const D q = num / den;
    if constexpr (std::is_arithmetic_v<D>) {
        return isfinite(q) ? q : D{};
    } else {
        return isfinite(q.real()) && isfinite(q.imag()) ? q : D{};
    }
}

}  // namespace loom::blas::cuda
