// CUDA SpGEMM, numeric phase of the staged rows (1 .. staged_products / 2 multiply-adds):
// segments of consecutive such rows, a block each. The block computes the segment's
// multiply-adds in product order into a stage in shared memory (B's rows read coalesced),
// sorts their (row, column) keys with a stable block radix sort (so that the multiply-adds
// of one entry of C stay in product order), and a thread per run of equal keys adds the
// run's products from 0 in that order and writes the entry: C's columns sorted, no hash
// table, no atomics, and the sums of the full phase's other kernels bit for bit (every
// entry the sum from 0 of its multiply-adds in product order). NOTES.md ("Staged rows").
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <bit>
#include <cstdlib>
#include <limits>

#include "base/cuda/cub.cuh"
#include "base/instantiate.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::grid_for;
using loom::cuda::run_cub;

/// Segment b (see Segment): a row with at most `half` multiply-adds starting in the bin ends
/// before the next bin ends, so the rows fit 2 half; a longer row starting there is the last
/// one and left out.
template <typename I>
__global__ void segments_kernel(long long rows, const long long* first_products, long long half,
                                long long count, Segment<I>* segments)
{
    for (long long b = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; b < count;
         b += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long first = first_not_below(first_products, 0, rows, b * half);
        long long end = first_not_below(first_products, 0, rows, (b + 1) * half);
        if (end > first && first_products[end] - first_products[end - 1] > half) --end;
        segments[b] = {static_cast<I>(first), static_cast<I>(end),
                       static_cast<unsigned long long>(first_products[first]),
                       static_cast<unsigned>(first_products[end] - first_products[first])};
    }
}

template <typename V>
using StageSort = cub::BlockRadixSort<unsigned long long, stage_block, staged_items, unsigned>;

/// Shared memory of a staged block.
template <typename V>
struct StagedShared {
    Batch<stage_block> batch;
    V factors[stage_block];
    int local_rows[stage_block];  ///< of the batch's entries, from the segment's first row
    V stage[staged_products];
    unsigned short index[staged_products];  ///< stage index of the sorted keys
    union {
        unsigned long long keys[staged_products];
        typename StageSort<V>::TempStorage sort;
    };
    unsigned low;
    unsigned high;
};

/// Columns and values of the staged rows, a block per segment (grid-stride).
template <typename V, typename I>
__global__ void __launch_bounds__(stage_block)
    multiply_segments_kernel(Operands<V, I> in, const Segment<I>* segments, long long count)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<StagedShared<V>*>(shared_bytes);
    for (long long b = blockIdx.x; b < count; b += gridDim.x) {
        const Segment<I> s = segments[b];
        const int products = static_cast<int>(s.products);
        if (products == 0) continue;  // uniform over the block
        const long long first_row = s.first_row;
        const long long rows = s.end_row - first_row;
        if (threadIdx.x == 0) {
            sh.low = std::numeric_limits<unsigned>::max();
            sh.high = 0;
        }
        // the products, in product order, and their keys (row, column); columns fit 32 bits
        unsigned low = std::numeric_limits<unsigned>::max();
        unsigned high = 0;
        for_each_segment_product(in, s, sh.batch, sh.factors, sh.local_rows,
                                 [&](long long j, int t, bool valid, long long p) {
                                     if (!valid) return;
                                     const auto col = static_cast<unsigned>(in.pattern.b_cols[j]);
                                     sh.stage[p] = unfused_product(sh.factors[t], in.b_vals[j]);
                                     sh.keys[p] = (static_cast<unsigned long long>(sh.local_rows[t])
                                                   << 32) |
                                                  col;
                                     low = min(low, col);
                                     high = max(high, col);
                                 });
        low = __reduce_min_sync(0xffffffffu, low);
        high = __reduce_max_sync(0xffffffffu, high);
        if (threadIdx.x % 32 == 0) {
            atomicMin(&sh.low, low);
            atomicMax(&sh.high, high);
        }
        __syncthreads();
        // keys of as few bits as the segment needs: row, then column from the lowest
        const unsigned low_col = sh.low;
        const int col_bits = 32 - __clz(static_cast<int>(sh.high - low_col));
        const int row_bits = 64 - __clzll(static_cast<long long>(rows - 1));
        unsigned long long keys[staged_items];
        unsigned positions[staged_items];
        for (int i = 0; i < staged_items; ++i) {
            const int p = threadIdx.x * staged_items + i;
            // the unused tail sorts last (stable: after any equal valid key)
            keys[i] = std::numeric_limits<unsigned long long>::max();
            if (p < products) {
                const unsigned long long key = sh.keys[p];
                keys[i] = ((key >> 32) << col_bits) | ((key & 0xffffffffull) - low_col);
            }
            positions[i] = static_cast<unsigned>(p);
        }
        __syncthreads();  // the sort's storage overlays the keys
        StageSort<V>(sh.sort).Sort(keys, positions, 0, max(1, col_bits + row_bits));
        __syncthreads();
        int heads = 0;
        for (int i = 0; i < staged_items; ++i) {
            const int p = threadIdx.x * staged_items + i;
            sh.keys[p] = keys[i];
            sh.index[p] = static_cast<unsigned short>(positions[i]);
        }
        __syncthreads();
        for (int i = 0; i < staged_items; ++i) {
            const int p = threadIdx.x * staged_items + i;
            heads += p < products && (p == 0 || sh.keys[p] != sh.keys[p - 1]) ? 1 : 0;
        }
        // every run of equal keys is an entry of C, in C's order
        long long rank =
            loom::cuda::block_inclusive_scan(static_cast<long long>(heads), sh.batch.warp_totals,
                                             stage_block / 32) -
            heads;
        const long long out = in.c_ptrs[first_row];
        const long long length = in.c_ptrs[s.end_row] - out;
        const unsigned long long col_mask = (1ull << col_bits) - 1;
        for (int i = 0; i < staged_items; ++i) {
            const int p = threadIdx.x * staged_items + i;
            if (p >= products || (p > 0 && sh.keys[p] == sh.keys[p - 1])) continue;
            const unsigned long long key = sh.keys[p];
            V sum(0);
            for (int q = p; q < products && sh.keys[q] == key; ++q) sum += sh.stage[sh.index[q]];
            if (rank < length) {
                in.c_cols[out + rank] = static_cast<I>(low_col + (key & col_mask));
                in.c_vals[out + rank] = sum;
            }
            ++rank;
        }
        __syncthreads();
    }
}

}  // namespace

