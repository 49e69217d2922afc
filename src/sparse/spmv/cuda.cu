// CUDA SpMV (design, bytes moved and measured bandwidth: CUDA_NOTES.md).
//
// CSR, op(A) = A or conj(A), four kernels:
//  * stream: a block per run of consecutive rows streams their entries through shared memory
//    in fixed chunks (coalesced loads all in flight, then L lanes per row sum from shared
//    memory); the fastest for regular rows (94% of the copy bandwidth on 7-point Poisson).
//  * row_vector: a group of G lanes (a power of two sized to the mean row length) per row,
//    reduced with warp shuffles, each group on 2 rows at once. For short rows (G <= 8) the
//    warps persist and are software-pipelined: the next rows' entries load while this row
//    block's x values are gathered.
//  * load_balanced: the merge path of row ends and nonzeros is cut into equal tiles, one per
//    warp. A warp stages its tile's products in shared memory from coalesced loads, each lane
//    walks 7 merge items, and a segmented warp scan joins rows split between lanes. Rows cut
//    by tile ends are finished by a fix-up that adds the tiles' carries in tile order (a
//    block per row spanning many tiles), so results are deterministic. The partition is
//    cached on the matrix (Csr::plans()).
//  * binned: rows grouped by length once (cached in the plan), all bins in one launch: a
//    group of 1..16 lanes per short row, a warp per row up to 2048 entries, longer rows cut
//    into segments of a block each, their partial sums added in order by a second pass.
//  `automatic` picks binned for small irregular matrices, load_balanced for the larger ones
//  and for long rows, stream otherwise (row statistics cached too).
//
// Transposed products (a group per row, or the merge-path tiles when load_balanced) and
// every COO product scatter into y with atomicAdd after y = beta y: their last bits depend on
// timing. ELL and SELL-P use a thread per row (coalesced over the column-major slots) and
// skip padding slots without reading x.
//
// A multi-vector x (k > 1 columns) is one launch for all columns, A read once: CSR goes to
// SpMM (sparse/spmm/cuda.cu); COO, ELL and SELL-P give each entry (row) a group of lanes
// along the columns. k == 1 is the hot path.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/row_binning.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate_storage.hpp"
#include "sparse/spmm/kernels.hpp"
#include "sparse/spmv/cuda_column.cuh"
#include "sparse/spmv/cuda_plan.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using namespace loom::cuda;

constexpr const char* spmv_where = "loom::sparse::spmv";
constexpr int block_size = 256;

bool conjugates(Mode mode) { return mode == Mode::conjugate || mode == Mode::conj_transpose; }
bool transposes(Mode mode) { return mode == Mode::transpose || mode == Mode::conj_transpose; }

// ------------------------------------------------------------------ device arithmetic

template <bool Conj, typename D>
__device__ __forceinline__ D op(const D& a)
{
    if constexpr (Conj) {
        return loom::cuda::conj_dev(a);
    } else {
        return a;
    }
}

/// Matrix entries, read exactly once: marked evict-first so that they do not push x out of L2.
template <typename T>
__device__ __forceinline__ T load_streaming(const T* p)
{
    return loom::cuda::load_by(p, [](const auto* q) { return __ldcs(q); });
}

/// A value another block of the same launch wrote (after a __threadfence): read from L2, not
/// from a possibly stale L1 line.
template <typename T>
__device__ __forceinline__ T load_coherent(const T* p)
{
    return loom::cuda::load_by(p, [](const auto* q) { return __ldcg(q); });
}

/// Sum over lanes [first, lane] of `value`, where `first` is the latest lane at or before this
/// one with `head` set (lane 0 when there is none). Every lane of the warp must call it.
template <typename D>
__device__ __forceinline__ D segmented_inclusive_scan(D value, bool head)
{
    const int lane = threadIdx.x % warp_size;
#pragma unroll
    for (int offset = 1; offset < warp_size; offset *= 2) {
        const D up = shuffle_up(value, offset);
        const bool up_head = __shfl_up_sync(full_mask, head, offset);
        if (lane >= offset) {
            if (!head) value += up;
            head = head || up_head;
        }
    }
    return value;
}

// ------------------------------------------------------------------ operands

/// Every column of x and y at once (k > 1), for the multi-column COO, ELL and SELL-P kernels.
template <typename D>
struct Columns {
    const D* x;
    long long x_stride;
    D* y;
    long long y_stride;
    long long k;
    D alpha;
    D beta;
    bool beta_is_zero;

    __device__ D x_at(long long i, long long j) const { return load_cached(x + i * x_stride + j); }

    /// y(i, j) = alpha * sum + beta * y(i, j); y(i, j) is not read when beta is zero.
    __device__ void store(long long i, long long j, const D& sum) const
    {
        D* out = y + i * y_stride + j;
        *out = beta_is_zero ? mul(alpha, sum) : mul(alpha, sum) + mul(beta, *out);
    }

    /// y(i, j) += alpha * value, racing with other threads.
    __device__ void scatter(long long i, long long j, const D& value) const
    {
        atomic_add(y + i * y_stride + j, mul(alpha, value));
    }
};

template <typename V>
Columns<device_type_t<V>> columns(V alpha, const matrix::Dense<V>& x, V beta,
                                  matrix::Dense<V>& y)
{
    return {as_device(x.data()), x.stride(), as_device(y.data()), y.stride(), x.cols(),
            as_device(alpha),    as_device(beta), beta == V{0}};
}

/// Lanes per row (or entry) of the multi-column kernels: a power of two covering k, at most a
/// warp; the lanes own columns j = lane, lane + lanes, ... and read the entries together.
inline int lanes_for(size_type k)
{
    int lanes = 2;
    while (lanes < warp_size && lanes < k) lanes *= 2;
    return lanes;
}

template <typename D, typename I>
struct CsrView {
    long long rows;
    long long nnz;
    const I* row_ptrs;
    const I* cols;
    const D* values;
};

template <typename V, typename I>
CsrView<device_type_t<V>, I> view(const matrix::Csr<V, I>& A)
{
    return {A.rows(), A.nnz(), A.row_ptrs().data(), A.col_idxs().data(),
            as_device(A.values().data())};
}

/// Calls body.template operator()<conj>() with the mode's conjugation as a constant.
template <typename Body>
void with_conjugation(Mode mode, Body&& body)
{
    if (conjugates(mode)) {
        body.template operator()<true>();
    } else {
        body.template operator()<false>();
    }
}

// ------------------------------------------------------------------ y = beta * y

template <typename D>
__global__ void __launch_bounds__(block_size)
    scale_kernel(long long rows, long long cols, D* y, long long stride, D beta, bool beta_is_zero)
{
    const long long n = rows * cols;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        D& e = y[(i / cols) * stride + i % cols];
        e = beta_is_zero ? D{} : mul(beta, e);
    }
}

/// y = beta * y before products are scattered into it; zeros are written (y not read) when
/// beta is zero.
template <typename V>
void prepare_scatter(const CudaExecutor& exec, V beta, matrix::Dense<V>& y)
{
    if (beta == V{1} || y.rows() == 0 || y.cols() == 0) return;
    scale_kernel<<<grid_for(y.rows() * y.cols(), block_size), block_size, 0, stream_of(exec)>>>(
        y.rows(), y.cols(), as_device(y.data()), y.stride(), as_device(beta), beta == V{0});
    check_launch(spmv_where);
}

// ------------------------------------------------------------------ CSR row_vector

/// Rows each group of G lanes handles at once, their loads issued together, so that short
/// rows still keep enough bytes in flight per warp. Measured on H100 (7-point Poisson, G 8):
/// 1 row 182 us, 2 rows 168 us, 4 rows 172 us (more registers, fewer resident warps).
constexpr int rows_per_group = 2;

/// Group sizes up to this use the software-pipelined kernel. Longer rows spend their time in
/// the gathers of the group's own entries and do better with more warps in flight (27-point
/// Poisson, G 32: 145 us plain, 158 us pipelined).
constexpr int max_pipelined_group = 8;

/// The rows a warp handles at once (R per group of G lanes) and, for this lane, the first
/// entry of each: with a group sized to the mean row length most rows take one pass.
template <int G, int R, typename D, typename I>
struct RowBlock {
    static constexpr int groups = warp_size / G;
    I begin[R];
    I end[R];
    D a[R];
    I c[R];

    /// Consecutive groups take consecutive rows: row pointers and y are accessed coalesced.
    __device__ __forceinline__ static long long row(long long first, int r, int group)
    {
        return first + r * groups + group;
    }

    /// Where this thread works when every warp takes blocks of groups * R rows over the grid:
    /// its lane in its group, its group in the warp, its warp's first row and the rows from
    /// one of the warp's blocks to its next.
    struct Place {
        int lane;
        int group;
        long long first;
        long long step;
    };
    __device__ __forceinline__ static Place place()
    {
        constexpr int warp_rows = groups * R;
        const long long warp =
            (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp_size;
        return {static_cast<int>(threadIdx.x % G), static_cast<int>(threadIdx.x % warp_size) / G,
                warp * warp_rows,
                static_cast<long long>(gridDim.x) * blockDim.x / warp_size * warp_rows};
    }

    __device__ __forceinline__ void load_bounds(const CsrView<D, I>& A, long long first, int group)
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long i = row(first, r, group);
            const bool valid = i < A.rows;
            begin[r] = valid ? load_cached(A.row_ptrs + i) : I{};
            end[r] = valid ? load_cached(A.row_ptrs + i + 1) : I{};
        }
    }

    __device__ __forceinline__ void load_entries(const CsrView<D, I>& A, int lane)
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long nz = static_cast<long long>(begin[r]) + lane;
            a[r] = D{};
            c[r] = I{};
            if (nz < end[r]) {
                a[r] = load_streaming(A.values + nz);
                c[r] = load_streaming(A.cols + nz);
            }
        }
    }

    /// y for the block's rows, from the loaded first entries, the rest of long rows, and the
    /// group's shuffle reduction.
    template <bool Conj>
    __device__ __forceinline__ void finish(const CsrView<D, I>& A, const Column<D>& v,
                                           long long first, int group, int lane) const
    {
        D sum[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            sum[r] = static_cast<long long>(begin[r]) + lane < end[r] ? mul(op<Conj>(a[r]), v.x_at(c[r]))
                                                                      : D{};
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            for (long long nz = static_cast<long long>(begin[r]) + lane + G; nz < end[r]; nz += G) {
                sum[r] += mul(op<Conj>(load_streaming(A.values + nz)),
                              v.x_at(load_streaming(A.cols + nz)));
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            sum[r] = warp_sum<G>(sum[r]);
            const long long i = row(first, r, group);
            if (lane == 0 && i < A.rows) v.store(i, sum[r]);
        }
    }
};

