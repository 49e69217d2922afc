// CUDA SpGEMM, heavy rows (too long for the light tables) whose bitmap of B's columns is
// dense enough: a block per row sets the bits of its columns, in shared memory when the
// bitmap fits, else in a per-block bitmap in global memory. Symbolic: the set bits are the
// row's length. Numeric: a block scan of the words' popcounts gives every column its
// position (and writes the columns, sorted); every product then adds into C directly.
#include <algorithm>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/hash_table.cuh"
#include "base/instantiate.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::racy_load;

/// Shared memory of a heavy block besides its bitmap.
template <typename V>
struct HeavyShared {
    Batch<heavy_block> batch;
    V factors[heavy_block];
    unsigned long long lowest;   ///< first bitmap word touched by the row
    unsigned long long highest;  ///< last one
    unsigned long long count;
};

/// Owner slots of ordered_add in a numeric heavy block (position in the row modulo this):
/// positions that share one wait for each other, so enough that a step's 1024 products
/// rarely do; 32 KiB beside a shared bitmap of at most 160 KiB.
constexpr int heavy_owner_slots = 8192;

/// Shared memory of a numeric heavy block besides its bitmap and positions.
template <typename V>
struct HeavyNumericShared {
    HeavyShared<V> row;
    int owners[heavy_owner_slots];
};

/// The block's bitmap: in shared memory, or its slice of the global bitmaps.
__device__ inline unsigned* heavy_bitmap(unsigned char* shared_tail, unsigned* global_bitmaps,
                                         long long words, bool in_shared)
{
    return in_shared ? reinterpret_cast<unsigned*>(shared_tail)
                     : global_bitmaps + blockIdx.x * words;
}

/// The bitmap words a thread touched (merged over the block by merge_range).
struct WordRange {
    unsigned long long lowest = ~0ull;
    unsigned long long highest = 0;
    __device__ void add(unsigned long long w)
    {
        lowest = min(lowest, w);
        highest = max(highest, w);
    }
};

template <typename V>
__device__ inline void merge_range(const WordRange& mine, HeavyShared<V>& sh)
{
    if (mine.lowest <= mine.highest) {
        atomicMin(&sh.lowest, mine.lowest);
        atomicMax(&sh.highest, mine.highest);
    }
}

template <typename V>
__device__ inline void reset_heavy_row(HeavyShared<V>& sh)
{
    if (threadIdx.x == 0) {
        sh.lowest = ~0ull;
        sh.highest = 0;
        sh.count = 0;
    }
}

/// Block-wide: sets the bit of every column of row `row` of the product in `bitmap` and
/// leaves the range of bitmap words it touched in sh.lowest .. sh.highest.
template <typename V, typename I>
__device__ void mark_heavy_row(const Pattern<I>& in, long long row, unsigned* bitmap,
                               HeavyShared<V>& sh)
{
    reset_heavy_row(sh);
    __syncthreads();
    long long first = 0;
    long long end = 0;
    entry_range(in, row, first, end);
    const long long a_begin = in.a_ptrs[row];
    WordRange range;
    for_each_product<heavy_block>(
        first, end, in.b_ptrs, sh.batch,
        [&](long long k, int) -> long long { return k < a_begin ? row : in.a_cols[k]; },
        [&](long long j, int) {
            const auto col = static_cast<unsigned long long>(in.b_cols[j]);
            atomicOr(bitmap + (col >> 5), 1u << (col & 31));
            range.add(col >> 5);
        });
    merge_range(range, sh);
    __syncthreads();
}

/// Distinct columns of heavy rows: a block per row, a bitmap of B's columns.
template <typename I>
__global__ void __launch_bounds__(heavy_block)
    count_heavy_kernel(const I* group_rows, long long n, Pattern<I> in, long long words,
                       bool in_shared, unsigned* global_bitmaps, I* counts)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& sh = *reinterpret_cast<HeavyShared<char>*>(shared_bytes);
    unsigned* bitmap =
        heavy_bitmap(shared_bytes + sizeof(HeavyShared<char>), global_bitmaps, words, in_shared);
    if (in_shared) {
        for (long long w = threadIdx.x; w < words; w += heavy_block) bitmap[w] = 0;
    }
    for (long long h = blockIdx.x; h < n; h += gridDim.x) {
        const long long row = group_rows[h];
        mark_heavy_row(in, row, bitmap, sh);
        const unsigned long long lowest = sh.lowest;
        const unsigned long long highest = sh.highest;
        unsigned long long count = 0;
        if (lowest <= highest) {
            for (auto w = lowest + threadIdx.x; w <= highest; w += heavy_block) {
                count += __popc(racy_load(bitmap + w));
                bitmap[w] = 0;
            }
        }
        if (count > 0) atomicAdd(&sh.count, count);
        __syncthreads();
        if (threadIdx.x == 0) counts[row] = static_cast<I>(sh.count);
        __syncthreads();
    }
}

