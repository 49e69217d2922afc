// CUDA conversions. Kernels that fill a format slot by slot give each thread one slot, so
// that a single very long row does not serialise the work; kernels that compact or sum a
// row give it to one thread (which keeps the entries in order, and sums duplicates in stored
// order without atomics), or to one warp where a Dense row is read. Prefix sums, reductions
// and the sort of an unsorted Coo are CUB's, on the executor's stream.
#include <algorithm>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/parallel.cuh"
#include "base/cuda/parallel_reduce.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "base/search.hpp"
#include "matrix/convert/kernels.hpp"
#include "matrix/convert/unified.hpp"

namespace loom::matrix::cuda {
namespace {

using namespace loom::cuda;

template <typename T>
void copy_on_device(const CudaExecutor& exec, const T* from, size_type n, T* to)
{
    if (n == 0) return;
    LOOM_CUDA_CHECK(cudaMemcpyAsync(to, from, sizeof(T) * n, cudaMemcpyDeviceToDevice,
                                    stream_of(exec)),
                    "loom::matrix conversion");
}

template <typename I>
struct Descends {
    const I* row_idxs;
    __host__ __device__ int operator()(long long k) const { return row_idxs[k] > row_idxs[k + 1]; }
};

/// Max of op(i) over i in [0, n) (n > 0), read back to the host.
template <typename T, typename Op>
T max_over(const CudaExecutor& exec, const char* where, long long n, Op op)
{
    auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), op);
    Array<T> result(exec.shared_from_this(), 1);
    run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Max(temp, bytes, in, result.data(), n, stream_of(exec));
    });
    return detail::load_element(result, 0);
}

template <typename I>
bool sorted_by_row(const CudaExecutor& exec, const I* row_idxs, size_type nnz)
{
    if (nnz < 2) return true;
    return max_over<int>(exec, "loom::matrix::to_csr", nnz - 1, Descends<I>{row_idxs}) == 0;
}

int bits_for(size_type count)
{
    int bits = 1;
    while (bits < 63 && (size_type{1} << bits) < count) ++bits;
    return bits;
}

/// Lane of the calling thread, and the warp's index in the grid and the grid's warp count.
struct WarpPosition {
    int lane;
    long long warp;
    long long warps;
};

__device__ WarpPosition warp_position()
{
    return {static_cast<int>(threadIdx.x % warp_size),
            (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp_size,
            static_cast<long long>(gridDim.x) * (blockDim.x / warp_size)};
}

unsigned warp_grid(const CudaExecutor& exec, long long warps)
{
    return loom::cuda::grid_for(exec, warps * warp_size, default_block_size, 32);
}

template <typename V, typename I>
__global__ void __launch_bounds__(default_block_size)
    dense_row_nnz_kernel(long long rows, long long cols, long long stride, const V* values,
                         I* row_nnz)
{
    const auto pos = warp_position();
    for (long long r = pos.warp; r < rows; r += pos.warps) {
        I count = 0;
        for (long long c = pos.lane; c < cols; c += warp_size) {
            count += values[r * stride + c] != V{};
        }
        count = warp_sum<warp_size>(count);
        if (pos.lane == 0) row_nnz[r] = count;
    }
}

/// One warp per row: 32 columns at a time, the non-zeros are found by a ballot and each lane
/// writes its value at the count of non-zeros in lanes before it.
template <typename V, typename I>
__global__ void __launch_bounds__(default_block_size)
    dense_to_csr_kernel(long long rows, long long cols, long long stride, const V* values,
                        const I* row_ptrs, I* out_cols, V* out_values)
{
    const auto pos = warp_position();
    const unsigned lanes_before = (1u << pos.lane) - 1;
    for (long long r = pos.warp; r < rows; r += pos.warps) {
        long long at = row_ptrs[r];
        for (long long base = 0; base < cols; base += warp_size) {
            const long long c = base + pos.lane;
            const V value = c < cols ? values[r * stride + c] : V{};
            const bool nonzero = value != V{};
            const unsigned mask = __ballot_sync(full_mask, nonzero);
            if (nonzero) {
                const long long slot = at + __popc(mask & lanes_before);
                out_cols[slot] = static_cast<I>(c);
                out_values[slot] = value;
            }
            at += __popc(mask);
        }
    }
}

}  // namespace

