// CUDA SpAdd.
//
// Symbolic: each row of C is the union of a row of A and a row of B. A team builds it in a
// buffer of (column, origin) pairs, origin = the entry's index in A's row, or nnz(A's row)
// plus its index in B's row:
//  * both rows sorted (checked by the team): A's row followed by B's reversed is a bitonic
//    sequence, which the last log2(padded length) stages of a bitonic network merge
//    (loom::sort::team_merge_bitonic_pairs);
//  * otherwise: the concatenation sorted by (column, origin) with the whole bitonic network
//    (loom::sort::team_sort_pairs).
//  Either way equal columns keep A's entries first, then B's, each in row order.
// Runs of equal columns then become one entry of C each: a team scan over the run heads
// gives every entry the offset of its run within C's row, which is what the numeric phase
// needs, and the heads' columns are written into a scratch layout with room for both rows
// (row r at a_ptrs[r] + b_ptrs[r]), compacted once the row counts are scanned.
// Teams: a warp per row with up to `warp_capacity` entries, in shared memory; a block per
// longer row, in shared memory up to `block_capacity` entries and in global scratch beyond.
//
// Numeric: a group of G lanes per row of C (G sized by C's mean row length) zeroes the row
// in shared memory, adds alpha a and beta b into it through the stored offsets (shared
// atomics, which only collide for duplicates and for columns that A and B share), and
// writes the row out once, coalesced. Bytes per call: A's and B's values and offsets, C's
// values written, three row-pointer arrays; no column index is read. Rows longer than the
// shared buffer are zeroed and added into in global memory.
#include <algorithm>
#include <utility>
#include <cstdint>
#include <limits>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "loom/sort/bitonic.hpp"
#include "sparse/spadd/kernels.hpp"

namespace loom::sparse::cuda {

using namespace loom::cuda;

namespace spadd_kernels {

constexpr const char* where = "loom::sparse::spadd";

constexpr int symbolic_block = 256;
constexpr int warps_per_block = symbolic_block / warp_size;
/// Entries (A's row plus B's row) that a warp unites in shared memory.
constexpr int warp_capacity = 256;
/// Entries that a block unites in shared memory; longer rows use global scratch.
constexpr int block_capacity = 2048;
/// Global scratch for the longest rows, shared by the blocks that work on them at once.
constexpr size_type scratch_budget_bytes = size_type{256} << 20;

constexpr int numeric_block = 256;

/// The rows of A and B that form row r of C.
struct RowSpan {
    long long a_begin;
    long long a_length;
    long long b_begin;
    long long b_length;
    __device__ long long size() const { return a_length + b_length; }
};

template <typename I>
struct SymbolicArgs {
    long long rows;
    const I* a_ptrs;
    const I* a_cols;
    const I* b_ptrs;
    const I* b_cols;
    I* a_positions;
    I* b_positions;
    I* row_nnz;      ///< C's row lengths (the prefix sum makes them row pointers)
    I* unique_cols;  ///< C's columns, row r at a_ptrs[r] + b_ptrs[r]

    __device__ RowSpan span(long long r) const
    {
        return {a_ptrs[r], a_ptrs[r + 1] - a_ptrs[r], b_ptrs[r], b_ptrs[r + 1] - b_ptrs[r]};
    }
};

/// A warp as a team: every lane takes part in every call.
struct WarpTeam {
    __device__ int rank() const { return threadIdx.x % warp_size; }
    __device__ int size() const { return warp_size; }
    __device__ void sync() const { __syncwarp(); }
    __device__ bool any(bool p) const { return __any_sync(full_mask, p); }
    // The team interface of loom::sort.
    template <typename F>
    __device__ void team_vector_for(int n, const F& f) const
    {
        for (int i = rank(); i < n; i += size()) f(i);
    }
    __device__ void team_barrier() const { sync(); }
    /// Inclusive sum of `value` over the ranks up to this one; `total` over all ranks.
    __device__ int inclusive_sum(int value, int& total) const
    {
        value = loom::cuda::warp_inclusive_scan<warp_size>(value, full_mask);
        total = __shfl_sync(full_mask, value, warp_size - 1);
        return value;
    }
};

/// A block as a team, with a shared word per warp for its scans.
struct BlockTeam {
    int* partials;