/// Columns and values of heavy rows: a block per row; bitmap of B's columns, then the
/// position of column c in the row is positions[c / 32] + the bits below c in its word.
template <typename V, typename I>
__global__ void __launch_bounds__(heavy_block)
    multiply_heavy_kernel(const I* group_rows, long long n, Operands<V, I> in, long long words,
                          bool in_shared, unsigned* global_bitmaps, I* global_positions)
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    auto& numeric_sh = *reinterpret_cast<HeavyNumericShared<V>*>(shared_bytes);
    auto& sh = numeric_sh.row;
    int* owners = numeric_sh.owners;
    for (int o = threadIdx.x; o < heavy_owner_slots; o += heavy_block) owners[o] = no_owner;
    // positions first: they may need 8-byte alignment, the bitmap words only 4
    unsigned char* tail = shared_bytes + sizeof(HeavyNumericShared<V>);
    I* positions = in_shared ? reinterpret_cast<I*>(tail) : global_positions + blockIdx.x * words;
    unsigned* bitmap = heavy_bitmap(tail + sizeof(I) * words, global_bitmaps, words, in_shared);
    if (in_shared) {
        for (long long w = threadIdx.x; w < words; w += heavy_block) bitmap[w] = 0;
    }
    const auto& pattern = in.pattern;
    for (long long h = blockIdx.x; h < n; h += gridDim.x) {
        const long long row = group_rows[h];
        const long long out = in.c_ptrs[row];
        const long long length = in.c_ptrs[row + 1] - out;
        for (long long i = threadIdx.x; i < length; i += heavy_block) in.c_vals[out + i] = V(0);
        mark_heavy_row(pattern, row, bitmap, sh);
        // positions of the words and the columns, in order
        const unsigned long long lowest = sh.lowest;
        const unsigned long long highest = sh.highest;
        long long written = 0;
        for (unsigned long long base = lowest; lowest <= highest && base <= highest;
             base += heavy_block) {
            const unsigned long long w = base + threadIdx.x;
            const unsigned bits = w <= highest ? racy_load(bitmap + w) : 0u;
            const long long inclusive = team_inclusive_scan<heavy_block>(__popc(bits), sh.batch);
            long long position = written + inclusive - __popc(bits);
            if (w <= highest) positions[w] = static_cast<I>(position);
            for (unsigned rest = bits; rest != 0; rest &= rest - 1, ++position) {
                if (position < length) {
                    in.c_cols[out + position] = static_cast<I>(w * 32 + (__ffs(rest) - 1));
                }
            }
            sh.batch.inclusive[threadIdx.x] = inclusive;
            __syncthreads();
            written += sh.batch.inclusive[heavy_block - 1];
            __syncthreads();
        }
        for_each_row_product_step<heavy_block>(
            in, true, row, sh.batch, sh.factors, [&](long long j, int s, bool valid) {
                long long position = length;
                V product{};
                if (valid) {
                    const auto col = static_cast<unsigned long long>(pattern.b_cols[j]);
                    const unsigned below =
                        racy_load(bitmap + (col >> 5)) & ((1u << (col & 31)) - 1u);
                    position = static_cast<long long>(positions[col >> 5]) + __popc(below);
                    product = unfused_product(sh.factors[s], in.b_vals[j]);
                }
                const bool add = position < length;
                const long long at = add ? position : 0;
                ordered_add<heavy_block>(in.ordered, in.c_vals + out + at, product, add,
                                         owners + (at & (heavy_owner_slots - 1)));
            });
        __syncthreads();
        if (lowest <= highest) {
            for (auto w = lowest + threadIdx.x; w <= highest; w += heavy_block) bitmap[w] = 0;
        }
        __syncthreads();
    }
}

/// How the heavy rows of a phase run: bitmap in shared memory, or per block in global.
struct HeavyLaunch {
    long long words = 0;
    bool in_shared = false;
    int blocks = 0;
    std::size_t shared_bytes = 0;
    std::size_t scratch_bytes = 0;  ///< global bytes per block when not in shared
};