/// A warp per block of rows, the grid covering all rows.
template <int G, int R, bool Conj, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    csr_row_vector_kernel(CsrView<D, I> A, Column<D> v)
{
    using Block = RowBlock<G, R, D, I>;
    const auto [lane, group, start, step] = Block::place();
    // The loop bounds are uniform over the warp, so that every lane reaches the shuffles.
    for (long long first = start; first < A.rows; first += step) {
        Block block;
        block.load_bounds(A, first, group);
        block.load_entries(A, lane);
        block.template finish<Conj>(A, v, first, group, lane);
    }
}

/// Persistent warps stepping over blocks of rows, software-pipelined: while a block's x
/// values are gathered and its sums reduced, the next block's entries and the row bounds of
/// the one after are already loading, so the warp keeps DRAM busy through its gathers.
template <int G, int R, bool Conj, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    csr_row_vector_pipelined_kernel(CsrView<D, I> A, Column<D> v)
{
    using Block = RowBlock<G, R, D, I>;
    const auto [lane, group, start, step] = Block::place();
    long long first = start;
    if (first >= A.rows) return;  // the whole warp: its bounds below are uniform
    Block current;
    current.load_bounds(A, first, group);
    current.load_entries(A, lane);
    Block next;
    next.load_bounds(A, first + step, group);
    for (; first < A.rows; first += step) {
        next.load_entries(A, lane);
        Block after;
        after.load_bounds(A, first + 2 * step, group);
        current.template finish<Conj>(A, v, first, group, lane);
        current = next;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            next.begin[r] = after.begin[r];
            next.end[r] = after.end[r];
        }
    }
}

/// Blocks of a kernel that fit on the device at once (cached per kernel).
template <auto Kernel>
long long resident_blocks(const CudaExecutor& exec, int threads, std::size_t shared_bytes = 0)
{
    static const int per_sm = [&] {
        int blocks = 0;
        loom::cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, threads,
                                                                        shared_bytes),
                          "cudaOccupancyMaxActiveBlocksPerMultiprocessor", spmv_where);
        return std::max(blocks, 1);
    }();
    return static_cast<long long>(per_sm) * exec.multiprocessor_count();
}

/// Calls body.template operator()<G>() with G the runtime group size as a constant.
template <typename Body>
void with_group_size(int group_size, Body&& body)
{
    switch (group_size) {
    case 1: body.template operator()<1>(); break;
    case 2: body.template operator()<2>(); break;
    case 4: body.template operator()<4>(); break;
    case 8: body.template operator()<8>(); break;
    case 16: body.template operator()<16>(); break;
    default: body.template operator()<32>(); break;
    }
}

/// The smallest power of two at least the mean row length, at most a warp.
int group_size_for(size_type rows, size_type nnz)
{
    const double mean = rows == 0 ? 0.0 : static_cast<double>(nnz) / static_cast<double>(rows);
    int size = 1;
    while (size < warp_size && size < mean) size *= 2;
    return size;
}

template <int G, bool Conj, typename V, typename I>
void launch_row_vector(const CudaExecutor& exec, V alpha, const matrix::Csr<V, I>& A,
                       const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    constexpr int R = rows_per_group;
    constexpr bool pipelined = G <= max_pipelined_group;
    constexpr auto kernel = pipelined ? csr_row_vector_pipelined_kernel<G, R, Conj, D, I>
                                      : csr_row_vector_kernel<G, R, Conj, D, I>;
    const long long warps = ceildiv(A.rows(), warp_size / G * R);
    long long blocks = grid_for(warps * warp_size, block_size);
    // The pipelined kernel's warps persist: no more of them than fit on the device at once.
    if constexpr (pipelined) blocks = std::min(blocks, resident_blocks<kernel>(exec, block_size));
    kernel<<<static_cast<unsigned>(blocks), block_size, 0, stream_of(exec)>>>(
        view(A), column(alpha, x, beta, y, 0));
    check_launch(spmv_where);
}

template <typename V, typename I>
void csr_row_vector(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                    const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    with_conjugation(mode, [&]<bool Conj>() {
        with_group_size(group_size_for(A.rows(), A.nnz()),
                        [&]<int G>() { launch_row_vector<G, Conj>(exec, alpha, A, x, beta, y); });
    });
}

// ------------------------------------------------------------------ CSR load_balanced

/// Merge items (row ends + nonzeros) per lane of a tile. Odd, so that lanes walking their
/// items through shared memory side by side hit distinct banks.
constexpr int merge_items_per_lane = 7;
constexpr int merge_tile_items = warp_size * merge_items_per_lane;
constexpr int merge_warps_per_block = 4;
constexpr int merge_block_size = merge_warps_per_block * warp_size;

/// Where diagonal d (row ends consumed + nonzeros consumed = d) crosses the merge path of
/// row_ends[0, rows) and the nonzero indices first_nz + [0, nnz): the row ends consumed.
/// A row end is consumed before nonzero j when it is <= j (the row holds no more entries).
template <typename I>
__device__ long long merge_path_rows(long long d, const I* row_ends, long long rows,
                                     long long nnz, long long first_nz)
{
    long long lo = d > nnz ? d - nnz : 0;
    long long hi = d < rows ? d : rows;
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (row_ends[mid] <= first_nz + d - mid - 1) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

template <typename I>
__global__ void __launch_bounds__(block_size)
    merge_path_partition_kernel(const I* row_ptrs, long long rows, long long nnz,
                                long long tile_items, long long tiles, I* tile_rows)
{
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t > tiles) return;
    const long long d = std::min(t * tile_items, rows + nnz);
    tile_rows[t] = static_cast<I>(merge_path_rows(d, row_ptrs + 1, rows, nnz, 0));
}

/// One tile of the merge path, as a warp sees it: rows [first_row, first_row + rows) end in
/// it, and it holds nonzeros [first_nz, first_nz + nnz).
struct MergeTile {
    long long first_row;
    long long first_nz;
    int rows;
    int nnz;
    int items;
};

template <int PerLane, typename I>
__device__ __forceinline__ MergeTile merge_tile(const I* tile_rows, long long tile,
                                                long long total_items)
{
    constexpr int items = warp_size * PerLane;
    const long long first_item = tile * items;
    const long long first_row = load_cached(tile_rows + tile);
    const int rows = static_cast<int>(load_cached(tile_rows + tile + 1) - first_row);
    const int n_items = static_cast<int>(std::min<long long>(items, total_items - first_item));
    return {first_row, first_item - first_row, rows, n_items - rows, n_items};
}

/// From a tile staged in shared memory (products of its nonzeros, ends of its rows): y for
/// the rows whose ends lie in the tile, and in carries[tile] the partial sum of the row its
/// end cuts. Each lane walks its own PerLane merge items; a segmented warp scan joins the
/// rows split between lanes.
template <int PerLane, typename D, typename I>
__device__ __forceinline__ void finish_merge_tile(const MergeTile& t, const D* products,
                                                  const I* row_ends, const Column<D>& v,
                                                  D* carries, long long tile, int lane)
{
    const int begin = std::min(lane * PerLane, t.items);
    const int stop = std::min(begin + PerLane, t.items);
    int i = static_cast<int>(merge_path_rows(begin, row_ends, t.rows, t.nnz, t.first_nz));
    int j = begin - i;
    D partial{};
    D first_end_sum{};
    int first_end = -1;  // the first row this lane ends (tile-local), -1: none
    for (int item = begin; item < stop; ++item) {
        if (i < t.rows && row_ends[i] <= t.first_nz + j) {
            if (first_end < 0) {
                first_end = i;
                first_end_sum = partial;
            } else {
                v.store(t.first_row + i, partial);
            }
            partial = D{};
            ++i;
        } else {
            partial += products[j];
            ++j;
        }
    }
    // The first row a lane ends may have begun in earlier lanes: add what they carried.
    const D carry = segmented_inclusive_scan(partial, first_end >= 0);
    const D carry_in = shuffle_up(carry, 1);
    if (first_end >= 0) {
        v.store(t.first_row + first_end, first_end_sum + (lane > 0 ? carry_in : D{}));
    }
    if (lane == warp_size - 1) carries[tile] = carry;
}

/// A tile's entries in a lane's registers (entry s * 32 + lane of the tile in slot s):
/// coalesced loads, all issued before any x value is gathered.
template <int PerLane, typename D, typename I>
struct TileEntries {
    D a[PerLane];
    I c[PerLane];

    __device__ __forceinline__ void load(const CsrView<D, I>& A, const MergeTile& t, int lane)
    {
#pragma unroll
        for (int s = 0; s < PerLane; ++s) {
            const int i = s * warp_size + lane;
            a[s] = D{};
            c[s] = I{};
            if (i < t.nnz) {
                a[s] = load_streaming(A.values + t.first_nz + i);
                c[s] = load_streaming(A.cols + t.first_nz + i);
            }
        }
    }
};