    __device__ int rank() const { return threadIdx.x; }
    __device__ int size() const { return blockDim.x; }
    __device__ void sync() const { __syncthreads(); }
    __device__ bool any(bool p) const { return __syncthreads_or(p); }
    // The team interface of loom::sort.
    template <typename F>
    __device__ void team_vector_for(int n, const F& f) const
    {
        for (int i = rank(); i < n; i += size()) f(i);
    }
    __device__ void team_barrier() const { sync(); }
    __device__ int inclusive_sum(int value, int& total) const
    {
        const int warps = blockDim.x / warp_size;
        value = loom::cuda::block_inclusive_scan(value, partials, warps);
        total = partials[warps - 1];
        __syncthreads();  // the partials are reused by the next call
        return value;
    }
};

__device__ inline int next_power_of_two(int n)
{
    return n <= 1 ? 1 : 1 << (32 - __clz(n - 1));
}

/// Equal columns in origin order: A's entries first, then B's, each in row order.
using ByColumnThenOrigin = loom::sort::KeyThenValue<>;

/// Row r of C from rows r of A and B, in buffers of next_power_of_two(entries) pairs. Every
/// member of the team calls it for the same row.
template <typename Team, typename I>
__device__ void unite_row(const Team& team, const SymbolicArgs<I>& args, long long r, I* keys,
                          int* origins)
{
    const auto span = args.span(r);
    const int n = static_cast<int>(span.size());
    const int a_length = static_cast<int>(span.a_length);
    const int b_length = static_cast<int>(span.b_length);
    const I* a = args.a_cols + span.a_begin;
    const I* b = args.b_cols + span.b_begin;
    bool unsorted = false;
    for (int i = team.rank(); i < n; i += team.size()) {
        if (i < a_length) {
            unsorted |= i > 0 && a[i] < a[i - 1];
        } else {
            const int j = i - a_length;
            unsorted |= j > 0 && b[j] < b[j - 1];
        }
    }
    const int padded = next_power_of_two(n);
    constexpr I after_every_column = std::numeric_limits<I>::max();
    if (!team.any(unsorted)) {
        // A ascending, padding, B reversed: a bitonic sequence of (column, origin) pairs, which
        // log2(padded) merge stages sort (A first among equal columns: its origins are lower).
        for (int i = team.rank(); i < padded && n > 0; i += team.size()) {
            if (i < a_length) {
                keys[i] = a[i];
                origins[i] = i;
            } else if (i >= padded - b_length) {
                const int j = padded - 1 - i;
                keys[i] = b[j];
                origins[i] = a_length + j;
            } else {
                keys[i] = after_every_column;
                origins[i] = i;
            }
        }
        team.sync();
        loom::sort::team_merge_bitonic_pairs(team, keys, origins, padded, ByColumnThenOrigin{});
    } else {
        for (int i = team.rank(); i < n; i += team.size()) {
            keys[i] = i < a_length ? a[i] : b[i - a_length];
            origins[i] = i;
        }
        team.sync();
        loom::sort::team_sort_pairs(team, keys, origins, n, ByColumnThenOrigin{});
    }
    team.sync();

    I* out = args.unique_cols + (span.a_begin + span.b_begin);
    int carry = 0;
    for (int base = 0; base < n; base += team.size()) {
        const int i = base + team.rank();
        const bool head = i < n && (i == 0 || keys[i] != keys[i - 1]);
        int total = 0;
        const int slot = carry + team.inclusive_sum(head, total) - 1;
        if (i < n) {
            const int origin = origins[i];
            if (origin < a_length) {
                args.a_positions[span.a_begin + origin] = static_cast<I>(slot);
            } else {
                args.b_positions[span.b_begin + origin - a_length] = static_cast<I>(slot);
            }
            if (head) out[slot] = keys[i];
        }
        carry += total;
    }
    if (team.rank() == 0) args.row_nnz[r] = static_cast<I>(carry);
    team.sync();  // the buffers hold the next row next
}

/// Lists the rows too long for a warp (long_rows, counters[0] of them) and the longest
/// (counters[1]); one atomic per warp.
template <typename I>
__global__ void __launch_bounds__(symbolic_block)
    classify_rows_kernel(SymbolicArgs<I> args, I* long_rows, unsigned long long* counters)
{
    const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
    const int lane = threadIdx.x % warp_size;
    // Bounds uniform over the warp, for the ballot.
    for (long long base = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x - lane;
         base < args.rows; base += step) {
        const long long r = base + lane;
        const long long n = r < args.rows ? args.span(r).size() : 0;
        const bool is_long = n > warp_capacity;
        const long long slot = loom::cuda::warp_append(is_long, counters);
        if (is_long) {
            long_rows[slot] = static_cast<I>(r);
            atomicMax(counters + 1, static_cast<unsigned long long>(n));
        }
    }
}

/// A warp per row that fits warp_capacity (the others are left to the block kernel).
template <typename I>
__global__ void __launch_bounds__(symbolic_block) warp_rows_kernel(SymbolicArgs<I> args)
{
    __shared__ I keys[warps_per_block][warp_capacity];
    __shared__ int origins[warps_per_block][warp_capacity];
    const int warp_in_block = threadIdx.x / warp_size;
    const long long warps = static_cast<long long>(gridDim.x) * warps_per_block;
    for (long long r = blockIdx.x * static_cast<long long>(warps_per_block) + warp_in_block;
         r < args.rows; r += warps) {
        if (args.span(r).size() > warp_capacity) continue;
        unite_row(WarpTeam{}, args, r, keys[warp_in_block], origins[warp_in_block]);
    }
}

/// A block per listed long row: in shared memory up to block_capacity entries, or (when
/// given scratch) in global memory for the rows beyond.
template <typename I>
__global__ void __launch_bounds__(symbolic_block)
    block_rows_kernel(SymbolicArgs<I> args, const I* long_rows, long long count, I* scratch_keys,
                      int* scratch_origins, long long scratch_stride)
{
    __shared__ I keys[block_capacity];
    __shared__ int origins[block_capacity];
    __shared__ int partials[warps_per_block];
    const BlockTeam team{partials};
    const bool global = scratch_keys != nullptr;
    for (long long i = blockIdx.x; i < count; i += gridDim.x) {
        const long long r = long_rows[i];
        const bool fits = args.span(r).size() <= block_capacity;
        if (fits && !global) {
            unite_row(team, args, r, keys, origins);
        } else if (!fits && global) {
            unite_row(team, args, r, scratch_keys + blockIdx.x * scratch_stride,
                      scratch_origins + blockIdx.x * scratch_stride);
        }
    }
}

/// C's columns from the scratch layout; a warp per row.
template <typename I>
__global__ void __launch_bounds__(symbolic_block)
    compact_columns_kernel(long long rows, const I* a_ptrs, const I* b_ptrs, const I* c_ptrs,
                           const I* unique_cols, I* c_cols)
{
    const int lane = threadIdx.x % warp_size;
    const long long warps = static_cast<long long>(gridDim.x) * warps_per_block;
    for (long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp_size;
         r < rows; r += warps) {
        const I* from = unique_cols + (static_cast<long long>(a_ptrs[r]) + b_ptrs[r]);
        const long long begin = c_ptrs[r];
        const long long length = c_ptrs[r + 1] - begin;
        for (long long i = lane; i < length; i += warp_size) c_cols[begin + i] = from[i];
    }
}

// ------------------------------------------------------------------ numeric

template <typename D, typename I>
struct NumericArgs {
    long long rows;
    D alpha;
    D beta;
    const I* a_ptrs;
    const D* a_values;
    const I* a_positions;
    const I* b_ptrs;
    const D* b_values;
    const I* b_positions;
    const I* c_ptrs;
    D* c_values;
};

/// Adds scale * values[k] at row[positions[k]] for the entries k of one row, G lanes apart.
template <int G, typename D, typename I>
__device__ __forceinline__ void scatter_row(D* row, long long begin, long long end,
                                            const D* values, const I* positions, D scale,
                                            int lane)
{
    for (long long k = begin + lane; k < end; k += G) {
        atomic_add(row + positions[k], mul(scale, values[k]));
    }
}

/// A group of G lanes per row of C; see the file comment.
template <int G, typename D, typename I>
__global__ void __launch_bounds__(numeric_block) numeric_kernel(NumericArgs<D, I> args)
{
    constexpr int capacity = 8 * G;
    constexpr int groups_per_warp = warp_size / G;
    constexpr int groups_per_block = numeric_block / G;
    __shared__ __align__(16) unsigned char raw[groups_per_block * capacity * sizeof(D)];
    const int lane = threadIdx.x % G;
    const int group_in_warp = threadIdx.x % warp_size / G;
    D* buffer = reinterpret_cast<D*>(raw) + threadIdx.x / G * capacity;
    const long long thread = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const long long warp = thread / warp_size;
    const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / warp_size;
    const long long step = warps * groups_per_warp;
    // The row loop is uniform over the warp, so that every lane reaches the __syncwarp()s.
    for (long long first = warp * groups_per_warp; first < args.rows; first += step) {
        const long long r = first + group_in_warp;
        const bool valid = r < args.rows;
        const long long c_begin = valid ? args.c_ptrs[r] : 0;
        const long long c_length = valid ? args.c_ptrs[r + 1] - c_begin : 0;
        const bool fits = c_length <= capacity;
        D* row = args.c_values + c_begin;
        D* target = fits ? buffer : row;
        for (long long i = lane; i < c_length; i += G) target[i] = D{};
        __syncwarp();
        if (valid) {
            const long long a_begin = args.a_ptrs[r];
            const long long a_end = args.a_ptrs[r + 1];
            const long long b_begin = args.b_ptrs[r];
            const long long b_end = args.b_ptrs[r + 1];
            if (fits) {
                scatter_row<G>(buffer, a_begin, a_end, args.a_values, args.a_positions,
                               args.alpha, lane);
                scatter_row<G>(buffer, b_begin, b_end, args.b_values, args.b_positions, args.beta,
                               lane);
            } else {
                scatter_row<G>(row, a_begin, a_end, args.a_values, args.a_positions, args.alpha,
                               lane);
                scatter_row<G>(row, b_begin, b_end, args.b_values, args.b_positions, args.beta,
                               lane);
            }
        }
        __syncwarp();
        if (fits) {
            for (long long i = lane; i < c_length; i += G) row[i] = buffer[i];
        }
        __syncwarp();  // the buffer holds the next row next
    }
}


template <int G, typename D, typename I>
void launch_numeric(const CudaExecutor& exec, const NumericArgs<D, I>& args)
{
    constexpr int groups_per_block = numeric_block / G;
    numeric_kernel<G><<<grid_for(exec, args.rows, groups_per_block, 16), numeric_block, 0,
                        stream_of(exec)>>>(args);
    check_launch(where);
}

}  // namespace spadd_kernels

using namespace spadd_kernels;

template <typename V, typename I>
void spadd_symbolic(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                    const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C, Array<I>& a_positions,
                    Array<I>& b_positions)
{
    const auto shared_exec = exec.shared_from_this();
    const long long rows = A.rows();
    const auto stream = stream_of(exec);
    Array<I> row_ptrs(shared_exec, rows + 1);
    a_positions = Array<I>(shared_exec, A.nnz());
    b_positions = Array<I>(shared_exec, B.nnz());
    Array<I> unique_cols(shared_exec, A.nnz() + B.nnz());
    const SymbolicArgs<I> args{rows,
                               A.row_ptrs().data(),
                               A.col_idxs().data(),
                               B.row_ptrs().data(),
                               B.col_idxs().data(),
                               a_positions.data(),
                               b_positions.data(),
                               row_ptrs.data(),
                               unique_cols.data()};
    if (rows > 0) {
        Array<I> long_rows(shared_exec, rows);
        Array<unsigned long long> counters(shared_exec, std::vector<unsigned long long>{0, 0});
        classify_rows_kernel<<<grid_for(exec, rows, symbolic_block, 8), symbolic_block, 0,
                               stream>>>(args, long_rows.data(), counters.data());
        check_launch(where);
        warp_rows_kernel<<<grid_for(exec, rows, warps_per_block, 8), symbolic_block, 0, stream>>>(
            args);
        check_launch(where);
        const auto counts = counters.to_host();
        const auto long_count = static_cast<long long>(counts[0]);
        const auto longest = static_cast<long long>(counts[1]);
        if (long_count > 0) {
            block_rows_kernel<<<grid_for(exec, long_count, 1, 8), symbolic_block, 0, stream>>>(
                args, long_rows.data(), long_count, static_cast<I*>(nullptr),
                static_cast<int*>(nullptr), 0);
            check_launch(where);
        }
        if (longest > block_capacity) {
            if (longest > (1LL << 30)) {
                throw NotSupported(where, "a row of A and B together holding " +
                                              std::to_string(longest) +
                                              " entries (at most 2^30 are supported)");
            }
            long long stride = 1;
            while (stride < longest) stride *= 2;
            const long long per_block = stride * static_cast<long long>(sizeof(I) + sizeof(int));
            const long long blocks =
                std::clamp(scratch_budget_bytes / per_block, 1LL, long_count);
            Array<I> scratch_keys(shared_exec, blocks * stride);
            Array<int> scratch_origins(shared_exec, blocks * stride);
            block_rows_kernel<<<static_cast<unsigned>(blocks), symbolic_block, 0, stream>>>(
                args, long_rows.data(), long_count, scratch_keys.data(), scratch_origins.data(),
                stride);
            check_launch(where);
        }
    }
    loom::cuda::exclusive_prefix_sum(exec, row_ptrs.data(), rows + 1);
    matrix::Csr<V, I> result(shared_exec, A.size(), loom::detail::load_element(row_ptrs, rows));
    if (rows > 0 && result.nnz() > 0) {
        compact_columns_kernel<<<grid_for(exec, rows, warps_per_block, 8), symbolic_block, 0,
                                 stream>>>(rows, args.a_ptrs, args.b_ptrs, row_ptrs.data(),
                                           unique_cols.data(), result.col_idxs().data());
        check_launch(where);
    }
    result.row_ptrs() = std::move(row_ptrs);
    C = std::move(result);
}

template <typename V, typename I>
void spadd_numeric(const CudaExecutor& exec, V alpha, const matrix::Csr<V, I>& A, V beta,
                   const matrix::Csr<V, I>& B, const Array<I>& a_positions,
                   const Array<I>& b_positions, matrix::Csr<V, I>& C)
{
    using D = device_type_t<V>;
    if (C.rows() == 0) return;
    const NumericArgs<D, I> args{C.rows(),
                                 as_device(alpha),
                                 as_device(beta),
                                 A.row_ptrs().data(),
                                 as_device(A.values().data()),
                                 a_positions.data(),
                                 B.row_ptrs().data(),
                                 as_device(B.values().data()),
                                 b_positions.data(),
                                 std::as_const(C).row_ptrs().data(),
                                 as_device(C.values().data())};
    // Short rows (stencil sums) leave most of a warp idle; longer ones want all its lanes.
    const double mean_length = static_cast<double>(C.nnz()) / static_cast<double>(C.rows());
    if (mean_length <= 24) {
        launch_numeric<8>(exec, args);
    } else {
        launch_numeric<32>(exec, args);
    }
}

#define LOOM_INSTANTIATE_SPADD_CUDA(V, I) LOOM_INSTANTIATE_SPADD_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPADD_CUDA)

}  // namespace loom::sparse::cuda
