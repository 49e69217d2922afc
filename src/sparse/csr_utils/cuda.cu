// CUDA CSR utilities.
//
// Transposition and sorting are one global radix sort: every entry gets the key
// (major << minor_bits) | minor, with (major, minor) = (column, row) to transpose and
// (row, column) to sort the rows, and CUB's stable radix sort carries the entry's index
// along. Stability keeps duplicates in their stored order. One sort over all entries
// balances any row-length distribution, and its instantiations (64-bit keys with 32- or
// 64-bit values) are shared by both.
//
// Row-wise utilities give a row to a group of `group_size` lanes: reads along a row are
// coalesced, group reductions are shuffles, and compaction (merging duplicates, dropping
// entries) places each kept entry with a ballot over the group. A duplicate run is summed by
// the lane holding its first entry, in stored order, so every backend gives the same bits.
#include <algorithm>
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/parallel.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate_storage.hpp"
#include "base/prefix_sum.hpp"
#include "base/search.hpp"
#include "sparse/csr_utils/kernels.hpp"
#include "sparse/csr_utils/unified.hpp"

namespace loom::sparse::cuda {

using namespace loom::cuda;

namespace csr_utils_kernels {

constexpr const char* where = "loom::sparse (CSR utilities)";

/// Lanes per row in the row-wise kernels: rows of a few to a few dozen entries (the common
/// case) keep most lanes busy, and a long row still advances 8 entries per step.
constexpr int group_size = 8;

/// This lane's place in its group, and the group's lanes as a warp mask.
struct RowGroup {
    int lane;
    unsigned mask;

    /// Bit i set for lane i of the group, from a warp-wide ballot.
    __device__ unsigned own_bits(unsigned ballot) const
    {
        return (ballot & mask) >> (__ffs(mask) - 1);
    }
};

template <typename F>
__global__ void __launch_bounds__(default_block_size) row_group_kernel(long long rows, F f)
{
    const long long thread = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const int lane = threadIdx.x % group_size;
    const int first_lane = threadIdx.x % warp_size - lane;
    const unsigned mask =
        group_size == warp_size ? full_mask : ((1u << group_size) - 1u) << first_lane;
    const long long step = static_cast<long long>(gridDim.x) * blockDim.x / group_size;
    for (long long r = thread / group_size; r < rows; r += step) f(r, RowGroup{lane, mask});
}

/// f(row, group) for every row, a group of lanes per row; f must be a __device__ lambda.
template <typename F>
void for_each_row(const CudaExecutor& exec, long long rows, F f)
{
    if (rows <= 0) return;
    row_group_kernel<<<loom::cuda::grid_for(exec, rows * group_size, default_block_size, 32),
                       default_block_size, 0, stream_of(exec)>>>(rows, f);
    check_launch(where);
}

/// Sum over the group (every lane gets it).
template <typename T>
__device__ T group_sum(T value, const RowGroup& group)
{
    return warp_sum<group_size>(value, group.mask);
}

template <typename D>
__device__ auto magnitude(const D& value)
{
    if constexpr (std::is_arithmetic_v<D>) {
        return value < 0 ? -value : value;
    } else {
        return thrust::abs(value);
    }
}

template <typename D, typename R, typename I>
__device__ bool is_kept(const D& value, long long row, I col, R threshold, bool keep_diagonal)
{
    return !(magnitude(value) < threshold) || (keep_diagonal && col == row);
}

/// Bits that hold every value in [0, extent), at least one.
int bits_for(size_type extent)
{
    int bits = 1;
    while (bits < 63 && (size_type{1} << bits) < extent) ++bits;
    return bits;
}

/// Whether some row starts at entry k (binary search over the row pointers).
template <typename I>
__host__ __device__ bool starts_row(const I* row_ptrs, long long rows, long long k)
{
    const long long lo = loom::detail::lower_bound(row_ptrs, rows + 1, k);
    return lo <= rows && row_ptrs[lo] == k;
}

/// 0 when entry k continues its row in increasing order, 1 when it repeats its predecessor's
/// column, 2 when it is below it. Row starts compare with nothing.
template <typename I>
struct OrderViolation {
    const I* row_ptrs;
    const I* cols;
    long long rows;

    __host__ __device__ int operator()(long long k) const
    {
        const I col = cols[k];
        const I previous = cols[k - 1];
        if (col > previous || starts_row(row_ptrs, rows, k)) return 0;
        return col < previous ? 2 : 1;
    }
};

/// Sorts A's entries by (column, row) when `by_column`, else by (row, column); returns the
/// sorted keys, and in `order` the source index of every sorted entry.
template <typename V, typename I>
Array<std::uint64_t> sort_entries(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                                  bool by_column, int& minor_bits, Array<I>& order)
{
    const auto shared_exec = exec.shared_from_this();
    const long long nnz = A.nnz();
    minor_bits = bits_for(by_column ? A.rows() : A.cols());
    const int major_bits = bits_for(by_column ? A.cols() : A.rows());
    if (minor_bits + major_bits > 64) {
        throw NotSupported(where, "a matrix of " + to_string(A.size()) +
                                      " is too large for a 64-bit (row, column) sort key");
    }
    Array<std::uint64_t> keys(shared_exec, nnz);
    Array<std::uint64_t> sorted_keys(shared_exec, nnz);
    Array<I> identity(shared_exec, nnz);
    order.resize_and_reset(nnz);
    if (nnz == 0) return sorted_keys;

    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    std::uint64_t* key = keys.data();
    const int shift = minor_bits;
    for_each_row(exec, A.rows(), [=] __device__(long long r, RowGroup group) {
        for (long long k = row_ptrs[r] + group.lane; k < row_ptrs[r + 1]; k += group_size) {
            const auto row = static_cast<std::uint64_t>(r);
            const auto col = static_cast<std::uint64_t>(cols[k]);
            key[k] = by_column ? (col << shift) | row : (row << shift) | col;
        }
    });
    I* positions = identity.data();
    parallel_for(
        exec, nnz, [=] __device__(long long k) { positions[k] = static_cast<I>(k); }, where);
    const int end_bit = minor_bits + major_bits;
    loom::cuda::run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys.data(), sorted_keys.data(),
                                               identity.data(), order.data(), nnz, 0, end_bit,
                                               stream_of(exec));
    });
    return sorted_keys;
}

}  // namespace csr_utils_kernels

using namespace csr_utils_kernels;

template <typename V, typename I>
void transpose(const CudaExecutor& exec, const matrix::Csr<V, I>& A, bool conjugate,
               matrix::Csr<V, I>& result)
{
    using D = device_type_t<V>;
    int row_bits = 0;
    Array<I> order(exec.shared_from_this(), 0);
    const auto keys = sort_entries(exec, A, true, row_bits, order);
    const std::uint64_t* sorted = keys.data();
    const long long nnz = A.nnz();
    const std::uint64_t row_mask = (std::uint64_t{1} << row_bits) - 1;

    // Result row j starts at the first key of column j or beyond.
    I* out_ptrs = result.row_ptrs().data();
    parallel_for(
        exec, A.cols() + 1,
        [=] __device__(long long j) {
            const std::uint64_t first = static_cast<std::uint64_t>(j) << row_bits;
            out_ptrs[j] = static_cast<I>(loom::detail::lower_bound(sorted, nnz, first));
        },
        where);
    const I* source = order.data();
    const D* values = as_device(A.values().data());
    I* out_cols = result.col_idxs().data();
    D* out_values = as_device(result.values().data());
    parallel_for(
        exec, nnz,
        [=] __device__(long long i) {
            out_cols[i] = static_cast<I>(sorted[i] & row_mask);
            const D value = values[source[i]];
            out_values[i] = conjugate ? loom::cuda::conj_dev(value) : value;
        },
        where);
}

