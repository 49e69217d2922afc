// CUDA SpMM: C = alpha * op(A) * B + beta * C, A read once for all k columns of a panel.
//
// A group of G lanes (a power of two, 1 to 32) works on one row of A at a time; its lanes own
// the columns of C: lane l holds columns l, l + G, ... (times Vec, see below) of a panel of
// G * PerLane * Vec columns in registers, so that the loads of a row of B and the stores of a
// row of C are coalesced along k. The G lanes load the entries of the row together
// (coalesced) and hand them round with shuffles, a batch at a time: the gathers of B for a
// whole batch (`gathers_in_flight` loads per lane) are issued before the first is used, since
// a gather that waits for the sum of the one before leaves one load per lane in flight and
// the kernel latency-bound (session 9: that was the 0.7x-1.0x of cuSPARSE).
// Where B and C are row-major with rows on 16 bytes and k a multiple of the width, lanes
// load and store 16 bytes (float4, double2, 8 halves: Vec elements); otherwise one element
// (Vec = 1; column-major B or C use G up to 32 with one column per lane). Shapes (G, PerLane)
// are compile-time for k / Vec up to 4, 8, 16, 32, 64, 128 and 256; a larger k runs in
// panels of 256 (A re-read from L2 once per panel). Short rows with a row of B of at most
// four vectors take a thread per row (the multi-column SpMV at k = 8 in double).
//
//  * row_split: a group per row, grid-stride over the rows; C written once, deterministic.
//    Rows of at most 8 entries on average with 16-byte vectors (the 7-point stencil) take
//    spmm_short_row_kernel: a row's entries loaded by its group at once and shuffled round,
//    4 gathers in flight, two 16-byte packs per lane.
//  * nnz_balanced: a group per chunk of `balanced_chunk` consecutive nonzeros, so that a row
//    of a million entries is shared by thousands of groups; the chunk's entries are one
//    stream, its gathers issued a batch at a time across row ends. A chunk stores the rows it
//    holds whole, and the empty rows that start in it; a row cut by chunk ends leaves one
//    partial sum per chunk it crosses (two slots a chunk: the row it starts in, the row it
//    ends in), which two more kernels add up in a fixed order (segments of 32 chunks first)
//    and store: every element of C written once, bitwise the same result on every run.
//    Chosen by `automatic` when SpMV's row statistics call for load balancing (irregular or
//    long rows).
//  * op(A) = A^T or A^H: a group per row r of A holds B(r, :) in registers and scatters
//    a_rc * B(r, :) into C(c, :) with atomics after C = beta C.
//
// The 16-bit storage types (half, bfloat16) run the same kernels with the sums, alpha, beta
// and the cut-row partials in float (T = compute_type_t<D>): values are widened as they are
// loaded and C is rounded once when stored. They take no transposing mode (no 16-bit atomics).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "base/instantiate_storage.hpp"
#include "loom/base/array.hpp"
#include "loom/sparse/fusedmm_custom.hpp"
#include "sparse/spmm/cuda_common.cuh"
#include "sparse/spmm/kernels.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using namespace loom::cuda;

constexpr const char* spmm_where = "loom::sparse::spmm";
constexpr int block_size = spmm_block_size;
/// Nonzeros per group of nnz_balanced: FusedMM's chunk, whose CutRows hold the cut rows.
constexpr long long balanced_chunk = loom::sparse::detail::fusedmm_chunk;
/// Loads of B per lane issued before the first is used (see accumulate): 16 measured 5%
/// faster than 8 at k = 8 in double (H200, session 9).
constexpr int gathers_in_flight = 16;
/// Elements of D in one 16-byte load along k; 1 for the complex types (a complex<double> is
/// already 16 bytes, and vectors of complex<float> would not pay for another kernel shape).
template <typename D>
constexpr int vector_width = loom::cuda::is_device_complex_v<D> || sizeof(D) > 8 ? 1
                                                                                 : 16 / sizeof(D);

/// Vec consecutive elements of a row of B.
template <typename D, int Vec>
struct Pack {
    D v[Vec];
};

/// B(i, j .. j + Vec - 1) from p = &B(i, j): one 16-byte load through the read-only cache
/// (p aligned to 16 bytes, see with_spmm_shape), or one element.
template <int Vec, typename D>
__device__ __forceinline__ Pack<D, Vec> load_along_k(const D* p)
{
    Pack<D, Vec> pack;
    if constexpr (Vec == 1) {
        pack.v[0] = load_cached(p);
    } else {
        static_assert(sizeof(pack) == sizeof(uint4));
        const uint4 bits = __ldg(reinterpret_cast<const uint4*>(p));
        memcpy(&pack, &bits, sizeof(pack));
    }
    return pack;
}