/// y for the rows ending in tile t and its carry, from its entries in registers. A tile
/// inside one row (no row end: the long rows of power-law matrices, half of their tiles)
/// sums its products in registers and a shuffle tree, without the shared-memory walk and
/// scan (H200, power-law 2M x 16: 284.9 -> 275.9 us).
template <bool Conj, int PerLane, typename D, typename I>
__device__ __forceinline__ void merge_tile_product(const CsrView<D, I>& A, const Column<D>& v,
                                                   const MergeTile& t,
                                                   const TileEntries<PerLane, D, I>& e,
                                                   D* products, I* row_ends, D* carries,
                                                   long long tile, int lane)
{
    if (t.rows == 0) {  // uniform over the warp
        D sum{};
#pragma unroll
        for (int s = 0; s < PerLane; ++s) {
            if (s * warp_size + lane < t.nnz) sum += mul(op<Conj>(e.a[s]), v.x_at(e.c[s]));
        }
        sum = warp_sum<warp_size>(sum);
        if (lane == 0) carries[tile] = sum;
        return;
    }
#pragma unroll
    for (int s = 0; s < PerLane; ++s) {
        const int i = s * warp_size + lane;
        if (i < t.rows) row_ends[i] = load_cached(A.row_ptrs + t.first_row + 1 + i);
    }
#pragma unroll
    for (int s = 0; s < PerLane; ++s) {
        const int i = s * warp_size + lane;
        if (i < t.nnz) products[i] = mul(op<Conj>(e.a[s]), v.x_at(e.c[s]));
    }
    __syncwarp();
    finish_merge_tile<PerLane>(t, products, row_ends, v, carries, tile, lane);
    __syncwarp();  // the next tile reuses this warp's shared memory
}

/// Shared memory of a merge-path block: per warp, its tile's products and row ends.
template <typename D, typename I>
struct MergeStorage {
    static constexpr int items = merge_tile_items;
    alignas(16) unsigned char bytes[merge_warps_per_block * items * (sizeof(D) + sizeof(I))];

    __device__ D* products(int warp)
    {
        return reinterpret_cast<D*>(bytes) + warp * items;
    }
    __device__ I* row_ends(int warp)
    {
        return reinterpret_cast<I*>(bytes + merge_warps_per_block * items * sizeof(D)) +
               warp * items;
    }
};

/// One warp per tile of merge items, the grid covering all tiles.
template <bool Conj, typename D, typename I>
__global__ void __launch_bounds__(merge_block_size)
    csr_merge_path_kernel(CsrView<D, I> A, Column<D> v, const I* tile_rows, long long tiles,
                          D* carries)
{
    constexpr int per_lane = merge_items_per_lane;
    __shared__ MergeStorage<D, I> storage;
    const int warp = threadIdx.x / warp_size;
    const int lane = threadIdx.x % warp_size;
    D* products = storage.products(warp);
    I* row_ends = storage.row_ends(warp);
    for (long long tile = blockIdx.x * static_cast<long long>(merge_warps_per_block) + warp;
         tile < tiles; tile += static_cast<long long>(gridDim.x) * merge_warps_per_block) {
        const auto t = merge_tile<per_lane>(tile_rows, tile, A.rows + A.nnz);
        TileEntries<per_lane, D, I> e;
        e.load(A, t, lane);
        merge_tile_product<Conj>(A, v, t, e, products, row_ends, carries, tile, lane);
    }
}

/// y(r) += alpha * (sum of the carries of the tiles whose end cuts row r), in tile order,
/// for runs of at most a warp's worth of tiles: one thread per tile, the thread's warp
/// summing runs of several tiles. Longer runs are sum_runs_kernel's.
template <typename D, typename I>
__global__ void __launch_bounds__(block_size)
    merge_path_fixup_kernel(const I* tile_rows, long long tiles, long long rows, const D* carries,
                            Column<D> v)
{
    const int lane = threadIdx.x % warp_size;
    for (long long base = blockIdx.x * static_cast<long long>(blockDim.x); base < tiles;
         base += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long tile = base + threadIdx.x;
        long long row = rows;
        bool starts = false;  // first tile of a run carrying into `row`
        bool single = false;  // ... and the only one
        bool long_run = false;
        if (tile < tiles) {
            row = tile_rows[tile + 1];
            starts = row < rows && (tile == 0 || tile_rows[tile] != row);
            single = starts && (tile + 1 == tiles || tile_rows[tile + 2] != row);
            long_run = starts && !single && tile + warp_size < tiles &&
                       tile_rows[tile + warp_size + 1] == row;
        }
        if (single) v.add(row, carries[tile]);
        unsigned runs = __ballot_sync(full_mask, starts && !single && !long_run);
        while (runs != 0) {
            const int leader = __ffs(runs) - 1;
            runs &= runs - 1;
            const long long first = __shfl_sync(full_mask, tile, leader);
            const long long run_row = __shfl_sync(full_mask, row, leader);
            const long long t = first + lane;
            D sum = t < tiles && tile_rows[t + 1] == run_row ? carries[t] : D{};
            sum = warp_sum<warp_size>(sum);
            if (lane == leader) v.add(run_row, sum);
        }
    }
}

/// The sum of `value` over a block of Threads threads in a fixed order (each warp's
/// shuffle tree, then the warps in turn), valid in thread 0. Every thread must call it.
template <int Threads, typename D>
__device__ __forceinline__ D block_sum_in_order(D value)
{
    constexpr int threads = Threads;
    value = warp_sum<warp_size>(value);
    __shared__ alignas(16) unsigned char storage[threads / warp_size * sizeof(D)];
    D* warp_sums = reinterpret_cast<D*>(storage);
    if (threadIdx.x % warp_size == 0) warp_sums[threadIdx.x / warp_size] = value;
    __syncthreads();
    D total = warp_sums[0];
    if (threadIdx.x == 0) {
        for (int w = 1; w < threads / warp_size; ++w) total += warp_sums[w];
    }
    return total;
}

/// One block per run of partial sums belonging to one row (load_balanced's long runs, the
/// row's earlier tiles already stored y), summed in a fixed order: y(row) += alpha * sum.
template <typename D>
__global__ void __launch_bounds__(block_size)
    sum_runs_kernel(const MergeRun* runs, const D* partials, Column<D> v)
{
    const MergeRun run = runs[blockIdx.x];
    D sum{};
#pragma unroll 4
    for (long long t = run.first_tile + threadIdx.x; t < run.end_tile; t += block_size) {
        sum += partials[t];
    }
    const D total = block_sum_in_order<block_size>(sum);
    if (threadIdx.x == 0) v.add(run.row, total);
}

/// Runs of more than a warp's worth of tiles cutting one row, found on the host (once per
/// matrix, with its partition).
template <typename I>
std::vector<MergeRun> long_runs_of(const std::vector<I>& tile_rows, long long rows)
{
    std::vector<MergeRun> runs;
    const long long tiles = static_cast<long long>(tile_rows.size()) - 1;
    for (long long first = 0; first < tiles;) {
        const long long row = tile_rows[first + 1];
        long long end = first + 1;
        while (end < tiles && tile_rows[end + 1] == row) ++end;
        if (row < rows && end - first > warp_size) runs.push_back({first, end, row});
        first = end;
    }
    return runs;
}

/// A's merge-path partition, built on first use and cached in its plan with the long runs
/// of its fix-up.
template <typename V, typename I>
std::shared_ptr<CsrPlan<V, I>> merge_path_plan(const CudaExecutor& exec,
                                               const matrix::Csr<V, I>& A)
{
    constexpr int tile_items = merge_tile_items;
    auto plan = plan_of(A);
    if (plan->tile_items == tile_items) return plan;
    const long long tiles = ceildiv(A.rows() + A.nnz(), tile_items);
    Array<I> tile_rows(A.executor(), tiles + 1);
    Array<V> carries(A.executor(), tiles);
    merge_path_partition_kernel<<<grid_for(tiles + 1, block_size), block_size, 0,
                                  stream_of(exec)>>>(A.row_ptrs().data(), A.rows(), A.nnz(),
                                                     tile_items, tiles, tile_rows.data());
    check_launch(spmv_where);
    const auto runs = long_runs_of(tile_rows.to_host(), A.rows());
    plan->long_runs = Array<MergeRun>(A.executor(), runs);
    plan->tile_rows = std::move(tile_rows);
    plan->carries = std::move(carries);
    plan->tile_items = tile_items;
    return plan;
}

template <typename V, typename I>
void csr_merge_path(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                    const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    const auto plan = merge_path_plan(exec, A);
    const long long tiles = plan->carries.size();
    const I* tile_rows = plan->tile_rows.data();
    D* carries = as_device(plan->carries.data());
    const auto csr = view(A);
    const auto v = column(alpha, x, beta, y, 0);
    with_conjugation(mode, [&]<bool Conj>() {
        csr_merge_path_kernel<Conj, D, I>
            <<<grid_for(tiles, merge_warps_per_block), merge_block_size, 0, stream_of(exec)>>>(
                csr, v, tile_rows, tiles, carries);
        check_launch(spmv_where);
    });
    merge_path_fixup_kernel<D, I><<<grid_for(tiles, block_size), block_size, 0, stream_of(exec)>>>(
        tile_rows, tiles, A.rows(), carries, v);
    check_launch(spmv_where);
    if (!plan->long_runs.empty()) {
        sum_runs_kernel<D>
            <<<grid_for(plan->long_runs.size(), 1), block_size, 0, stream_of(exec)>>>(
                plan->long_runs.data(), carries, v);
        check_launch(spmv_where);
    }
}

// ------------------------------------------------------------------ CSR binned