template <typename V, typename I>
ColumnOrder column_order(const CudaExecutor& exec, const matrix::Csr<V, I>& A)
{
    const auto violations = thrust::make_transform_iterator(
        thrust::make_counting_iterator<long long>(1),
        OrderViolation<I>{A.row_ptrs().data(), A.col_idxs().data(), A.rows()});
    Array<int> worst(exec.shared_from_this(), 1);
    loom::cuda::run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Max(temp, bytes, violations, worst.data(), A.nnz() - 1,
                                      stream_of(exec));
    });
    switch (detail::load_element(worst, 0)) {
    case 0: return ColumnOrder::increasing;
    case 1: return ColumnOrder::nondecreasing;
    default: return ColumnOrder::unordered;
    }
}

template <typename V, typename I>
void sort_columns(const CudaExecutor& exec, matrix::Csr<V, I>& A)
{
    using D = device_type_t<V>;
    int col_bits = 0;
    Array<I> order(exec.shared_from_this(), 0);
    const auto keys = sort_entries(exec, A, false, col_bits, order);
    Array<V> sorted_values(exec.shared_from_this(), A.nnz());
    const std::uint64_t* sorted = keys.data();
    const std::uint64_t col_mask = (std::uint64_t{1} << col_bits) - 1;
    const I* source = order.data();
    const D* values = as_device(A.values().data());
    I* cols = A.col_idxs().data();
    D* out_values = as_device(sorted_values.data());
    parallel_for(
        exec, A.nnz(),
        [=] __device__(long long i) {
            cols[i] = static_cast<I>(sorted[i] & col_mask);
            out_values[i] = values[source[i]];
        },
        where);
    A.values() = std::move(sorted_values);
}

template <typename V, typename I>
void merged_row_nnz(const CudaExecutor& exec, const matrix::Csr<V, I>& sorted, Array<I>& row_nnz)
{
    const I* row_ptrs = sorted.row_ptrs().data();
    const I* cols = sorted.col_idxs().data();
    I* out = row_nnz.data();
    for_each_row(exec, sorted.rows(), [=] __device__(long long r, RowGroup group) {
        const long long begin = row_ptrs[r];
        long long count = 0;
        for (long long k = begin + group.lane; k < row_ptrs[r + 1]; k += group_size) {
            count += k == begin || cols[k] != cols[k - 1];
        }
        count = group_sum(count, group);
        if (group.lane == 0) out[r] = static_cast<I>(count);
    });
}

template <typename V, typename I>
void merge_sorted_duplicates(const CudaExecutor& exec, const matrix::Csr<V, I>& sorted,
                             matrix::Csr<V, I>& result)
{
    using D = device_type_t<V>;
    const I* row_ptrs = sorted.row_ptrs().data();
    const I* cols = sorted.col_idxs().data();
    const D* values = as_device(sorted.values().data());
    const I* out_ptrs = result.row_ptrs().data();
    I* out_cols = result.col_idxs().data();
    D* out_values = as_device(result.values().data());
    for_each_row(exec, sorted.rows(), [=] __device__(long long r, RowGroup group) {
        const long long begin = row_ptrs[r];
        const long long end = row_ptrs[r + 1];
        long long at = out_ptrs[r];
        // The chunk loop is uniform over the group, so that every lane reaches the ballot.
        for (long long base = begin; base < end; base += group_size) {
            const long long k = base + group.lane;
            const bool head = k < end && (k == begin || cols[k] != cols[k - 1]);
            const unsigned heads = group.own_bits(__ballot_sync(group.mask, head));
            if (head) {
                D sum = values[k];
                for (long long next = k + 1; next < end && cols[next] == cols[k]; ++next) {
                    sum += values[next];
                }
                const long long slot = at + __popc(heads & ((1u << group.lane) - 1));
                out_cols[slot] = cols[k];
                out_values[slot] = sum;
            }
            at += __popc(heads);
        }
    });
}