/// Whether the kernels load B and store C along k in 16-byte vectors: both row-major, k a
/// multiple of the vector width and every row of both starting on 16 bytes.
template <typename D, typename U>
bool moves_vectors(const DenseOperand<const D>& B, const DenseOperand<U>& C, long long k)
{
    constexpr int vec = vector_width<D>;
    const auto aligned = [](const auto& d) {
        return reinterpret_cast<std::uintptr_t>(d.data) % 16 == 0 && d.row_step % vec == 0;
    };
    return vec > 1 && B.row_major() && C.row_major() && k % vec == 0 && aligned(B) && aligned(C);
}

/// Calls body.template operator()<G, PerLane, Vec, RowMajor>() for the kernels of B, C and k:
/// 16-byte vectors (Vec = vector_width) where moves_vectors, one element otherwise.
template <typename D, typename U, typename Body>
void with_spmm_shape(const DenseOperand<const D>& B, const DenseOperand<U>& C, long long k,
                     Body&& body)
{
    constexpr int vec = vector_width<D>;
    if (moves_vectors(B, C, k)) {
        with_shape<true>(k / vec, [&]<int G, int PerLane>() {
            body.template operator()<G, PerLane, vec, true>();
        });
    } else {
        with_kernel_shape(B, C, k, [&]<int G, int PerLane, bool RowMajor>() {
            body.template operator()<G, PerLane, 1, RowMajor>();
        });
    }
}

/// row_split's shapes: with_spmm_shape's, and a thread per row when the rows are short and a
/// row of B is at most four vectors (k = 8 in double: the multi-column SpMV). A warp then
/// works on 32 rows with all the loads of a nonzero in flight at once and no shuffles.
template <typename D, typename U, typename Body>
void with_row_split_shape(const DenseOperand<const D>& B, const DenseOperand<U>& C, long long k,
                          bool short_rows, Body&& body)
{
    constexpr int vec = vector_width<D>;
    if (!short_rows || !moves_vectors(B, C, k) || k > 4 * vec) {
        with_spmm_shape(B, C, k, body);
    } else if (k == vec) {
        body.template operator()<1, 1, vec, true>();
    } else if (k <= 2 * vec) {
        body.template operator()<1, 2, vec, true>();
    } else {
        body.template operator()<1, 4, vec, true>();
    }
}

/// C and the coefficients of C = alpha * sum + beta * C; sums and coefficients in T.
template <typename D, typename T = compute_type_t<D>>
struct Output {
    DenseOperand<D> C;
    T alpha;
    T beta;
    bool beta_is_zero;

    /// C(i, j) = alpha * sum + beta * C(i, j); C(i, j) is not read when beta is zero.
    template <bool RowMajor>
    __device__ void store(long long i, long long j, const T& sum) const
    {
        D* c = element<RowMajor>(C, i, j);
        *c = static_cast<D>(beta_is_zero ? mul(alpha, sum)
                                         : mul(alpha, sum) + mul(beta, static_cast<T>(*c)));
    }
    /// C(i, j + v) = alpha * sums[v] + beta * C(i, j + v) for v < Vec in one 16-byte load and
    /// store (C row-major, its rows on 16 bytes: see moves_vectors).
    template <int Vec, bool Streaming = false>
    __device__ void store_along_k(long long i, long long j, const T (&sums)[Vec]) const
    {
        auto* c = reinterpret_cast<uint4*>(element<true>(C, i, j));
        Pack<D, Vec> pack;
        if (!beta_is_zero) {
            const uint4 bits = *c;
            memcpy(&pack, &bits, sizeof(pack));
        }
#pragma unroll
        for (int v = 0; v < Vec; ++v) {
            pack.v[v] = static_cast<D>(beta_is_zero ? mul(alpha, sums[v])
                                                    : mul(alpha, sums[v]) +
                                                          mul(beta, static_cast<T>(pack.v[v])));
        }
        uint4 bits;
        memcpy(&bits, &pack, sizeof(pack));
        if constexpr (Streaming) {
            __stcs(c, bits);
        } else {
            *c = bits;
        }
    }
    /// C(i, j) += alpha * sum, racing with other threads (op(A) = A^T / A^H only).
    template <bool RowMajor>
    __device__ void scatter(long long i, long long j, const D& sum) const
    {
        atomic_add(element<RowMajor>(C, i, j), mul(alpha, sum));
    }
};

template <typename V>
Output<device_type_t<V>> output(compute_type_t<V> alpha, compute_type_t<V> beta, DenseOperand<V> C)
{
    return {on_device(C), as_device(alpha), as_device(beta), beta == compute_type_t<V>{0}};
}

/// Entries per batch of accumulate: gathers_in_flight loads per lane, PerLane per entry.
template <int PerLane, int Flight = gathers_in_flight>
constexpr int batch_for = Flight / PerLane > 1 ? Flight / PerLane : 1;

/// Gathers in flight per lane of row_split's row kernel: 8 for groups of 16-byte lanes (H200,
/// fp32 random 2M x 16, k = 32, session 13: 1017 us against 16's 1048, 72 registers against
/// 124: 3 blocks a multiprocessor, not 2; with A and C streamed as well 1058), gathers_in_flight
/// for a thread per row (the multi-column SpMV, k = 8 double: 16 measured 5% faster than 8,
/// session 9).
template <int G, int Vec>
constexpr int row_flight = Vec > 1 && G > 1 ? 8 : gathers_in_flight;

/// Entries per batch of nnz_balanced's entry stream: with 16-byte loads 4 (H200, fp32
/// power-law 1M x 16, session 11: k = 32 / 128 / 256 608 / 2304 / 4508 us, 8: 613 / 2504 /
/// 4407), else gathers_in_flight loads per lane as row_split.
template <int PerLane, int Vec>
constexpr int balanced_batch = Vec > 1 ? 4 : batch_for<PerLane>;

/// b[u][p] = B(cols[u], j0 + (lane + p * G) * Vec .. + Vec - 1) for u < count <= Batch: the
/// Batch * PerLane gathers of a batch, all issued before the first of them is used.
template <int G, int PerLane, int Vec, bool RowMajor, int Batch, typename D, typename I>
__device__ __forceinline__ void gather_batch(const DenseOperand<const D>& B, long long j0,
                                             long long k, const I (&cols)[Batch], int count,
                                             Pack<D, Vec> (&b)[Batch][PerLane])
{
    const int lane = threadIdx.x % G;
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
#pragma unroll
        for (int p = 0; p < PerLane; ++p) {
            const long long j = j0 + (lane + p * G) * Vec;
            b[u][p] = u < count && j < k ? load_along_k<Vec>(element<RowMajor>(B, cols[u], j))
                                         : Pack<D, Vec>{};
        }
    }
}

/// acc[p][v] += value * b[p].v[v].
template <int PerLane, int Vec, typename D, typename T>
__device__ __forceinline__ void add_product(const T& value, const Pack<D, Vec> (&b)[PerLane],
                                            T (&acc)[PerLane][Vec])
{
#pragma unroll
    for (int p = 0; p < PerLane; ++p) {
#pragma unroll
        for (int v = 0; v < Vec; ++v) acc[p][v] += mul(value, static_cast<T>(b[p].v[v]));
    }
}

/// acc[p][v] += values[u] * B(cols[u], j0 + (lane + p * G) * Vec + v) for u < count <= Batch:
/// the Batch * PerLane gathers of B all issued before the first of them is used.
template <int G, int PerLane, int Vec, bool RowMajor, int Batch, typename D, typename I, typename T>
__device__ __forceinline__ void gather_and_sum(const DenseOperand<const D>& B, long long j0,
                                               long long k, const I (&cols)[Batch],
                                               const T (&values)[Batch], int count,
                                               T (&acc)[PerLane][Vec])
{
    Pack<D, Vec> b[Batch][PerLane];
    gather_batch<G, PerLane, Vec, RowMajor>(B, j0, k, cols, count, b);
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
        if (u >= count) break;
        add_product(values[u], b[u], acc);
    }
}

/// acc[p][v] += sum over entries [begin, end) of a * B(col, j0 + (lane + p * G) * Vec + v):
/// each lane loads Vec consecutive columns of a row of B at once (Vec = 1, or the 16-byte
/// vectors of with_spmm_shape, which guarantees that k is a multiple of Vec), the loads of a
/// batch of entries all issued before the first of them is used.
template <int G, int PerLane, int Vec, bool RowMajor, int Flight = gathers_in_flight,
          typename D, typename I, typename T>
__device__ __forceinline__ void accumulate(const CsrRows<D, I>& A, bool conj, long long begin,
                                           long long end, const DenseOperand<const D>& B,
                                           long long j0, long long k, T (&acc)[PerLane][Vec])
{
    constexpr int batch = batch_for<PerLane, Flight>;
    for_each_entry_batch<G, batch>(
        A, conj, begin, end, [&](const I(&cols)[batch], const T(&values)[batch], int count) {
            gather_and_sum<G, PerLane, Vec, RowMajor>(B, j0, k, cols, values, count, acc);
        });
}

/// C(i, j) = alpha * sum + beta * C(i, j) for the columns this lane summed in acc (see
/// accumulate), in 16-byte stores where Vec > 1.
template <int G, int PerLane, int Vec, bool RowMajor, bool Streaming = false, typename D,
          typename T>
__device__ __forceinline__ void store_sums(const Output<D>& out, long long i, long long j0,
                                           long long k, const T (&acc)[PerLane][Vec])
{
    const int lane = threadIdx.x % G;
#pragma unroll
    for (int p = 0; p < PerLane; ++p) {
        const long long j = j0 + (lane + p * G) * Vec;
        if (j >= k) continue;
        if constexpr (Vec > 1) {
            out.template store_along_k<Vec, Streaming>(i, j, acc[p]);
        } else {
            out.template store<RowMajor>(i, j, acc[p][0]);
        }
    }
}

template <int G, int PerLane, int Vec, bool RowMajor, int Flight, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_row_kernel(CsrRows<D, I> A, bool conj, DenseOperand<const D> B, Output<D> out, long long k)
{
    for_each_group_index<G>(A.rows, [&](long long row) {
        const long long begin = A.row_ptrs[row];
        const long long end = A.row_ptrs[row + 1];
        for (long long j0 = 0; j0 < k; j0 += G * PerLane * Vec) {
            compute_type_t<D> acc[PerLane][Vec] = {};
            accumulate<G, PerLane, Vec, RowMajor, Flight>(A, conj, begin, end, B, j0, k, acc);
            store_sums<G, PerLane, Vec, RowMajor>(out, row, j0, k, acc);
        }
    });
}

/// Entries of a short row whose gathers are in flight at once (spmm_short_row_kernel).
constexpr int short_row_batch = 4;
/// The blocks per multiprocessor spmm_short_row_kernel asks registers for: 6 (40
/// registers) at one pack per lane, then what ~4 registers per 16-byte load in flight allow.
template <int PerLane>
constexpr int short_row_min_blocks = PerLane == 1   ? 6
                                     : PerLane == 2 ? 4
                                     : PerLane == 4 ? 2
                                                    : 1;

/// row_split for rows of a few entries (B and C row-major, 16-byte vectors): the group
/// loads a row's entries together, max(G, 2 * short_row_batch) at a time (the whole row of
/// a 7-point stencil at once: consecutive lanes, consecutive entries), hands them round by
/// shuffles, `short_row_batch` at a time with all their gathers of B in flight; A read and C
/// stored through the streaming path so that L2 keeps the rows of B that neighbouring rows
/// gather again. Registers: 64 at two packs per lane (4 blocks a multiprocessor, 50% of the
/// warps). Session 13 (H200, fp32 7-point 160^3, k = 32): every lane loading every entry of its
/// row itself (no shuffles) made a warp's loads of A touch 8 rows' entries 28 bytes apart per
/// instruction, 14 instructions a row; ncu: L1 the busiest unit (78%), L2 72%, DRAM 50% (at
/// ncu's clocks), stalls on L1TEX loads 57% of the cycles between issues.
template <int G, int PerLane, int Vec, int MinBlocks, typename D, typename I>
__global__ void __launch_bounds__(block_size, MinBlocks)
    spmm_short_row_kernel(CsrRows<D, I> A, DenseOperand<const D> B, Output<D> out, long long k)
{
    using T = compute_type_t<D>;
    constexpr int step = G > 2 * short_row_batch ? G : 2 * short_row_batch;
    for_each_group_index<G>(A.rows, [&](long long row) {
        const long long begin = A.row_ptrs[row];
        const long long end = A.row_ptrs[row + 1];
        for (long long j0 = 0; j0 < k; j0 += G * PerLane * Vec) {
            T acc[PerLane][Vec] = {};
            for_each_entry_batch<G, short_row_batch, true, step>(
                A, false, begin, end,
                [&](const I(&cols)[short_row_batch], const T(&values)[short_row_batch],
                    int count) {
                    gather_and_sum<G, PerLane, Vec, true>(B, j0, k, cols, values, count, acc);
                });
            store_sums<G, PerLane, Vec, true, true>(out, row, j0, k, acc);
        }
    });
}

/// The partial sums of the rows cut by chunk ends, FusedMM's layout and chunk (one building
/// block): for chunk c, slot 0 holds the row that began before the chunk (the row of its first
/// entry), slot 1 the row that goes on after it, k sums each.
using loom::sparse::detail::CutRows;

/// Chunks per segment of the cut rows' two-level sum: a row cut into many chunks (a hub row of
/// a power-law graph spans thousands) adds the sums of its whole segments, each taken by a warp
/// of its own beforehand, instead of one warp walking every chunk's partial sums.
constexpr long long cut_segment = 32;

/// Where the cut rows lie: per chunk the row whose partial sums are in its slot 0 (-1: none),
/// and per segment of cut_segment chunks whose slots 0 all hold one row their sum, k each.
template <typename T, typename I>
struct CutIndex {
    I* slot0_rows;
    T* segment_sums;
    long long k;

    __device__ T* segment(long long s) const { return segment_sums + s * k; }
};

/// Finishes a row of the chunk [first, last) from its sums acc: stored when the row lies inside
/// the chunk, else left as the chunk's partial sums (slot 0: the row began before the chunk,
/// slot 1: it goes on after it) for spmm_cut_rows_kernel.
template <int G, int PerLane, int Vec, bool RowMajor, typename D, typename T>
__device__ __forceinline__ void finish_chunk_row(const Output<D>& out, const CutRows<T>& cut,
                                                 long long chunk, long long first, long long last,
                                                 long long row, long long row_begin,
                                                 long long row_end, long long j0, long long k,
                                                 const T (&acc)[PerLane][Vec])
{
    if (row_begin >= first && row_end <= last) {
        store_sums<G, PerLane, Vec, RowMajor>(out, row, j0, k, acc);
        return;
    }
    const int lane = threadIdx.x % G;
    T* partial = cut.at(chunk, row_begin < first ? 0 : 1);
#pragma unroll
    for (int p = 0; p < PerLane; ++p) {
        const long long j = j0 + (lane + p * G) * Vec;
        if (j >= k) continue;
#pragma unroll
        for (int v = 0; v < Vec; ++v) partial[j + v] = acc[p][v];
    }
}

/// The first row a chunk finishes: chunk 0 starts at row 0 (the empty rows before the first
/// entry are its own), any other at the row of its first entry.
template <typename I>
__device__ __forceinline__ long long first_row_of_chunk(const I* row_ptrs, long long rows,
                                                        long long chunk, long long first)
{
    return chunk == 0 ? 0 : loom::cuda::row_of_entry(row_ptrs, rows, first);
}

/// index.slot0_rows[chunk] = the chunk's first row when it began in an earlier chunk (its
/// partial sums go to slot 0), else -1; written by the group's first lane.
template <int G, typename T, typename I>
__device__ __forceinline__ void record_slot0_row(const I* row_ptrs, const CutIndex<T, I>& index,
                                                 long long chunk, long long first, long long start)
{
    if (threadIdx.x % G == 0) {
        index.slot0_rows[chunk] = row_ptrs[start] < first ? static_cast<I>(start) : I{-1};
    }
}

/// Whether a chunk ending at entry `last` finishes the row starting at row_begin: the rows
/// with entries before `last`, and the empty rows at `last` itself.
__device__ __forceinline__ bool chunk_finishes(long long last, long long row_begin,
                                               long long row_end)
{
    return row_begin < last || (row_begin == last && row_end == row_begin);
}

/// nnz_balanced: a group per chunk of nonzeros, the chunk's entries one stream: batches of
/// Batch consecutive entries whatever rows they belong to, all their gathers in flight before
/// the first is used, a row finished where the stream crosses its end (rows of a few entries,
/// most rows of a power-law graph, keep Batch gathers in flight instead of the few a row has:
/// H200, fp32 power-law 1M x 16, k = 32: 608 us against 981 a row at a time, session 11).
/// It stores the rows it holds whole and the empty rows that start inside it or at its end
/// (chunk 0 also those before the first entry; a row starting at a chunk's first entry
/// belongs to that chunk); the rows cut by its ends leave partials for the cut-row kernels.
template <int G, int PerLane, int Vec, bool RowMajor, int Batch, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_balanced_kernel(CsrRows<D, I> A, long long nnz, bool conj, DenseOperand<const D> B,
                         Output<D> out, CutRows<compute_type_t<D>> cut,
                         CutIndex<compute_type_t<D>, I> index, long long k)
{
    using T = compute_type_t<D>;
    for_each_group_index<G>(ceildiv(nnz, balanced_chunk), [&](long long chunk) {
        const long long first = chunk * balanced_chunk;
        const long long last = min(nnz, first + balanced_chunk);
        const long long start = first_row_of_chunk(A.row_ptrs, A.rows, chunk, first);
        record_slot0_row<G>(A.row_ptrs, index, chunk, first, start);
        for (long long j0 = 0; j0 < k; j0 += G * PerLane * Vec) {
            long long row = start;
            long long row_begin = A.row_ptrs[row];
            long long row_end = A.row_ptrs[row + 1];
            T acc[PerLane][Vec] = {};
            const auto next_row = [&] {
                finish_chunk_row<G, PerLane, Vec, RowMajor>(out, cut, chunk, first, last, row,
                                                            row_begin, row_end, j0, k, acc);
#pragma unroll
                for (int p = 0; p < PerLane; ++p) {
#pragma unroll
                    for (int v = 0; v < Vec; ++v) acc[p][v] = T{};
                }
                ++row;
                row_begin = row_end;
                if (row < A.rows) row_end = A.row_ptrs[row + 1];
            };
            long long e = first;
            for_each_entry_batch<G, Batch>(
                A, conj, first, last,
                [&](const I(&cols)[Batch], const T(&values)[Batch], int count) {
                    Pack<D, Vec> b[Batch][PerLane];
                    gather_batch<G, PerLane, Vec, RowMajor>(B, j0, k, cols, count, b);
#pragma unroll
                    for (int u = 0; u < Batch; ++u) {
                        if (u >= count) break;
                        while (e >= row_end) next_row();
                        add_product(values[u], b[u], acc);
                        ++e;
                    }
                });
            while (row < A.rows && chunk_finishes(last, row_begin, row_end)) next_row();
        }
    });
}

/// The first level of the cut rows' sum: a warp per segment of cut_segment chunks and 32
/// columns adds the segment's slot-0 partial sums in chunk order, where one row fills them all.
template <typename T, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_cut_segments_kernel(long long chunks, CutRows<T> cut, CutIndex<T, I> index, long long k)
{
    constexpr int warp = 32;
    const long long tiles = ceildiv(k, static_cast<long long>(warp));
    const long long j_lane = threadIdx.x % warp;
    for_each_group_index<warp>(chunks / cut_segment * tiles, [&](long long item) {
        const long long segment = item / tiles;
        const long long j = item % tiles * warp + j_lane;
        const long long c0 = segment * cut_segment;
        const I row = index.slot0_rows[c0];
        if (row < 0 || index.slot0_rows[c0 + cut_segment - 1] != row || j >= k) return;
        T sum = cut.at(c0, 0)[j];
        for (long long c = c0 + 1; c < c0 + cut_segment; ++c) sum += cut.at(c, 0)[j];
        index.segment(segment)[j] = sum;
    });
}

/// Stores each cut row from the segment sums: a warp per chunk
/// and 32 columns finishes the row that began in an earlier chunk and ends in this one, adding
/// its partial sums in chunk order with each whole segment's sum in place of its chunks.
template <bool RowMajor, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_cut_rows_kernel(CsrRows<D, I> A, long long nnz, Output<D> out,
                         CutRows<compute_type_t<D>> cut, CutIndex<compute_type_t<D>, I> index,
                         long long k)
{
    constexpr int warp = 32;
    const long long tiles = ceildiv(k, static_cast<long long>(warp));
    const long long j_lane = threadIdx.x % warp;
    for_each_group_index<warp>(ceildiv(nnz, balanced_chunk) * tiles, [&](long long item) {
        const long long chunk = item / tiles;
        const long long j = item % tiles * warp + j_lane;
        const I row = index.slot0_rows[chunk];
        if (row < 0 || j >= k) return;
        const long long last = min(nnz, (chunk + 1) * balanced_chunk);
        if (A.row_ptrs[row + 1] > last) return;
        const long long first_chunk = A.row_ptrs[row] / balanced_chunk;
        compute_type_t<D> sum = cut.at(first_chunk, 1)[j];
        for (long long c = first_chunk + 1; c <= chunk;) {
            if (c % cut_segment == 0 && c + cut_segment - 1 <= chunk) {
                sum += index.segment(c / cut_segment)[j];
                c += cut_segment;
            } else {
                sum += cut.at(c, 0)[j];
                ++c;
            }
        }
        out.template store<RowMajor>(row, j, sum);
    });
}