/// binned's classes of rows (CsrPlan::bins of them): bin b <= binned_last_short_bin holds the
/// rows of 2^(b-1) < length <= 2^b entries (bin 0: at most one), each given 2^b lanes, a
/// group taking binned_short_rows rows at once; bin binned_warp_bin the rows up to
/// binned_long_row entries, a warp each; bin binned_long_bin the longer rows, cut into
/// segments of binned_segment entries, a block each; the last block to finish a row's
/// segments adds their partial sums in order (same launch).
constexpr int binned_last_short_bin = 5;
constexpr int binned_warp_bin = 6;
constexpr int binned_long_bin = 7;
/// Entries each thread of a segment's block loads before it gathers any x value.
constexpr int binned_segment_loads = 8;
constexpr long long binned_segment = block_size * binned_segment_loads;
/// Entries each lane of the warp bin loads before it gathers: every row of the bin in one
/// pass, 8 gathers in flight per lane.
constexpr int binned_warp_loads = 8;
/// Longer rows get blocks: a warp alone on one walks it in dependent passes (mycielskian12's
/// 1535-entry rows took 12 passes of 128 before session 14), where a block loads up to 2048
/// entries at once.
constexpr long long binned_long_row = warp_size * binned_warp_loads;

constexpr int binned_bins = CsrPlan<double, int>::bins;
static_assert(binned_long_bin < binned_bins);

/// Lanes per row of a bin (0: the long rows' segments, a block each).
constexpr int lanes_of_bin(int bin)
{
    return bin <= binned_last_short_bin ? 1 << bin : bin == binned_warp_bin ? warp_size : 0;
}

/// The bin of row r (a __device__ functor for loom::cuda::bin_rows).
template <typename I>
struct RowLengthBin {
    const I* row_ptrs;

    __device__ int operator()(long long r) const
    {
        const long long length = row_ptrs[r + 1] - row_ptrs[r];
        if (length > binned_long_row) return binned_long_bin;
        if (length > warp_size) return binned_warp_bin;
        int bin = 0;
        while ((1ll << bin) < length) ++bin;
        return bin;
    }
};

/// Where each bin's blocks start in the one launch that runs every bin, and its rows.
struct BinnedGrid {
    long long first_block[binned_bins + 1];
    long long first_row[binned_bins + 1];
};

/// The rows in bin order with their entry ranges, laid out side by side so that a warp's
/// consecutive rows read them coalesced (the rows themselves are scattered over A).
template <typename I>
struct BinnedRows {
    const I* rows;
    const I* begins;
    const I* ends;
};

/// Rows each group of a short bin (at most G entries a row, so one entry per lane) takes at
/// once. One: more groups in flight beat more loads per group. H200, session 14, 8 rows per
/// group (all their loads issued before the first gather) against 1: rmat:16:16 17.4 vs
/// 11.3 us, rmat:18:16 53.4 vs 36.6, graph500:17:16 44.9 vs 31.3, orani678 6.6 vs 5.0,
/// tomography 6.7 vs 4.7, bp_1600 6.3 vs 3.8 (8 rows: 48 registers and 8x fewer groups).
constexpr int binned_short_rows = 1;

/// Groups of G lanes in a short bin (G >= the bin's longest row): group g of the block takes
/// the listed rows block_first + r * groups + g, r < R (consecutive groups, consecutive
/// list entries: coalesced list reads and mostly coalesced y stores).
template <int G, int R, bool Conj, typename D, typename I>
__device__ __forceinline__ void binned_short_rows_of(const CsrView<D, I>& A, const Column<D>& v,
                                                     const BinnedRows<I>& list, long long first,
                                                     long long count, long long block)
{
    constexpr int groups = block_size / G;
    const int lane = threadIdx.x % G;
    const long long base = block * groups * R + threadIdx.x / G;
    RowBlock<G, R, D, I> rows;  // the listed rows' bounds, then their entries
    I row_of[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const long long k = base + r * groups;
        rows.begin[r] = k < count ? load_cached(list.begins + first + k) : I{};
        rows.end[r] = k < count ? load_cached(list.ends + first + k) : I{};
        row_of[r] = k < count && lane == 0 ? load_cached(list.rows + first + k) : I{};
    }
    rows.load_entries(A, lane);
    D sum[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        sum[r] = static_cast<long long>(rows.begin[r]) + lane < rows.end[r]
                     ? mul(op<Conj>(rows.a[r]), v.x_at(rows.c[r]))
                     : D{};
    }
#pragma unroll
    for (int r = 0; r < R; ++r) sum[r] = warp_sum<G>(sum[r]);
    // y of all R rows loaded before the first store: the compiler keeps a load of y after an
    // earlier store to y, so storing row after row would serialize R read-modify-writes.
    D old[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        old[r] = lane == 0 && base + r * groups < count ? v.previous(row_of[r]) : D{};
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        if (lane == 0 && base + r * groups < count) v.store_over(row_of[r], sum[r], old[r]);
    }
}

/// A group of G lanes per listed row k in [first, first + count) of the bin order (`block` is
/// the block's index among its bin's): each lane loads Loads entries before it gathers their
/// x values, the group reduces with shuffles. Groups past the bin take no row but reach the
/// shuffles with the others.
template <int G, int Loads, bool Conj, typename D, typename I>
__device__ __forceinline__ void binned_rows(const CsrView<D, I>& A, const Column<D>& v,
                                            const BinnedRows<I>& list, long long first,
                                            long long count, long long block)
{
    const long long group = (block * block_size + threadIdx.x) / G;
    const int lane = threadIdx.x % G;
    const bool valid = group < count;
    const long long k = first + group;
    const long long begin = valid ? load_cached(list.begins + k) : 0;
    const long long end = valid ? load_cached(list.ends + k) : 0;
    D sum{};
    for (long long base = begin + lane; base < end; base += G * Loads) {
        D a[Loads];
        I c[Loads];
#pragma unroll
        for (int u = 0; u < Loads; ++u) {
            const long long nz = base + u * G;
            a[u] = D{};
            c[u] = I{};
            if (nz < end) {
                a[u] = load_streaming(A.values + nz);
                c[u] = load_streaming(A.cols + nz);
            }
        }
#pragma unroll
        for (int u = 0; u < Loads; ++u) {
            if (base + u * G < end) sum += mul(op<Conj>(a[u]), v.x_at(c[u]));
        }
    }
    sum = warp_sum<G>(sum);
    if (valid && lane == 0) v.store(load_cached(list.rows + k), sum);
}

/// One segment of a long row, a block of Threads threads: all its loads issued before any
/// gather (as stream does), the block's sum in a fixed order. A row of one segment is stored
/// at once; otherwise the sum goes to segment_sums[s], and the block that finishes the row's
/// run last (counted in arrivals[run]) adds the run's sums in segment order and stores y:
/// deterministic, in the same launch (binned used a second one, sum_runs_kernel, before
/// session 14). Used by binned's long bin and by stream's split-off long rows.
template <int Threads, int Loads, bool Conj, typename D, typename I>
__device__ __forceinline__ void segment_sum(const CsrView<D, I>& A, const Column<D>& v,
                                            const RowSegment* segments, long long s,
                                            const MergeRun* runs, D* segment_sums,
                                            unsigned* arrivals)
{
    const RowSegment segment = segments[s];
    D a[Loads];
    I c[Loads];
#pragma unroll
    for (int k = 0; k < Loads; ++k) {
        const long long nz = segment.begin + k * Threads + threadIdx.x;
        a[k] = D{};
        c[k] = I{};
        if (nz < segment.end) {
            a[k] = load_streaming(A.values + nz);
            c[k] = load_streaming(A.cols + nz);
        }
    }
    D sum{};
#pragma unroll
    for (int k = 0; k < Loads; ++k) {
        if (segment.begin + k * Threads + threadIdx.x < segment.end) {
            sum += mul(op<Conj>(a[k]), v.x_at(c[k]));
        }
    }
    const D total = block_sum_in_order<Threads>(sum);
    const MergeRun run = runs[segment.run];
    if (run.end_tile - run.first_tile == 1) {
        if (threadIdx.x == 0) v.store(run.row, total);
        return;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        segment_sums[s] = total;
        __threadfence();  // the sum is visible before the arrival is counted
        const unsigned before = atomicAdd(arrivals + segment.run, 1u);
        last = before + 1 == static_cast<unsigned>(run.end_tile - run.first_tile);
    }
    __syncthreads();
    if (!last) return;  // uniform over the block
    __threadfence();
    D row_sum{};
    for (long long t = run.first_tile + threadIdx.x; t < run.end_tile; t += Threads) {
        row_sum += load_coherent(segment_sums + t);
    }
    const D row_total = block_sum_in_order<Threads>(row_sum);
    if (threadIdx.x == 0) {
        v.store(run.row, row_total);
        arrivals[segment.run] = 0;  // ready for the next call
    }
}

/// Every bin in one launch (no launch gaps between small bins): a block finds its bin from
/// the grid table, a branch uniform over the block. Each row is summed in a fixed order
/// (long rows: segments, then their sums in order): deterministic.
template <bool Conj, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    csr_binned_kernel(CsrView<D, I> A, Column<D> v, BinnedRows<I> list, BinnedGrid grid,
                      const RowSegment* segments, const MergeRun* runs, D* segment_sums,
                      unsigned* arrivals)
{
    // The bins in reverse: the long rows' segment blocks (the most work each) are scheduled
    // first and the short rows fill in behind them, instead of making the launch's tail.
    const long long index = static_cast<long long>(gridDim.x) - 1 - blockIdx.x;
    int bin = 0;
    while (index >= grid.first_block[bin + 1]) ++bin;
    const long long block = index - grid.first_block[bin];
    const long long first = grid.first_row[bin];
    const long long count = grid.first_row[bin + 1] - first;
    constexpr int R = binned_short_rows;
    switch (bin) {
    case 0: binned_short_rows_of<1, R, Conj>(A, v, list, first, count, block); break;
    case 1: binned_short_rows_of<2, R, Conj>(A, v, list, first, count, block); break;
    case 2: binned_short_rows_of<4, R, Conj>(A, v, list, first, count, block); break;
    case 3: binned_short_rows_of<8, R, Conj>(A, v, list, first, count, block); break;
    case 4: binned_short_rows_of<16, R, Conj>(A, v, list, first, count, block); break;
    case 5: binned_short_rows_of<32, R, Conj>(A, v, list, first, count, block); break;
    case binned_warp_bin:
        binned_rows<warp_size, binned_warp_loads, Conj>(A, v, list, first, count, block);
        break;
    default:
        segment_sum<block_size, binned_segment_loads, Conj>(A, v, segments, block, runs,
                                                            segment_sums, arrivals);
        break;
    }
}