/// bytes_per_word: bitmap word plus (numeric) its position.
HeavyLaunch plan_heavy(const CudaExecutor& exec, long long heavy_rows, long long b_cols,
                       std::size_t header_bytes, std::size_t bytes_per_word, const char* where)
{
    HeavyLaunch launch;
    if (heavy_rows == 0) return launch;
    launch.words = ceildiv(b_cols, 32);
    const std::size_t bitmap_bytes = static_cast<std::size_t>(launch.words) * bytes_per_word;
    const std::size_t limit = static_cast<std::size_t>(shared_limit(exec, where));
    const long long wanted =
        std::min<long long>(heavy_rows, static_cast<long long>(exec.multiprocessor_count()) * 2);
    if (bitmap_bytes <= heavy_shared_bitmap_bytes && header_bytes + bitmap_bytes <= limit) {
        launch.in_shared = true;
        launch.shared_bytes = header_bytes + bitmap_bytes;
        launch.blocks = static_cast<int>(wanted);
        return launch;
    }
    launch.shared_bytes = header_bytes;
    launch.scratch_bytes = bitmap_bytes;
    const long long affordable =
        std::max<long long>(1, static_cast<long long>(heavy_global_budget / bitmap_bytes));
    launch.blocks = static_cast<int>(std::min(wanted, affordable));
    return launch;
}

}  // namespace

template <typename I>
void count_heavy_rows(const CudaExecutor& exec, const RowGroups<I>& groups, const Pattern<I>& in,
                      long long b_cols, I* counts)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    constexpr const char* where = symbolic_where;
    const auto heavy = plan_heavy(exec, groups.size(heavy_group), b_cols,
                                  sizeof(HeavyShared<char>), sizeof(unsigned), where);
    Array<unsigned char> scratch(self, static_cast<size_type>(heavy.scratch_bytes) *
                                           (heavy.in_shared ? 0 : heavy.blocks));
    if (!heavy.in_shared) {
        LOOM_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size(), stream), where);
    }
    allow_shared(exec, count_heavy_kernel<I>, heavy.shared_bytes, where);
    count_heavy_kernel<I><<<heavy.blocks, heavy_block, heavy.shared_bytes, stream>>>(
        groups.begin(heavy_group), groups.size(heavy_group), in, heavy.words, heavy.in_shared,
        reinterpret_cast<unsigned*>(scratch.data()), counts);
    check_launch(where);
}

template <typename V, typename I>
void multiply_heavy_rows(const CudaExecutor& exec, const RowGroups<I>& groups,
                         const Operands<V, I>& in, long long b_cols)
{
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    constexpr const char* where = numeric_where;
    const long long heavy_rows = groups.size(heavy_group);
    const auto heavy = plan_heavy(exec, heavy_rows, b_cols, sizeof(HeavyNumericShared<V>),
                                  sizeof(unsigned) + sizeof(I), where);
    Array<unsigned char> scratch(
        self, static_cast<size_type>(heavy.scratch_bytes) * (heavy.in_shared ? 0 : heavy.blocks));
    // positions first (alignment), then the bitmaps, which start zeroed
    I* positions = reinterpret_cast<I*>(scratch.data());
    unsigned* bitmaps = nullptr;
    if (!heavy.in_shared) {
        const std::size_t positions_bytes =
            sizeof(I) * static_cast<std::size_t>(heavy.words) * heavy.blocks;
        bitmaps = reinterpret_cast<unsigned*>(scratch.data() + positions_bytes);
        LOOM_CUDA_CHECK(cudaMemsetAsync(bitmaps, 0, scratch.size() - positions_bytes, stream),
                        where);
    }
    allow_shared(exec, multiply_heavy_kernel<V, I>, heavy.shared_bytes, where);
    multiply_heavy_kernel<V, I><<<heavy.blocks, heavy_block, heavy.shared_bytes, stream>>>(
        groups.begin(heavy_group), heavy_rows, in, heavy.words, heavy.in_shared, bitmaps,
        positions);
    check_launch(where);
}

#define LOOM_INSTANTIATE_SPGEMM_HEAVY_COUNT_CUDA(I)                                            \
    template void count_heavy_rows(const CudaExecutor&, const RowGroups<I>&, const Pattern<I>&, \
                                   long long, I*);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_HEAVY_COUNT_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_HEAVY_MULTIPLY_CUDA(V, I)                                      \
    template void multiply_heavy_rows(const CudaExecutor&, const RowGroups<I>&,                \
                                      const Operands<loom::cuda::device_type_t<V>, I>&,        \
                                      long long);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_HEAVY_MULTIPLY_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels
