// CUDA SpMM: C = alpha * op(A) * B + beta * C, A read once for all k columns of a panel.
//
// A group of G lanes (a power of two, 4 to 32) works on one row of A at a time; its lanes own
// the columns of C: lane l holds columns l, l + G, ... of a panel of G * PerLane columns in
// registers, so that the loads of a row of B and the stores of a row of C are coalesced
// along k. The G lanes load G entries of the row at once (coalesced) and hand them round
// with shuffles. Shapes (G, PerLane) are compile-time for k up to 4, 8, 16, 32, 64, 128 and
// 256; a larger k runs in panels of 256 columns (A re-read from L2 once per panel).
// Column-major B or C (strided along k) use G up to 32 with one column per lane.
//
//  * row_split: a group per row, grid-stride over the rows; C written once, deterministic.
//  * nnz_balanced: a group per chunk of `balanced_chunk` consecutive nonzeros, so that a row
//    of a million entries is shared by thousands of groups. Rows wholly inside a chunk are
//    added to C = beta C by their group; rows cut by chunk ends are added with atomics
//    (their last bits depend on timing). Chosen by `automatic` when SpMV's row statistics
//    call for load balancing (irregular or long rows).
//  * op(A) = A^T or A^H: a group per row r of A holds B(r, :) in registers and scatters
//    a_rc * B(r, :) into C(c, :) with atomics after C = beta C.
#include <algorithm>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate.hpp"
#include "sparse/spmm/kernels.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::as_device;
using loom::cuda::atomic_add;
using loom::cuda::ceildiv;
using loom::cuda::check_launch;
using loom::cuda::device_type_t;
using loom::cuda::grid_for;
using loom::cuda::is_device_complex_v;
using loom::cuda::load_cached;
using loom::cuda::mul;
using loom::cuda::shuffle;
using loom::cuda::stream_of;
using loom::cuda::warp_size;

constexpr const char* spmm_where = "loom::sparse::spmm";
constexpr int block_size = 256;
/// Blocks per multiprocessor of a grid-stride launch: enough to fill every warp slot.
constexpr int blocks_per_sm = 8;
/// Nonzeros per group of nnz_balanced.
constexpr long long balanced_chunk = 256;

template <typename D, typename I>
struct CsrRows {
    long long rows;
    const I* row_ptrs;
    const I* cols;
    const D* values;
};

template <typename V, typename I>
CsrRows<device_type_t<V>, I> rows_of(const matrix::Csr<V, I>& A)
{
    return {A.rows(), A.row_ptrs().data(), A.col_idxs().data(), as_device(A.values().data())};
}

template <typename T>
DenseOperand<device_type_t<T>> on_device(DenseOperand<T> d)
{
    return {as_device(d.data), d.row_step, d.col_step};
}

/// d(i, j), with the row-major case's unit column step known at compile time.
template <bool RowMajor, typename T>
__device__ __forceinline__ T* element(const DenseOperand<T>& d, long long i, long long j)
{
    return RowMajor ? d.data + i * d.row_step + j : d.data + i * d.row_step + j * d.col_step;
}

/// C and the coefficients of C = alpha * sum + beta * C.
template <typename D>
struct Output {
    DenseOperand<D> C;
    D alpha;
    D beta;
    bool beta_is_zero;

    /// C(i, j) = alpha * sum + beta * C(i, j); C(i, j) is not read when beta is zero.
    template <bool RowMajor>
    __device__ void store(long long i, long long j, const D& sum) const
    {
        D* c = element<RowMajor>(C, i, j);
        *c = beta_is_zero ? mul(alpha, sum) : mul(alpha, sum) + mul(beta, *c);
    }
    /// C(i, j) += alpha * sum, by the only thread writing C(i, j).
    template <bool RowMajor>
    __device__ void add(long long i, long long j, const D& sum) const
    {
        *element<RowMajor>(C, i, j) += mul(alpha, sum);
    }
    /// C(i, j) += alpha * sum, racing with other threads.
    template <bool RowMajor>
    __device__ void scatter(long long i, long long j, const D& sum) const
    {
        atomic_add(element<RowMajor>(C, i, j), mul(alpha, sum));
    }
};

template <typename V>
Output<device_type_t<V>> output(V alpha, V beta, DenseOperand<V> C)
{
    return {on_device(C), as_device(alpha), as_device(beta), beta == V{0}};
}

/// The lanes of this thread's aligned group of G lanes.
template <int G>
__device__ __forceinline__ unsigned group_mask()
{
    if constexpr (G == warp_size) {
        return loom::cuda::full_mask;
    } else {
        return ((1u << G) - 1u) << (threadIdx.x % warp_size / G * G);
    }
}