/// begins[k], ends[k]: the entry range of rows[k].
template <typename I>
__global__ void __launch_bounds__(block_size)
    row_bounds_kernel(const I* row_ptrs, const I* rows, long long count, I* begins, I* ends)
{
    const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (k >= count) return;
    const long long row = rows[k];
    begins[k] = row_ptrs[row];
    ends[k] = row_ptrs[row + 1];
}

/// Elements [first, first + count) of a device array, on the host.
template <typename T>
std::vector<T> slice_to_host(const CudaExecutor& exec, const Array<T>& array, long long first,
                             long long count)
{
    std::vector<T> host(static_cast<std::size_t>(count));
    if (count == 0) return host;
    const auto stream = stream_of(exec);
    LOOM_CUDA_CHECK(cudaMemcpyAsync(host.data(), array.data() + first, count * sizeof(T),
                                    cudaMemcpyDeviceToHost, stream),
                    spmv_where);
    LOOM_CUDA_CHECK(cudaStreamSynchronize(stream), spmv_where);
    return host;
}

/// Rows (with their entry ranges) cut into segments of `length` entries, on A's executor.
template <typename V, typename I>
RowSegments<V> cut_into_segments(const matrix::Csr<V, I>& A, const std::vector<I>& rows,
                                  const std::vector<I>& begins, const std::vector<I>& ends,
                                  long long length)
{
    std::vector<RowSegment> segments;
    std::vector<MergeRun> runs;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto first_segment = static_cast<long long>(segments.size());
        for (long long b = begins[k]; b < ends[k]; b += length) {
            segments.push_back({b, std::min<long long>(b + length, ends[k]),
                                static_cast<long long>(k)});
        }
        runs.push_back({first_segment, static_cast<long long>(segments.size()), rows[k]});
    }
    const auto exec = A.executor();
    return {Array<RowSegment>(exec, segments),
            Array<V>(exec, static_cast<size_type>(segments.size())), Array<MergeRun>(exec, runs),
            Array<unsigned>(exec, std::vector<unsigned>(runs.size(), 0u))};
}

/// The long bin's rows cut into segments, and per row the run of its segments.
template <typename V, typename I>
void segment_long_rows(const CudaExecutor& exec, const matrix::Csr<V, I>& A, CsrPlan<V, I>& plan)
{
    const long long first = plan.bin_offsets[binned_long_bin];
    const long long count = plan.bin_offsets[binned_long_bin + 1] - first;
    plan.binned_segments = cut_into_segments(
        A, slice_to_host(exec, plan.binned_rows, first, count),
        slice_to_host(exec, plan.binned_begins, first, count),
        slice_to_host(exec, plan.binned_ends, first, count), binned_segment);
}

/// A's rows binned by length with their entry ranges, and its long rows' segments, built on
/// first use and cached in its plan (a classification pass, a radix sort, a gather of the
/// row bounds; the stream is synchronized twice).
template <typename V, typename I>
std::shared_ptr<CsrPlan<V, I>> binned_plan(const CudaExecutor& exec, const matrix::Csr<V, I>& A)
{
    auto plan = plan_of(A);
    if (plan->has_bins) return plan;
    auto bins = loom::cuda::bin_rows<I, binned_bins>(
        exec, A.rows(), RowLengthBin<I>{A.row_ptrs().data()}, nullptr, spmv_where);
    Array<I> begins(A.executor(), A.rows());
    Array<I> ends(A.executor(), A.rows());
    row_bounds_kernel<<<grid_for(A.rows(), block_size), block_size, 0, stream_of(exec)>>>(
        A.row_ptrs().data(), bins.rows.data(), A.rows(), begins.data(), ends.data());
    check_launch(spmv_where);
    plan->bin_offsets = bins.offsets;
    plan->binned_rows = std::move(bins.rows);
    plan->binned_begins = std::move(begins);
    plan->binned_ends = std::move(ends);
    segment_long_rows(exec, A, *plan);
    plan->has_bins = true;
    return plan;
}

template <typename V, typename I>
void csr_binned(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    constexpr int bins = binned_bins;
    const auto plan = binned_plan(exec, A);
    BinnedGrid grid{};
    long long blocks = 0;
    for (int b = 0; b < bins; ++b) {
        grid.first_block[b] = blocks;
        grid.first_row[b] = plan->bin_offsets[b];
        const long long count = plan->bin_offsets[b + 1] - plan->bin_offsets[b];
        const long long rows_per_group = b <= binned_last_short_bin ? binned_short_rows : 1;
        blocks += b == binned_long_bin
                      ? plan->binned_segments.segments.size()
                      : ceildiv(count * lanes_of_bin(b), block_size * rows_per_group);
    }
    grid.first_block[bins] = blocks;
    grid.first_row[bins] = plan->bin_offsets[bins];
    const auto csr = view(A);
    const auto v = column(alpha, x, beta, y, 0);
    auto& long_rows = plan->binned_segments;
    const BinnedRows<I> list{plan->binned_rows.data(), plan->binned_begins.data(),
                             plan->binned_ends.data()};
    with_conjugation(mode, [&]<bool Conj>() {
        csr_binned_kernel<Conj, D, I>
            <<<static_cast<unsigned>(blocks), block_size, 0, stream_of(exec)>>>(
                csr, v, list, grid, long_rows.segments.data(), long_rows.runs.data(),
                as_device(long_rows.sums.data()), long_rows.arrivals.data());
        check_launch(spmv_where);
    });
}

// ------------------------------------------------------------------ CSR stream

/// Small blocks, all resident at once (16 per SM): measured on H200 against 256 threads with
/// chunks of 2048 (7-point 160^3: 116 vs 157 us; 512 threads or 4096-entry chunks were slower).
constexpr int stream_block_size = 128;
constexpr int stream_min_blocks = 16;
/// The split kernel's long-row bookkeeping needs more than the 32 registers of 16 blocks
/// (ptxas: 124 bytes of spill stores per thread; at 12 blocks, 40 registers: 32 bytes, once
/// per thread outside the chunk loop).
constexpr int stream_split_min_blocks = 12;
/// Products one block stages in shared memory at a time; the chunk / block size entries of a
/// thread are all loaded before any is used, so each thread keeps that many gathers in flight.
constexpr int stream_chunk = 1024;
constexpr int stream_loads_per_thread = stream_chunk / stream_block_size;

/// stream's rows longer than `long_row`, summed by blocks of their own (`segments`, the
/// first `segment_blocks` blocks of the launch) and skipped by the row blocks.
template <typename D>
struct StreamLongRows {
    long long segment_blocks;
    long long long_row;
    const RowSegment* segments;
    const MergeRun* runs;
    D* sums;
    unsigned* arrivals;
};

/// A block per stream_block_size / L consecutive rows. The block streams its rows' entries in
/// chunks of stream_chunk: coalesced loads of values and columns (independent of the row
/// bounds, so all of them are in flight at once), the products op(a) * x(col) staged in
/// shared memory, then L lanes per row sum their row's part of the chunk. Each row is summed
/// in a fixed order: deterministic.
/// Split: rows longer than long.long_row (whose L lanes would sum thousands of products
/// while the block's other threads wait, and whose chunks one block would walk alone) are
/// left out of their row block's stream, which skips their entries, and summed by segment
/// blocks before the row blocks (segment_sum). Without it (regular rows) the kernel is the
/// one measured on the stencils, unchanged.
template <int L, bool Conj, bool Split, typename D, typename I>
__global__ void __launch_bounds__(stream_block_size,
                                  Split ? stream_split_min_blocks : stream_min_blocks)
    csr_stream_kernel(CsrView<D, I> A, Column<D> v, StreamLongRows<D> long_rows)
{
    constexpr int rows_per_block = stream_block_size / L;
    long long row_block = blockIdx.x;
    if constexpr (Split) {
        // Segment blocks first (the most work each), so they do not make the launch's tail.
        if (blockIdx.x < long_rows.segment_blocks) {  // uniform over the block
            segment_sum<stream_block_size, stream_loads_per_thread, Conj>(
                A, v, long_rows.segments, blockIdx.x, long_rows.runs, long_rows.sums,
                long_rows.arrivals);
            return;
        }
        row_block -= long_rows.segment_blocks;
    }
    __shared__ D products[stream_chunk];
    const long long first_row = row_block * rows_per_block;
    const long long last_row = min(first_row + rows_per_block, A.rows);
    const long long block_begin = load_cached(A.row_ptrs + first_row);
    long long block_end = load_cached(A.row_ptrs + last_row);
    const long long row = first_row + threadIdx.x / L;
    const int lane = threadIdx.x % L;
    bool owns_row = row < last_row;
    long long row_begin = owns_row ? load_cached(A.row_ptrs + row) : block_end;
    long long row_end = owns_row ? load_cached(A.row_ptrs + row + 1) : block_end;
    // Split: the block's long rows in row order (their first entry and length), found by a
    // ballot per warp; entries are then numbered with the long rows' left out ("live").
    constexpr int max_skips = Split ? rows_per_block : 1;
    __shared__ long long skip_begin[max_skips];
    __shared__ long long skip_length[max_skips];
    __shared__ unsigned long_masks[stream_block_size / warp_size];
    int skips = 0;
    if constexpr (Split) {
        const long long candidate = first_row + threadIdx.x;
        long long begin = 0, length = 0;
        if (threadIdx.x < rows_per_block && candidate < last_row) {
            begin = load_cached(A.row_ptrs + candidate);
            length = load_cached(A.row_ptrs + candidate + 1) - begin;
        }
        const bool is_long = length > long_rows.long_row;
        const unsigned mask = __ballot_sync(full_mask, is_long);
        const int warp = threadIdx.x / warp_size;
        if (threadIdx.x % warp_size == 0) long_masks[warp] = mask;
        __syncthreads();
        int before = 0;
        for (int w = 0; w < stream_block_size / warp_size; ++w) {
            const int count = __popc(long_masks[w]);
            if (w < warp) before += count;
            skips += count;
        }
        if (is_long) {
            const int rank = before + __popc(mask & ((1u << (threadIdx.x % warp_size)) - 1));
            skip_begin[rank] = begin;
            skip_length[rank] = length;
        }
        __syncthreads();
        // This row's range and the block's end in live numbering; long rows are empty here
        // (an empty row at a long row's first entry precedes it: not shifted by it).
        const bool long_row = row_end - row_begin > long_rows.long_row;
        long long shift = 0;
        for (int k = 0; k < skips; ++k) {
            if (skip_begin[k] < row_begin) shift += skip_length[k];
            block_end -= skip_length[k];
        }
        row_begin -= shift;
        row_end = long_row ? row_begin : row_end - shift;
        owns_row = owns_row && !long_row;
    }
    D sum{};
    for (long long chunk = block_begin; chunk < block_end; chunk += stream_chunk) {
        const long long count = min(static_cast<long long>(stream_chunk), block_end - chunk);
        D a[stream_loads_per_thread];
        I c[stream_loads_per_thread];
#pragma unroll
        for (int k = 0; k < stream_loads_per_thread; ++k) {
            const int e = k * stream_block_size + threadIdx.x;
            a[k] = D{};
            c[k] = I{};
            if (e < count) {
                long long nz = chunk + e;
                if constexpr (Split) {
                    for (int s = 0; s < skips && nz >= skip_begin[s]; ++s) nz += skip_length[s];
                }
                a[k] = load_streaming(A.values + nz);
                c[k] = load_streaming(A.cols + nz);
            }
        }
#pragma unroll
        for (int k = 0; k < stream_loads_per_thread; ++k) {
            const int e = k * stream_block_size + threadIdx.x;
            if (e < count) products[e] = mul(op<Conj>(a[k]), v.x_at(c[k]));
        }
        __syncthreads();
        const long long begin = max(row_begin, chunk);
        const long long end = min(row_end, chunk + count);
        for (long long e = begin + lane; e < end; e += L) sum += products[e - chunk];
        __syncthreads();  // the next chunk reuses the shared memory
    }
    sum = warp_sum<L>(sum);
    if (lane == 0 && owns_row) v.store(row, sum);
}