template <typename V, typename I>
void coo_to_csr(const CudaExecutor& exec, const Coo<V, I>& source, Csr<V, I>& result)
{
    // Entries sorted by row (stably: CUB's radix sort is), then each row pointer is the first
    // entry of its row, found by binary search; a Coo that is already sorted skips the sort.
    constexpr const char* where = "loom::matrix::to_csr";
    const long long rows = source.rows();
    const long long nnz = source.nnz();
    const I* row_idxs = source.row_idxs().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = as_device(result.values().data());
    const I* sorted_rows = row_idxs;
    Array<I> sorted_row_array;
    if (sorted_by_row(exec, row_idxs, nnz)) {
        copy_on_device(exec, source.col_idxs().const_data(), nnz, out_cols);
        copy_on_device(exec, source.values().const_data(), nnz, result.values().data());
    } else {
        using U = std::make_unsigned_t<I>;
        const auto exec_ptr = exec.shared_from_this();
        Array<I> order(exec_ptr, nnz);
        Array<I> permutation(exec_ptr, nnz);
        sorted_row_array = Array<I>(exec_ptr, nnz);
        auto order_data = order.data();
        parallel_for(exec, nnz, [=] __device__(long long k) { order_data[k] = static_cast<I>(k); },
                     where);
        // Row indices are non-negative, so sorting them as unsigned over the bits that
        // rows - 1 needs gives the same order.
        run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(
                temp, bytes, reinterpret_cast<const U*>(row_idxs),
                reinterpret_cast<U*>(sorted_row_array.data()), order.data(), permutation.data(),
                nnz, 0, bits_for(rows), stream_of(exec));
        });
        const I* perm = permutation.data();
        const I* cols = source.col_idxs().const_data();
        const auto values = as_device(source.values().const_data());
        parallel_for(exec, nnz, [=] __device__(long long k) {
            out_cols[k] = cols[perm[k]];
            out_values[k] = values[perm[k]];
        }, where);
        sorted_rows = sorted_row_array.data();
    }
    auto row_ptrs = result.row_ptrs().data();
    parallel_for(exec, rows + 1, [=] __device__(long long r) {
        row_ptrs[r] = static_cast<I>(loom::detail::lower_bound(sorted_rows, nnz, r));
    }, where);
}

template <typename V, typename I>
void csr_to_coo(const CudaExecutor& exec, const Csr<V, I>& source, Coo<V, I>& result)
{
    // One thread per entry finding its row, rather than one per row: a dense row is as fast
    // as many short ones.
    const long long rows = source.rows();
    const I* row_ptrs = source.row_ptrs().const_data();
    auto out_rows = result.row_idxs().data();
    parallel_for(exec, source.nnz(), [=] __device__(long long k) {
        out_rows[k] = static_cast<I>(row_of_entry(row_ptrs, rows, k));
    }, "loom::matrix::to_coo");
    copy_on_device(exec, source.col_idxs().const_data(), source.nnz(), result.col_idxs().data());
    copy_on_device(exec, source.values().const_data(), source.nnz(), result.values().data());
}

template <typename V, typename I>
void csr_to_ell(const CudaExecutor& exec, const Csr<V, I>& source, Ell<V, I>& result)
{
    const long long rows = source.rows();
    const long long stride = result.stride();
    const I* row_ptrs = source.row_ptrs().const_data();
    const I* cols = source.col_idxs().const_data();
    const auto values = as_device(source.values().const_data());
    auto out_cols = result.col_idxs().data();
    auto out_values = as_device(result.values().data());
    parallel_for(exec, result.slots(), [=] __device__(long long slot) {
        const long long r = slot % stride;
        format_rows::fill_slot(cols, values, format_rows::padded_row(row_ptrs, rows, r),
                               slot / stride, slot, out_cols, out_values);
    }, "loom::matrix::to_ell");
}

template <typename V, typename I>
void csr_to_sellp(const CudaExecutor& exec, const Csr<V, I>& source, Sellp<V, I>& result)
{
    const long long rows = source.rows();
    const long long slices = result.num_slices();
    const long long slice_size = result.slice_size();
    const I* row_ptrs = source.row_ptrs().const_data();
    const I* cols = source.col_idxs().const_data();
    const auto values = as_device(source.values().const_data());
    const I* sets = result.slice_sets().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = as_device(result.values().data());
    parallel_for(exec, result.slots(), [=] __device__(long long slot) {
        const long long column = slot / slice_size;
        const long long lane = slot % slice_size;
        // The slice owning this slot column: the last one starting at or before it.
        const long long s = row_of_entry(sets, slices, column);
        const long long k = column - sets[s];
        const long long r = s * slice_size + lane;
        format_rows::fill_slot(cols, values, format_rows::padded_row(row_ptrs, rows, r), k, slot,
                               out_cols, out_values);
    }, "loom::matrix::to_sellp");
}

template <typename V, typename I>
void row_nnz(const CudaExecutor& exec, const Dense<V>& source, Array<I>& row_nnz)
{
    if (source.rows() == 0) return;
    dense_row_nnz_kernel<<<warp_grid(exec, source.rows()), default_block_size, 0,
                           stream_of(exec)>>>(source.rows(), source.cols(), source.stride(),
                                              as_device(source.data()), row_nnz.data());
    check_launch("loom::matrix::to_csr");
}

template <typename V, typename I>
void fill_csr(const CudaExecutor& exec, const Dense<V>& source, Csr<V, I>& result)
{
    if (source.rows() == 0) return;
    dense_to_csr_kernel<<<warp_grid(exec, source.rows()), default_block_size, 0,
                          stream_of(exec)>>>(
        source.rows(), source.cols(), source.stride(), as_device(source.data()),
        result.row_ptrs().const_data(), result.col_idxs().data(),
        as_device(result.values().data()));
    check_launch("loom::matrix::to_csr");
}

}  // namespace loom::matrix::cuda

namespace loom::matrix {
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_CONVERT_BACKEND, cuda, unified, CudaExecutor)
}  // namespace loom::matrix