/// visit(col, a) for the entries [begin, end) of A, a conjugated when `conj` (complex types
/// only). The G lanes of the group load G entries at once and pass them round by shuffles;
/// every lane of the group calls it with the same range and sees every entry.
template <int G, typename D, typename I, typename Visit>
__device__ __forceinline__ void for_each_entry(const CsrRows<D, I>& A, bool conj, long long begin,
                                               long long end, Visit&& visit)
{
    const int lane = threadIdx.x % G;
    const unsigned mask = group_mask<G>();
    for (long long base = begin; base < end; base += G) {
        const long long e = base + lane;
        I col = 0;
        D value{};
        if (e < end) {
            col = load_cached(A.cols + e);
            value = load_cached(A.values + e);
            if constexpr (is_device_complex_v<D>) {
                if (conj) value = loom::cuda::conj_dev(value);
            }
        }
        const int count = static_cast<int>(min(static_cast<long long>(G), end - base));
        for (int t = 0; t < count; ++t) {
            visit(__shfl_sync(mask, col, t, G), shuffle(value, t, mask, G));
        }
    }
}

/// acc[p] += sum over entries [begin, end) of a * B(col, j0 + lane + p * G).
template <int G, int PerLane, bool RowMajor, typename D, typename I>
__device__ __forceinline__ void accumulate(const CsrRows<D, I>& A, bool conj, long long begin,
                                           long long end, const DenseOperand<const D>& B,
                                           long long j0, long long k, D (&acc)[PerLane])
{
    const int lane = threadIdx.x % G;
    for_each_entry<G>(A, conj, begin, end, [&](I col, const D& a) {
#pragma unroll
        for (int p = 0; p < PerLane; ++p) {
            const long long j = j0 + lane + p * G;
            if (j < k) acc[p] += mul(a, load_cached(element<RowMajor>(B, col, j)));
        }
    });
}

template <int G, int PerLane, bool RowMajor, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_row_kernel(CsrRows<D, I> A, bool conj, DenseOperand<const D> B, Output<D> out, long long k)
{
    const int lane = threadIdx.x % G;
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / G;
    for (long long row = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / G;
         row < A.rows; row += groups) {
        const long long begin = A.row_ptrs[row];
        const long long end = A.row_ptrs[row + 1];
        for (long long j0 = 0; j0 < k; j0 += G * PerLane) {
            D acc[PerLane] = {};
            accumulate<G, PerLane, RowMajor>(A, conj, begin, end, B, j0, k, acc);
#pragma unroll
            for (int p = 0; p < PerLane; ++p) {
                const long long j = j0 + lane + p * G;
                if (j < k) out.template store<RowMajor>(row, j, acc[p]);
            }
        }
    }
}

/// nnz_balanced on C = beta C: a group per chunk of nonzeros.
template <int G, int PerLane, bool RowMajor, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_balanced_kernel(CsrRows<D, I> A, long long nnz, bool conj, DenseOperand<const D> B,
                         Output<D> out, long long k)
{
    const int lane = threadIdx.x % G;
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / G;
    const long long chunks = ceildiv(nnz, balanced_chunk);
    for (long long chunk = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / G;
         chunk < chunks; chunk += groups) {
        const long long first = chunk * balanced_chunk;
        const long long last = min(nnz, first + balanced_chunk);
        const long long first_row = loom::cuda::row_of_entry(A.row_ptrs, A.rows, first);
        for (long long j0 = 0; j0 < k; j0 += G * PerLane) {
            long long e = first;
            for (long long row = first_row; e < last; ++row) {
                const long long row_begin = A.row_ptrs[row];
                const long long row_end = A.row_ptrs[row + 1];
                if (row_end <= e) continue;  // an empty row
                const long long stop = min(row_end, last);
                D acc[PerLane] = {};
                accumulate<G, PerLane, RowMajor>(A, conj, e, stop, B, j0, k, acc);
                const bool whole = row_begin >= first && row_end <= last;
#pragma unroll
                for (int p = 0; p < PerLane; ++p) {
                    const long long j = j0 + lane + p * G;
                    if (j >= k) continue;
                    if (whole) {
                        out.template add<RowMajor>(row, j, acc[p]);
                    } else {
                        out.template scatter<RowMajor>(row, j, acc[p]);
                    }
                }
                e = stop;
            }
        }
    }
}

/// op(A) = A^T / A^H on C = beta C: a group per row r of A adds a_rc * B(r, :) to C(c, :).
template <int G, int PerLane, bool RowMajor, typename D, typename I>
__global__ void __launch_bounds__(block_size)
    spmm_scatter_kernel(CsrRows<D, I> A, bool conj, DenseOperand<const D> B, Output<D> out,
                        long long k)
{
    const int lane = threadIdx.x % G;
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / G;
    for (long long row = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / G;
         row < A.rows; row += groups) {
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
    }
}

template <typename D>
__global__ void __launch_bounds__(block_size)
    scale_kernel(long long rows, long long k, Output<D> out)
{
    const long long n = rows * k;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        D* c = element<false>(out.C, i / k, i % k);
        *c = out.beta_is_zero ? D{} : mul(out.beta, *c);
    }
}

/// C = beta C before products are added into it.
template <typename D>
void prepare_accumulation(const CudaExecutor& exec, long long rows, long long k,
                          const Output<D>& out)
{
    if (!out.beta_is_zero && out.beta == D{1}) return;
    scale_kernel<<<grid_for(exec, rows * k, block_size, blocks_per_sm), block_size, 0,
                   stream_of(exec)>>>(rows, k, out);
    check_launch(spmm_where);
}

/// Calls body.template operator()<G, PerLane>() with the group shape for k columns.
template <bool RowMajor, typename Body>
void with_shape(long long k, Body&& body)
{
    if (k <= 4) {
        body.template operator()<4, 1>();
    } else if (k <= 8) {
        body.template operator()<8, 1>();
    } else if (k <= 16) {
        body.template operator()<16, 1>();
    } else if constexpr (!RowMajor) {
        body.template operator()<32, 1>();
    } else if (k <= 32) {
        body.template operator()<32, 1>();
    } else if (k <= 64) {
        body.template operator()<32, 2>();
    } else if (k <= 128) {
        body.template operator()<32, 4>();
    } else {
        body.template operator()<32, 8>();
    }
}

/// Calls body.template operator()<G, PerLane, RowMajor>() for the operands' layouts and k.
template <typename T, typename U, typename Body>
void with_kernel_shape(const DenseOperand<T>& B, const DenseOperand<U>& C, long long k,
                       Body&& body)
{
    if (B.row_major() && C.row_major()) {
        with_shape<true>(k, [&]<int G, int PerLane>() {
            body.template operator()<G, PerLane, true>();
        });
    } else {
        with_shape<false>(k, [&]<int G, int PerLane>() {
            body.template operator()<G, PerLane, false>();
        });
    }
}

/// Blocks of a grid-stride launch over `groups` groups of G lanes.
template <int G>
unsigned blocks_for(const CudaExecutor& exec, long long groups)
{
    return grid_for(exec, groups * G, block_size, blocks_per_sm);
}

}  // namespace

template <typename V, typename I>
SpmmAlgorithm choose_spmm(const CudaExecutor& exec, const matrix::Csr<V, I>& A, size_type)
{
    if (A.rows() == 0 || A.nnz() == 0) return SpmmAlgorithm::row_split;
    // SpMV's row statistics (cached on A) decide: rows irregular or long enough for SpMV to
    // balance by nonzeros make SpMM's row groups just as unequal.
    return choose_csr_algorithm(exec, A) == SpmvAlgorithm::load_balanced
               ? SpmmAlgorithm::nnz_balanced
               : SpmmAlgorithm::row_split;
}

template <typename V, typename I>
void spmm_csr(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
              DenseOperand<const V> B, V beta, DenseOperand<V> C, size_type k,
              SpmmAlgorithm algorithm)
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
    if (mode == Mode::transpose || mode == Mode::conj_transpose) {
        prepare_accumulation(exec, A.cols(), k, out);
        if (A.nnz() == 0) return;
        with_kernel_shape(B, C, k, [&]<int G, int PerLane, bool RowMajor>() {
            spmm_scatter_kernel<G, PerLane, RowMajor, D, I>
                <<<blocks_for<G>(exec, A.rows()), block_size, 0, stream_of(exec)>>>(csr, conj, b,
                                                                                    out, k);
        });
    } else if (algorithm == SpmmAlgorithm::nnz_balanced && A.nnz() > 0) {
        prepare_accumulation(exec, A.rows(), k, out);
        const long long chunks = ceildiv(A.nnz(), balanced_chunk);
        with_kernel_shape(B, C, k, [&]<int G, int PerLane, bool RowMajor>() {
            spmm_balanced_kernel<G, PerLane, RowMajor, D, I>
                <<<blocks_for<G>(exec, chunks), block_size, 0, stream_of(exec)>>>(
                    csr, A.nnz(), conj, b, out, k);
        });
    } else {
        with_kernel_shape(B, C, k, [&]<int G, int PerLane, bool RowMajor>() {
            spmm_row_kernel<G, PerLane, RowMajor, D, I>
                <<<blocks_for<G>(exec, A.rows()), block_size, 0, stream_of(exec)>>>(csr, conj, b,
                                                                                    out, k);
        });
    }
    check_launch(spmm_where);
}

#define LOOM_INSTANTIATE_SPMM_CUDA(V, I)                                                       \
    template void spmm_csr(const CudaExecutor&, Mode, V, const matrix::Csr<V, I>&,             \
                           DenseOperand<const V>, V, DenseOperand<V>, size_type,               \
                           SpmmAlgorithm);                                                     \
    template SpmmAlgorithm choose_spmm(const CudaExecutor&, const matrix::Csr<V, I>&, size_type);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_CUDA)

}  // namespace loom::sparse::cuda