long long staged_half(long long rows, long long b_cols)
{
    // off unless LOOM_SPGEMM_STAGED=1: measured on the H200 (27-point 100^3, double) the
    // staged first numeric took 62.9 ms against the hash teams' 20.3 ms (the block radix sort)
    if (const char* text = std::getenv("LOOM_SPGEMM_STAGED"); !text || std::atoi(text) == 0) {
        return 0;
    }
    // keys: a row of the segment above a column offset, 64 bits in all
    const bool fits = b_cols <= (1ll << 32) && rows < (1ll << 31);
    return fits ? staged_products / 2 : 0;
}

template <typename I>
Array<Segment<I>> make_segments(const CudaExecutor& exec, long long rows, const int64* row_flops,
                                long long multiply_adds, long long half)
{
    constexpr const char* where = symbolic_where;
    const auto self = exec.shared_from_this();
    const long long count = half > 0 && rows > 0 ? ceildiv(multiply_adds, half) : 0;
    Array<Segment<I>> segments(self, count);
    if (count == 0) return segments;
    const auto stream = stream_of(exec);
    Array<long long> first_products(self, rows + 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(first_products.data(), 0, sizeof(long long), stream), where);
    const auto* flops = reinterpret_cast<const long long*>(row_flops);
    run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, flops, first_products.data() + 1, rows,
                                             stream);
    });
    segments_kernel<<<grid_for(exec, count, 256, 32), 256, 0, stream>>>(
        rows, first_products.data(), half, count, segments.data());
    check_launch(where);
    return segments;
}

template <typename V, typename I>
void multiply_staged_rows(const CudaExecutor& exec, const Array<Segment<I>>& segments,
                          const Operands<V, I>& in)
{
    const auto count = static_cast<long long>(segments.size());
    if (count == 0) return;
    constexpr std::size_t bytes = sizeof(StagedShared<V>);
    allow_shared(exec, multiply_segments_kernel<V, I>, bytes, numeric_where);
    multiply_segments_kernel<V, I>
        <<<grid_for(exec, count, 1, 32), stage_block, bytes, stream_of(exec)>>>(
            in, segments.data(), count);
    check_launch(numeric_where);
}

#define LOOM_INSTANTIATE_SPGEMM_SEGMENTS_CUDA(I)                                              \
    template Array<Segment<I>> make_segments(const CudaExecutor&, long long, const int64*,    \
                                             long long, long long);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_SEGMENTS_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_STAGED_CUDA(V, I)                                             \
    template void multiply_staged_rows(const CudaExecutor&, const Array<Segment<I>>&,          \
                                       const Operands<loom::cuda::device_type_t<V>, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_STAGED_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