/// Lanes per row: the smallest power of two with which a block's rows fill at most 90% of a
/// chunk at the mean row length (so most blocks take one chunk), at most a warp.
int stream_lanes_for(size_type rows, size_type nnz)
{
    const double mean = rows == 0 ? 0.0 : static_cast<double>(nnz) / static_cast<double>(rows);
    int lanes = 1;
    while (lanes < warp_size && stream_block_size / lanes * mean > 0.9 * stream_chunk) lanes *= 2;
    return lanes;
}

/// Rows longer than this are split off stream's row blocks: each of the row's L lanes then
/// sums at most 16 of its products per chunk. H200, session 14, 8 / 16 / 32 x L, us:
/// mycielskian12 6.1 / 6.7 / 9.8, orani678 5.6 / 6.9 / 7.7, tomography 4.8 / 5.9 / 10.1,
/// SiH4 5.4 / 5.5 / 6.5, bp_1600 8.4 / 5.4 / 4.7, west0989 4.8 / 3.6 / 3.6, rmat:16:16
/// 21.0 / 17.4 / 21.5, rmat:18:16 59.9 / 53.6 / 51.0, graph500:17:16 51.9 / 40.7 / 38.0.
constexpr long long stream_long_row(int lanes) { return 16ll * lanes; }

/// A's rows longer than long_row cut into segments of one stream block each, built once
/// (the row pointers read on the host) and cached in its plan.
template <typename V, typename I>
RowSegments<V>& stream_segments(const matrix::Csr<V, I>& A, CsrPlan<V, I>& plan,
                                long long long_row)
{
    if (plan.stream_long_row == long_row) return plan.stream_segments;
    const auto ptrs = A.row_ptrs().to_host();
    std::vector<I> rows, begins, ends;
    for (size_type r = 0; r < A.rows(); ++r) {
        if (ptrs[r + 1] - ptrs[r] > long_row) {
            rows.push_back(static_cast<I>(r));
            begins.push_back(ptrs[r]);
            ends.push_back(ptrs[r + 1]);
        }
    }
    plan.stream_segments = cut_into_segments(A, rows, begins, ends, stream_chunk);
    plan.stream_long_row = long_row;
    return plan.stream_segments;
}

template <typename V, typename I>
void csr_stream(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    const int lanes = stream_lanes_for(A.rows(), A.nnz());
    // The statistics are in the plan (spmv_csr computed them when A has entries).
    const auto plan = plan_of(A);
    const long long long_row = stream_long_row(lanes);
    const bool split = plan->has_stats && plan->max_row_length > long_row;
    StreamLongRows<D> long_rows{0, long_row};
    long long blocks = grid_for(A.rows() * lanes, stream_block_size);
    if (split) {
        auto& segments = stream_segments(A, *plan, long_row);
        long_rows.segments = segments.segments.data();
        long_rows.runs = segments.runs.data();
        long_rows.sums = as_device(segments.sums.data());
        long_rows.arrivals = segments.arrivals.data();
        long_rows.segment_blocks = segments.segments.size();
        blocks += long_rows.segment_blocks;
    }
    with_conjugation(mode, [&]<bool Conj>() {
        with_group_size(lanes, [&]<int L>() {
            const auto kernel = split ? csr_stream_kernel<L, Conj, true, D, I>
                                      : csr_stream_kernel<L, Conj, false, D, I>;
            kernel<<<static_cast<unsigned>(blocks), stream_block_size, 0, stream_of(exec)>>>(
                view(A), column(alpha, x, beta, y, 0), long_rows);
            check_launch(spmv_where);
        });
    });
}

// ------------------------------------------------------------------ CSR transposed

/// y(col) += alpha * op(A(row, col)) * x(row): a group of G lanes per row.
template <int G, bool Conj, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    csr_scatter_kernel(CsrView<D, I> A, Column<D> v)
{
    const long long thread = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / G;
    const int lane = threadIdx.x % G;
    for (long long row = thread / G; row < A.rows; row += groups) {
        const long long end = load_cached(A.row_ptrs + row + 1);
        long long nz = load_cached(A.row_ptrs + row) + lane;
        if (nz >= end) continue;
        const D x_row = v.x_at(row);
        for (; nz < end; nz += G) {
            v.scatter(load_streaming(A.cols + nz), mul(op<Conj>(load_streaming(A.values + nz)), x_row));
        }
    }
}

/// The same over the merge-path tiles, for irregular rows: a warp stages its tile's entries
/// and row ends in shared memory, and each lane walks its merge items, scattering entries.
template <bool Conj, typename D, typename I>
__global__ void __launch_bounds__(merge_block_size)
    csr_merge_path_scatter_kernel(CsrView<D, I> A, Column<D> v, const I* tile_rows,
                                  long long tiles)
{
    constexpr int per_lane = merge_items_per_lane;
    constexpr int items = warp_size * per_lane;
    __shared__ alignas(16) unsigned char storage[merge_warps_per_block * items * (sizeof(D) + 2 * sizeof(I))];
    const int warp = threadIdx.x / warp_size;
    const int lane = threadIdx.x % warp_size;
    D* values = reinterpret_cast<D*>(storage) + warp * items;
    I* cols = reinterpret_cast<I*>(storage + merge_warps_per_block * items * sizeof(D)) + warp * items;
    I* row_ends = cols + merge_warps_per_block * items;
    for (long long tile = blockIdx.x * static_cast<long long>(merge_warps_per_block) + warp;
         tile < tiles; tile += static_cast<long long>(gridDim.x) * merge_warps_per_block) {
        const auto t = merge_tile<per_lane>(tile_rows, tile, A.rows + A.nnz);
#pragma unroll
        for (int s = 0; s < per_lane; ++s) {
            const int i = s * warp_size + lane;
            if (i < t.nnz) {
                values[i] = op<Conj>(load_streaming(A.values + t.first_nz + i));
                cols[i] = load_streaming(A.cols + t.first_nz + i);
            }
            if (i < t.rows) row_ends[i] = load_cached(A.row_ptrs + t.first_row + 1 + i);
        }
        __syncwarp();
        const int begin = std::min(lane * per_lane, t.items);
        const int stop = std::min(begin + per_lane, t.items);
        int i = static_cast<int>(merge_path_rows(begin, row_ends, t.rows, t.nnz, t.first_nz));
        int j = begin - i;
        int x_row_of = -1;  // the tile-local row whose x value x_row holds
        D x_row{};
        for (int item = begin; item < stop; ++item) {
            if (i < t.rows && row_ends[i] <= t.first_nz + j) {
                ++i;
            } else {
                if (x_row_of != i) {
                    x_row = v.x_at(t.first_row + i);
                    x_row_of = i;
                }
                v.scatter(cols[j], mul(values[j], x_row));
                ++j;
            }
        }
        __syncwarp();  // the next tile reuses this warp's shared memory
    }
}

template <typename V, typename I>
void csr_scatter(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                 const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y,
                 SpmvAlgorithm algorithm)
{
    using D = device_type_t<V>;
    prepare_scatter(exec, beta, y);
    if (A.nnz() == 0) return;
    const auto csr = view(A);
    // binned's long rows would stall a group: irregular rows scatter over the merge path.
    if (algorithm == SpmvAlgorithm::load_balanced || algorithm == SpmvAlgorithm::binned) {
        const auto plan = merge_path_plan(exec, A);
        const long long tiles = plan->carries.size();
        with_conjugation(mode, [&]<bool Conj>() {
            csr_merge_path_scatter_kernel<Conj, D, I>
                <<<grid_for(tiles, merge_warps_per_block), merge_block_size, 0,
                   stream_of(exec)>>>(csr, column(alpha, x, V{1}, y, 0), plan->tile_rows.data(),
                                      tiles);
            check_launch(spmv_where);
        });
        return;
    }
    with_conjugation(mode, [&]<bool Conj>() {
        with_group_size(group_size_for(A.rows(), A.nnz()), [&]<int G>() {
            csr_scatter_kernel<G, Conj, D, I>
                <<<grid_for(A.rows() * G, block_size), block_size, 0, stream_of(exec)>>>(
                    csr, column(alpha, x, V{1}, y, 0));
            check_launch(spmv_where);
        });
    });
}