/// op(A) = A^T / A^H on C = beta C: a group per row r of A adds a_rc * B(r, :) to C(c, :).
template <int G, int PerLane, bool RowMajor, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_scatter_kernel(CsrRows<D, I> A, bool conj, DenseOperand<const D> B, Output<D> out,
                        long long k)
{
    const int lane = threadIdx.x % G;
    for_each_group_index<G>(A.rows, [&](long long row) {
        const long long begin = A.row_ptrs[row];
        const long long end = A.row_ptrs[row + 1];
        for (long long j0 = 0; j0 < k; j0 += G * PerLane) {
            D b[PerLane];
#pragma unroll
            for (int p = 0; p < PerLane; ++p) {
                const long long j = j0 + lane + p * G;
                b[p] = j < k ? load_cached(element<RowMajor>(B, row, j)) : D{};
            }
            for_each_entry<G>(A, conj, begin, end, [&](I col, const D& a) {
#pragma unroll
                for (int p = 0; p < PerLane; ++p) {
                    const long long j = j0 + lane + p * G;
                    if (j < k) out.template scatter<RowMajor>(col, j, mul(a, b[p]));
                }
            });
        }
    });
}

template <typename D>
__global__ void __launch_bounds__(block_size)
    scale_kernel(long long rows, long long k, Output<D> out)
{
    const long long n = rows * k;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        D* c = element<false>(out.C, i / k, i % k);
        *c = out.beta_is_zero ? D{} : static_cast<D>(mul(out.beta, compute_type_t<D>(*c)));
    }
}

/// C = beta C before products are added into it.
template <typename D>
void prepare_accumulation(const CudaExecutor& exec, long long rows, long long k,
                          const Output<D>& out)
{
    if (!out.beta_is_zero && out.beta == compute_type_t<D>{1}) return;
    scale_kernel<<<grid_for(exec, rows * k, block_size, spmm_blocks_per_sm), block_size, 0,
                   stream_of(exec)>>>(rows, k, out);
    check_launch(spmm_where);
}

/// Blocks of a grid-stride launch of Kernel over `groups` groups of G lanes: at most as many
/// as are resident at once. With more, the last wave holds blocks with a full share of the
/// work on part of the device: 8 blocks per multiprocessor of a kernel that fits 6 take two
/// waves for 1.33 waves' work (the registers of the batched gathers limit residency).
template <int G, auto Kernel>
unsigned resident_blocks_for(const CudaExecutor& exec, long long groups)
{
    static const int per_sm = [] {
        int blocks = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, block_size, 0),
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor", spmm_where);
        return std::max(blocks, 1);
    }();
    return grid_for(exec, groups * G, block_size, per_sm);
}

/// nnz_balanced over k columns: the chunks' kernel, then the cut rows' two-level sum.
/// `partials` holds 2 * chunks * k sums and then the segment sums (CutIndex).
template <typename D, typename I>
void spmm_chunks(const CudaExecutor& exec, bool conj, const CsrRows<D, I>& csr, long long nnz,
                 const DenseOperand<const D>& b, const Output<D>& out, long long k,
                 compute_type_t<D>* partials, I* slot0_rows)
{
    const long long chunks = ceildiv(nnz, balanced_chunk);
    const CutRows<compute_type_t<D>> cut{partials, k};
    const CutIndex<compute_type_t<D>, I> index{slot0_rows, partials + 2 * chunks * k, k};
    with_spmm_shape(b, out.C, k, [&]<int G, int PerLane, int Vec, bool RowMajor>() {
        constexpr auto kernel =
            spmm_balanced_kernel<G, PerLane, Vec, RowMajor, balanced_batch<PerLane, Vec>, D, I>;
        kernel<<<resident_blocks_for<G, kernel>(exec, chunks), block_size, 0, stream_of(exec)>>>(
            csr, nnz, conj, b, out, cut, index, k);
        check_launch(spmm_where);
        const long long tiles = ceildiv(k, 32LL);
        spmm_cut_segments_kernel<compute_type_t<D>, I>
            <<<blocks_for<32>(exec, chunks / cut_segment * tiles), block_size, 0,
               stream_of(exec)>>>(chunks, cut, index, k);
        spmm_cut_rows_kernel<RowMajor, D, I>
            <<<blocks_for<32>(exec, chunks * tiles), block_size, 0, stream_of(exec)>>>(
                csr, nnz, out, cut, index, k);
    });
}