template <typename V, typename I>
void extract_diagonal(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                      matrix::Dense<V>& diagonal)
{
    using D = device_type_t<V>;
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const D* values = as_device(A.values().data());
    D* out = as_device(diagonal.data());
    const long long stride = diagonal.stride();
    for_each_row(exec, diagonal.rows(), [=] __device__(long long r, RowGroup group) {
        D sum{};
        for (long long k = row_ptrs[r] + group.lane; k < row_ptrs[r + 1]; k += group_size) {
            if (cols[k] == r) sum += values[k];
        }
        sum = group_sum(sum, group);
        if (group.lane == 0) out[r * stride] = sum;
    });
}

template <typename V, typename I>
void scale_diagonal(const CudaExecutor& exec, matrix::Csr<V, I>& A, V factor)
{
    using D = device_type_t<V>;
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    D* values = as_device(A.values().data());
    const D scale = as_device(factor);
    for_each_row(exec, A.rows(), [=] __device__(long long r, RowGroup group) {
        for (long long k = row_ptrs[r] + group.lane; k < row_ptrs[r + 1]; k += group_size) {
            if (cols[k] == r) values[k] *= scale;
        }
    });
}

template <typename V, typename I>
void scale_rows(const CudaExecutor& exec, matrix::Csr<V, I>& A, const matrix::Dense<V>& s)
{
    using D = device_type_t<V>;
    const I* row_ptrs = A.row_ptrs().data();
    D* values = as_device(A.values().data());
    const D* scale = as_device(s.data());
    const long long stride = s.stride();
    for_each_row(exec, A.rows(), [=] __device__(long long r, RowGroup group) {
        const D factor = scale[r * stride];
        for (long long k = row_ptrs[r] + group.lane; k < row_ptrs[r + 1]; k += group_size) {
            values[k] *= factor;
        }
    });
}

template <typename V, typename I>
void kept_row_nnz(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                  remove_complex_t<V> threshold, bool keep_diagonal, Array<I>& row_nnz)
{
    using D = device_type_t<V>;
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const D* values = as_device(A.values().data());
    I* out = row_nnz.data();
    for_each_row(exec, A.rows(), [=] __device__(long long r, RowGroup group) {
        long long count = 0;
        for (long long k = row_ptrs[r] + group.lane; k < row_ptrs[r + 1]; k += group_size) {
            count += is_kept(values[k], r, cols[k], threshold, keep_diagonal);
        }
        count = group_sum(count, group);
        if (group.lane == 0) out[r] = static_cast<I>(count);
    });
}

template <typename V, typename I>
void drop_small_entries(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                        remove_complex_t<V> threshold, bool keep_diagonal,
                        matrix::Csr<V, I>& result)
{
    using D = device_type_t<V>;
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const D* values = as_device(A.values().data());
    const I* out_ptrs = result.row_ptrs().data();
    I* out_cols = result.col_idxs().data();
    D* out_values = as_device(result.values().data());
    for_each_row(exec, A.rows(), [=] __device__(long long r, RowGroup group) {
        const long long end = row_ptrs[r + 1];
        long long at = out_ptrs[r];
        for (long long base = row_ptrs[r]; base < end; base += group_size) {
            const long long k = base + group.lane;
            const bool kept = k < end && is_kept(values[k], r, cols[k], threshold, keep_diagonal);
            const unsigned kept_lanes = group.own_bits(__ballot_sync(group.mask, kept));
            if (kept) {
                const long long slot = at + __popc(kept_lanes & ((1u << group.lane) - 1));
                out_cols[slot] = cols[k];
                out_values[slot] = values[k];
            }
            at += __popc(kept_lanes);
        }
    });
}

#define LOOM_INSTANTIATE_CSR_UTILS_CUDA(V, I) LOOM_INSTANTIATE_CSR_UTILS_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_UTILS_CUDA)
#define LOOM_INSTANTIATE_CSR_TRANSPOSE_CUDA(V, I) \
    LOOM_INSTANTIATE_CSR_TRANSPOSE_KERNEL(CudaExecutor, V, I)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR_TRANSPOSE_CUDA)

}  // namespace loom::sparse::cuda

namespace loom::sparse {
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_CSR_SCALE_COLUMNS, unified, CudaExecutor)
}