// ------------------------------------------------------------------ row statistics

struct RowStatsPartial {
    long long max_length;
    double sum_squares;
};

constexpr int stats_max_blocks = 256;

/// Per block: the longest row and the sum of squared row lengths, reduced in a fixed order
/// (the grid depends on the row count only), so the statistics are deterministic.
template <typename I>
__global__ void __launch_bounds__(block_size)
    row_stats_kernel(const I* row_ptrs, long long rows, RowStatsPartial* partials)
{
    long long max_length = 0;
    double sum_squares = 0;
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long length = row_ptrs[r + 1] - row_ptrs[r];
        max_length = std::max(max_length, length);
        sum_squares += static_cast<double>(length) * static_cast<double>(length);
    }
#pragma unroll
    for (int offset = warp_size / 2; offset > 0; offset /= 2) {
        max_length = std::max(max_length, __shfl_xor_sync(full_mask, max_length, offset));
        sum_squares += __shfl_xor_sync(full_mask, sum_squares, offset);
    }
    __shared__ RowStatsPartial warps[block_size / warp_size];
    if (threadIdx.x % warp_size == 0) warps[threadIdx.x / warp_size] = {max_length, sum_squares};
    __syncthreads();
    if (threadIdx.x == 0) {
        RowStatsPartial block = warps[0];
        for (int w = 1; w < block_size / warp_size; ++w) {
            block.max_length = std::max(block.max_length, warps[w].max_length);
            block.sum_squares += warps[w].sum_squares;
        }
        partials[blockIdx.x] = block;
    }
}

/// Rows some much longer than the mean, or lengths spread widely: a group sized to the mean
/// would stall its warp on the long rows, and x is gathered from scattered places.
bool irregular_rows(size_type max_length, double mean, double cv)
{
    return max_length > warp_size && (max_length > 8 * mean || cv > 1.0);
}

/// Irregular matrices up to this many entries go to binned (one launch, no shared memory),
/// larger ones to load_balanced. H200, session 14 (binned with one row per group, long rows
/// in segment blocks of the same launch), us, binned / load_balanced / cuSPARSE:
/// bp_1600 3.8 / 8.7 / 8.4, tomography 4.7 / 8.6 / 9.1, orani678 5.0 / 10.6 / 9.5,
/// mycielskian12 6.5 / 11.9 / 9.1, rmat:16:16 (0.96 M entries) 11.3 / 17.5 / 17.4,
/// graph500:17:16 (3.7 M) 31.3 / 41.0 / 36.8, rmat:18:16 (3.9 M) 36.6 / 43.1 / 40.4,
/// rmat:19:16 (8.0 M) 65.9 / 80.9 / 76.2, graph500:19:16 (15.5 M) 130.8 / 131.8 / 123.4,
/// rmat:20:16 (16.1 M) 142.3 / 155.7 / 147.9; beyond, load_balanced is ahead: rmat:21:16
/// (32 M) 297.5 / 293.1, rmat:22:16 626.7 / 599.0, power-law 2M x 16 302.8 / 275.5.
constexpr long long binned_max_nnz = 1ll << 24;

/// Rows longer than this on average fill a warp each: a warp per row keeps too few loads in
/// flight, load_balanced balances by nonzeros.
constexpr double long_mean_row = 4 * warp_size;

/// The rule of `automatic` (CUDA_NOTES.md, measured on the H200 in sessions 7 to 14):
/// irregular rows go to binned up to binned_max_nnz entries, beyond to load_balanced; long
/// rows on average to load_balanced; regular rows to stream (binned's radix sort takes at
/// most 2^31 - 1 rows).
SpmvAlgorithm automatic_algorithm(size_type max_length, double mean, double cv, size_type rows,
                                  size_type nnz)
{
    const bool irregular = irregular_rows(max_length, mean, cv);
    if (irregular && nnz <= binned_max_nnz && rows < (1ll << 31)) return SpmvAlgorithm::binned;
    if (irregular || mean > long_mean_row) return SpmvAlgorithm::load_balanced;
    return SpmvAlgorithm::stream;
}

/// Rows irregular or all long (rows_need_balancing).
bool needs_balancing(size_type max_length, double mean, double cv)
{
    return irregular_rows(max_length, mean, cv) || mean > long_mean_row;
}

template <typename V, typename I>
void compute_row_stats(const CudaExecutor& exec, const matrix::Csr<V, I>& A, CsrPlan<V, I>& plan)
{
    const long long blocks = std::min<long long>(ceildiv(A.rows(), block_size), stats_max_blocks);
    Array<RowStatsPartial> partials(A.executor(), blocks);
    row_stats_kernel<<<static_cast<unsigned>(blocks), block_size, 0, stream_of(exec)>>>(
        A.row_ptrs().data(), A.rows(), partials.data());
    check_launch("loom::sparse::choose_spmv_algorithm");
    const auto host = partials.to_host();
    long long max_length = 0;
    double sum_squares = 0;
    for (const auto& p : host) {
        max_length = std::max(max_length, p.max_length);
        sum_squares += p.sum_squares;
    }
    const double rows = static_cast<double>(A.rows());
    const double mean = static_cast<double>(A.nnz()) / rows;
    const double variance = std::max(sum_squares / rows - mean * mean, 0.0);
    plan.max_row_length = max_length;
    plan.mean_row_length = mean;
    plan.row_length_cv = mean > 0 ? std::sqrt(variance) / mean : 0.0;
    plan.needs_balancing = needs_balancing(max_length, mean, plan.row_length_cv);
    plan.automatic = automatic_algorithm(max_length, mean, plan.row_length_cv, A.rows(), A.nnz());
    plan.has_stats = true;
}

// ------------------------------------------------------------------ COO

/// A warp takes 32 consecutive entries; runs of one output row among them (sorted input has
/// long ones) are summed in the warp, so that each run costs one atomicAdd.
template <bool Conj, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    coo_scatter_kernel(long long nnz, const I* out_idxs, const I* in_idxs, const D* values,
                       Column<D> v)
{
    const int lane = threadIdx.x % warp_size;
    const long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / warp_size;
    const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / warp_size;
    for (long long base = warp * warp_size; base < nnz; base += warps * warp_size) {
        const long long e = base + lane;
        long long out = -1;  // lanes past the end form a run of their own, never written
        D product{};
        if (e < nnz) {
            out = load_streaming(out_idxs + e);
            product = mul(op<Conj>(load_streaming(values + e)), v.x_at(load_streaming(in_idxs + e)));
        }
        const long long before = __shfl_up_sync(full_mask, out, 1);
        const long long after = __shfl_down_sync(full_mask, out, 1);
        const D run_sum = segmented_inclusive_scan(product, lane == 0 || before != out);
        const bool run_end = lane == warp_size - 1 || after != out;
        if (run_end && out >= 0) v.scatter(out, run_sum);
    }
}

/// k > 1 columns: `lanes` lanes per entry, along the columns, each adding its products to y
/// with atomics (A read once for all columns).
template <bool Conj, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    coo_scatter_columns_kernel(long long nnz, const I* out_idxs, const I* in_idxs,
                               const D* values, Columns<D> v, int lanes)
{
    const int lane = threadIdx.x % lanes;
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / lanes;
    for (long long e = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / lanes;
         e < nnz; e += groups) {
        const long long out = load_cached(out_idxs + e);
        const long long in = load_cached(in_idxs + e);
        const D a = op<Conj>(load_cached(values + e));
        for (long long j = lane; j < v.k; j += lanes) v.scatter(out, j, mul(a, v.x_at(in, j)));
    }
}

// ------------------------------------------------------------------ ELL and SELL-P

/// Slot `slot` of a row, at base + slot * step in the column-major slot arrays.
template <typename D, typename I>
struct SlotRow {
    const I* cols;
    const D* values;
    long long base;
    long long step;
    long long slots;
};

/// sum over the row's stored slots of op(value) * x(col); padding (col < 0) is skipped
/// without touching x.
template <bool Conj, typename D, typename I>
__device__ __forceinline__ D slot_row_sum(const SlotRow<D, I>& row, const Column<D>& v)
{
    D sum{};
    for (long long s = 0; s < row.slots; ++s) {
        const long long k = row.base + s * row.step;
        const I col = load_streaming(row.cols + k);
        if (col >= 0) sum += mul(op<Conj>(load_streaming(row.values + k)), v.x_at(col));
    }
    return sum;
}

/// y(col) += alpha * op(value) * x(r) over the row's stored slots.
template <bool Conj, typename D, typename I>
__device__ __forceinline__ void slot_row_scatter(const SlotRow<D, I>& row, long long r,
                                                 const Column<D>& v)
{
    const D x_row = v.x_at(r);
    for (long long s = 0; s < row.slots; ++s) {
        const long long k = row.base + s * row.step;
        const I col = load_streaming(row.cols + k);
        if (col >= 0) v.scatter(col, mul(op<Conj>(load_streaming(row.values + k)), x_row));
    }
}

/// The slots of row r of an ELL matrix.
template <typename D, typename I>
struct EllRows {
    long long rows;
    long long width;
    long long stride;
    const I* cols;
    const D* values;

    __device__ SlotRow<D, I> operator()(long long r) const
    {
        return {cols, values, r, stride, width};
    }
};