/// row_split over k columns. Rows of at most 16 entries on average: a thread's serial walk
/// along a row is short; of at most 8 (the 7-point stencil), a batch of 16 gathers holds
/// registers for loads a row never issues: spmm_short_row_kernel, with two 16-byte packs per
/// lane (half the lanes of with_shape's group): H200, 7-point 160^3 fp32, k = 32 479 us
/// against 615 with one pack, k = 128 2140 against 2944 (session 11).
template <typename D, typename I>
void spmm_rows(const CudaExecutor& exec, bool conj, const CsrRows<D, I>& csr, long long nnz,
               const DenseOperand<const D>& b, const Output<D>& out, long long k)
{
    constexpr int vec = vector_width<D>;
    if (nnz <= 8 * csr.rows && k > 4 * vec && moves_vectors(b, out.C, k)) {
        with_shape<true>(k / vec, [&]<int G, int PerLane>() {
            constexpr bool halve = PerLane == 1 && G >= 8;
            constexpr int lanes = halve ? G / 2 : G;
            constexpr int packs = halve ? 2 : PerLane;
            constexpr auto kernel =
                spmm_short_row_kernel<lanes, packs, vec, short_row_min_blocks<packs>, D, I>;
            kernel<<<resident_blocks_for<lanes, kernel>(exec, csr.rows), block_size, 0,
                     stream_of(exec)>>>(csr, b, out, k);
        });
        return;
    }
    with_row_split_shape(
        b, out.C, k, nnz <= 16 * csr.rows, [&]<int G, int PerLane, int Vec, bool RowMajor>() {
            constexpr auto kernel =
                spmm_row_kernel<G, PerLane, Vec, RowMajor, row_flight<G, Vec>, D, I>;
            kernel<<<resident_blocks_for<G, kernel>(exec, csr.rows), block_size, 0,
                     stream_of(exec)>>>(csr, conj, b, out, k);
        });
}

}  // namespace

template <typename V, typename I>
SpmmAlgorithm choose_spmm(const CudaExecutor& exec, const matrix::Csr<V, I>& A, size_type)
{
    if (A.rows() == 0 || A.nnz() == 0) return SpmmAlgorithm::row_split;
    // SpMV's row statistics (cached on A) decide: rows irregular or long enough for SpMV to
    // balance by nonzeros make SpMM's row groups just as unequal.
    return rows_need_balancing(exec, A) ? SpmmAlgorithm::nnz_balanced : SpmmAlgorithm::row_split;
}

template <typename V, typename I>
void spmm_csr(const CudaExecutor& exec, Mode mode, compute_type_t<V> alpha,
              const matrix::Csr<V, I>& A, DenseOperand<const V> B, compute_type_t<V> beta,
              DenseOperand<V> C, size_type k, SpmmAlgorithm algorithm)
{
    using D = device_type_t<V>;
    if (algorithm == SpmmAlgorithm::vendor) {
        spmm_csr_vendor(exec, mode, alpha, A, B, beta, C, k);
        return;
    }
    if (algorithm == SpmmAlgorithm::automatic) algorithm = choose_spmm(exec, A, k);
    const bool conj = mode == Mode::conjugate || mode == Mode::conj_transpose;
    const auto csr = rows_of(A);
    const auto b = on_device(B);
    const auto out = output(alpha, beta, C);
    const bool transposes = mode == Mode::transpose || mode == Mode::conj_transpose;
    if (transposes && !is_storage_only_v<V>) {  // spmm.cpp keeps the 16-bit types out
        prepare_accumulation(exec, A.cols(), k, out);
        if (A.nnz() == 0) return;
        if constexpr (!is_storage_only_v<V>) {
            with_kernel_shape(B, C, k, [&]<int G, int PerLane, bool RowMajor>() {
                spmm_scatter_kernel<G, PerLane, RowMajor, D, I>
                    <<<blocks_for<G>(exec, A.rows()), block_size, 0, stream_of(exec)>>>(csr, conj,
                                                                                        b, out, k);
            });
        }
    } else if (algorithm == SpmmAlgorithm::nnz_balanced && A.nnz() > 0) {
        // Two partial rows a chunk, then the segment sums (CutIndex).
        const long long chunks = ceildiv(A.nnz(), balanced_chunk);
        Array<compute_type_t<V>> partials(
            A.executor(), static_cast<size_type>((2 * chunks + chunks / cut_segment) * k));
        Array<I> slot0_rows(A.executor(), static_cast<size_type>(chunks));
        spmm_chunks(exec, conj, csr, A.nnz(), b, out, static_cast<long long>(k),
                    as_device(partials.data()), slot0_rows.data());
    } else {
        spmm_rows(exec, conj, csr, A.nnz(), b, out, static_cast<long long>(k));
    }
    check_launch(spmm_where);
}

#define LOOM_INSTANTIATE_SPMM_CUDA(V, I)                                                           \
    template void spmm_csr(const CudaExecutor&, Mode, compute_type_t<V>, const matrix::Csr<V, I>&, \
                           DenseOperand<const V>, compute_type_t<V>, DenseOperand<V>, size_type,   \
                           SpmmAlgorithm);                                                         \
    template SpmmAlgorithm choose_spmm(const CudaExecutor&, const matrix::Csr<V, I>&, size_type);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_CUDA)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_CUDA)

}  // namespace loom::sparse::cuda