/// The slots of row r of a SELL-P matrix.
template <typename D, typename I>
struct SellpRows {
    long long rows;
    long long slice_size;
    const I* slice_lengths;
    const I* slice_sets;
    const I* cols;
    const D* values;

    __device__ SlotRow<D, I> operator()(long long r) const
    {
        const long long slice = r / slice_size;
        const long long base = load_cached(slice_sets + slice) * slice_size + r % slice_size;
        return {cols, values, base, slice_size, load_cached(slice_lengths + slice)};
    }
};

/// A thread per row (for SELL-P the slice_size threads of a slice read its slots side by
/// side; for ELL consecutive rows' slots are adjacent).
template <bool Transpose, bool Conj, typename D, typename I, template <typename, typename> class Rows>
__global__ void __launch_bounds__(block_size) slotted_kernel(Rows<D, I> rows, Column<D> v)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
         r < rows.rows; r += static_cast<long long>(gridDim.x) * blockDim.x) {
        const SlotRow<D, I> row = rows(r);
        if constexpr (Transpose) {
            slot_row_scatter<Conj>(row, r, v);
        } else {
            v.store(r, slot_row_sum<Conj>(row, v));
        }
    }
}

/// k > 1 columns: `lanes` lanes per row, along the columns; the lanes of a row read its slots
/// together (one load serves them all), so A is read once for all columns.
template <bool Transpose, bool Conj, typename D, typename I, template <typename, typename> class Rows>
__global__ void __launch_bounds__(block_size)
    slotted_columns_kernel(Rows<D, I> rows, Columns<D> v, int lanes)
{
    const int lane = threadIdx.x % lanes;
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / lanes;
    for (long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / lanes;
         r < rows.rows; r += groups) {
        const SlotRow<D, I> row = rows(r);
        for (long long j = lane; j < v.k; j += lanes) {
            if constexpr (Transpose) {
                const D x_row = v.x_at(r, j);
                for (long long s = 0; s < row.slots; ++s) {
                    const long long e = row.base + s * row.step;
                    const I col = load_cached(row.cols + e);
                    if (col >= 0) v.scatter(col, j, mul(op<Conj>(load_cached(row.values + e)), x_row));
                }
            } else {
                D sum{};
                for (long long s = 0; s < row.slots; ++s) {
                    const long long e = row.base + s * row.step;
                    const I col = load_cached(row.cols + e);
                    if (col >= 0) sum += mul(op<Conj>(load_cached(row.values + e)), v.x_at(col, j));
                }
                v.store(r, j, sum);
            }
        }
    }
}

/// Launches the slotted kernel of `rows` for y = alpha op(A) x + column_beta y: one launch
/// for all k columns.
template <bool Transpose, bool Conj, typename V, typename Rows>
void launch_slotted(const CudaExecutor& exec, const Rows& rows, V alpha,
                    const matrix::Dense<V>& x, V column_beta, matrix::Dense<V>& y)
{
    if (rows.rows == 0) return;
    if (x.cols() == 1) {
        slotted_kernel<Transpose, Conj><<<grid_for(rows.rows, block_size), block_size, 0,
                                          stream_of(exec)>>>(rows, column(alpha, x, column_beta, y, 0));
    } else {
        const int lanes = lanes_for(x.cols());
        slotted_columns_kernel<Transpose, Conj>
            <<<grid_for(rows.rows * lanes, block_size), block_size, 0, stream_of(exec)>>>(
                rows, columns(alpha, x, column_beta, y), lanes);
    }
    check_launch(spmv_where);
}

/// Runs launch.template operator()<transpose, conj>(column_beta); transposed products first
/// scale y (they scatter into it, so the launch adds with beta 1).
template <typename V, typename Launch>
void slotted_spmv(const CudaExecutor& exec, Mode mode, V beta, matrix::Dense<V>& y,
                  Launch&& launch)
{
    if (transposes(mode)) {
        prepare_scatter(exec, beta, y);
        with_conjugation(mode, [&]<bool Conj>() { launch.template operator()<true, Conj>(V{1}); });
    } else {
        with_conjugation(mode, [&]<bool Conj>() { launch.template operator()<false, Conj>(beta); });
    }
}

}  // namespace

// ------------------------------------------------------------------ entry points

template <typename V, typename I>
SpmvAlgorithm choose_csr_algorithm(const CudaExecutor& exec, const matrix::Csr<V, I>& A)
{
    if (A.rows() == 0 || A.nnz() == 0) return SpmvAlgorithm::row_vector;
    const auto plan = plan_of(A);
    if (!plan->has_stats) compute_row_stats(exec, A, *plan);
    return plan->automatic;
}

template <typename V, typename I>
bool rows_need_balancing(const CudaExecutor& exec, const matrix::Csr<V, I>& A)
{
    if (A.rows() == 0 || A.nnz() == 0) return false;
    choose_csr_algorithm(exec, A);  // fills the plan's statistics once
    return plan_of(A)->needs_balancing;
}

template <typename V, typename I>
void spmv_csr(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y, const SpmvOptions& options)
{
    auto algorithm = options.algorithm;
    if (y.rows() == 0 || y.cols() == 0) return;
    if (algorithm == SpmvAlgorithm::vendor) {
        spmv_csr_vendor(exec, mode, alpha, A, x, beta, y);
        return;
    }
    if (x.cols() > 1) {
        // SpMM reads A once for all k columns; the kernels below take a single column.
        const bool balanced =
            algorithm == SpmvAlgorithm::load_balanced || algorithm == SpmvAlgorithm::binned;
        const auto spmm_algorithm = balanced ? SpmmAlgorithm::nnz_balanced
                                    : algorithm == SpmvAlgorithm::automatic
                                        ? SpmmAlgorithm::automatic
                                        : SpmmAlgorithm::row_split;
        spmm_csr(exec, mode, alpha, A, operand(x, DenseLayout::row_major), beta,
                 operand(y, DenseLayout::row_major), x.cols(), spmm_algorithm);
        return;
    }
    if (algorithm == SpmvAlgorithm::automatic) algorithm = choose_csr_algorithm(exec, A);
    if (transposes(mode)) {
        csr_scatter(exec, mode, alpha, A, x, beta, y, algorithm);
        return;
    }
    // Without nonzeros y = beta y: the row kernel does that without building a partition.
    if (algorithm == SpmvAlgorithm::load_balanced && A.nnz() > 0) {
        csr_merge_path(exec, mode, alpha, A, x, beta, y);
    } else if (algorithm == SpmvAlgorithm::binned && A.nnz() > 0) {
        csr_binned(exec, mode, alpha, A, x, beta, y);
    } else if (algorithm == SpmvAlgorithm::stream && A.rows() > 0) {
        if (A.nnz() > 0) choose_csr_algorithm(exec, A);  // stream splits off long rows by them
        csr_stream(exec, mode, alpha, A, x, beta, y);
    } else {
        csr_row_vector(exec, mode, alpha, A, x, beta, y);
    }
}

template <typename V, typename I>
void spmv_coo(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Coo<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    if (y.rows() == 0 || y.cols() == 0) return;
    prepare_scatter(exec, beta, y);
    if (A.nnz() == 0) return;
    const I* out = transposes(mode) ? A.col_idxs().data() : A.row_idxs().data();
    const I* in = transposes(mode) ? A.row_idxs().data() : A.col_idxs().data();
    const D* values = as_device(A.values().data());
    with_conjugation(mode, [&]<bool Conj>() {
        if (x.cols() == 1) {
            coo_scatter_kernel<Conj, D, I>
                <<<grid_for(A.nnz(), block_size), block_size, 0, stream_of(exec)>>>(
                    A.nnz(), out, in, values, column(alpha, x, V{1}, y, 0));
        } else {
            const int lanes = lanes_for(x.cols());
            coo_scatter_columns_kernel<Conj, D, I>
                <<<grid_for(A.nnz() * lanes, block_size), block_size, 0, stream_of(exec)>>>(
                    A.nnz(), out, in, values, columns(alpha, x, V{1}, y), lanes);
        }
        check_launch(spmv_where);
    });
}

template <typename V, typename I>
void spmv_ell(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Ell<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    if (y.rows() == 0 || y.cols() == 0) return;
    const I* cols = A.col_idxs().data();
    const D* values = as_device(A.values().data());
    const EllRows<D, I> rows{A.rows(), A.width(), A.stride(), cols, values};
    slotted_spmv(exec, mode, beta, y, [&]<bool Transpose, bool Conj>(V column_beta) {
        launch_slotted<Transpose, Conj>(exec, rows, alpha, x, column_beta, y);
    });
}

template <typename V, typename I>
void spmv_sellp(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Sellp<V, I>& A,
                const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    if (y.rows() == 0 || y.cols() == 0) return;
    const I* lengths = A.slice_lengths().data();
    const I* sets = A.slice_sets().data();
    const I* cols = A.col_idxs().data();
    const D* values = as_device(A.values().data());
    const SellpRows<D, I> rows{A.rows(), A.slice_size(), lengths, sets, cols, values};
    slotted_spmv(exec, mode, beta, y, [&]<bool Transpose, bool Conj>(V column_beta) {
        launch_slotted<Transpose, Conj>(exec, rows, alpha, x, column_beta, y);
    });
}

#define LOOM_INSTANTIATE_SPMV_CUDA(V, I)               \
    LOOM_INSTANTIATE_SPMV_KERNELS(CudaExecutor, V, I); \
    template bool rows_need_balancing(const CudaExecutor&, const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_CUDA)
// SpMM's choice for the 16-bit storage types reads the same row statistics (pattern only).
#define LOOM_INSTANTIATE_SPMV_CHOICE_CUDA(V, I)                                                 \
    template SpmvAlgorithm choose_csr_algorithm(const CudaExecutor&, const matrix::Csr<V, I>&); \
    template bool rows_need_balancing(const CudaExecutor&, const matrix::Csr<V, I>&);
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_CHOICE_CUDA)

}  // namespace loom::sparse::cuda
