// CUDA SDDMM: s_e = alpha * x_row(e) . y_col(e) + beta * s_e for every stored entry e of S.
//
// The stored entries are cut into chunks of `chunk_entries` consecutive entries (whatever
// their rows: every entry is an independent dot product, so the work is balanced by
// nonzeros even with a dense row). A group of G lanes takes a chunk; its lanes hold PerLane
// values each of the current row of X in registers (loaded once per row of the chunk), and
// for each entry load the matching values of a row of Y, coalesced along k, and sum over the
// group with shuffles. G grows with k (1 lane for k <= 4, up to 32 for k > 64) so that a lane
// does 4 multiply-adds per entry; k above 128 runs in panels of 128, X's panel then re-read
// from L1 for each entry. The 16-bit storage types keep X's panel, the sums, alpha and beta
// in float (T = compute_type_t<D>), S's values rounded once on store.
#include <algorithm>
#include <utility>

#include "base/instantiate_storage.hpp"
#include "sparse/sddmm/kernels.hpp"
#include "sparse/spmm/cuda_common.cuh"

namespace loom::sparse::cuda {
namespace {

using namespace loom::cuda;

constexpr const char* sddmm_where = "loom::sparse::sddmm";
constexpr int block_size = spmm_block_size;
/// Stored entries per group: a binary search for the first row is shared by this many.
constexpr long long chunk_entries = 32;
constexpr int per_lane = 4;

/// x[p] = X(row, j0 + lane + p * G) widened to T, zero past column k.
template <int G, int PerLane, bool RowMajor, typename D, typename T>
__device__ __forceinline__ void load_panel(T (&x)[PerLane], const DenseOperand<const D>& X,
                                           long long row, long long j0, long long k)
{
    const int lane = threadIdx.x % G;
#pragma unroll
    for (int p = 0; p < PerLane; ++p) {
        const long long j = j0 + lane + p * G;
        x[p] = j < k ? static_cast<T>(load_cached(element<RowMajor>(X, row, j))) : T{};
    }
}

template <int G, int PerLane, bool RowMajor, typename D, typename I, typename T = compute_type_t<D>>
__global__ void __launch_bounds__(block_size)
    sddmm_kernel(long long rows, long long nnz, const I* row_ptrs, const I* cols, D* values,
                 DenseOperand<const D> X, DenseOperand<const D> Y, long long k, T alpha, T beta,
                 bool beta_is_zero)
{
    const int lane = threadIdx.x % G;
    const unsigned mask = group_mask<G>();
    const long long groups = static_cast<long long>(gridDim.x) * blockDim.x / G;
    const bool one_panel = k <= G * PerLane;
    const long long chunks = ceildiv(nnz, chunk_entries);
    for (long long chunk = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / G;
         chunk < chunks; chunk += groups) {
        const long long first = chunk * chunk_entries;
        const long long last = min(nnz, first + chunk_entries);
        long long row = loom::cuda::row_of_entry(row_ptrs, rows, first);
        long long row_end = row_ptrs[row + 1];
        T x[PerLane];
        if (one_panel) load_panel<G, PerLane, RowMajor>(x, X, row, 0, k);
        for (long long e = first; e < last; ++e) {
            if (e >= row_end) {
                while (e >= row_end) row_end = row_ptrs[++row + 1];
                if (one_panel) load_panel<G, PerLane, RowMajor>(x, X, row, 0, k);
            }
            const long long col = cols[e];
            T sum{};
            for (long long j0 = 0; j0 < k; j0 += G * PerLane) {
                if (!one_panel) load_panel<G, PerLane, RowMajor>(x, X, row, j0, k);
#pragma unroll
                for (int p = 0; p < PerLane; ++p) {
                    const long long j = j0 + lane + p * G;
                    if (j < k) {
                        sum += mul(x[p], static_cast<T>(load_cached(element<RowMajor>(Y, col, j))));
                    }
                }
            }
            sum = warp_sum<G>(sum, mask);
            if (lane == 0) {
                values[e] = static_cast<D>(beta_is_zero ? mul(alpha, sum)
                                                        : mul(alpha, sum) +
                                                              mul(beta, static_cast<T>(values[e])));
            }
        }
    }
}

/// Calls body.template operator()<G>() with the group size for k columns.
template <typename Body>
void with_group_size(long long k, Body&& body)
{
    if (k <= per_lane) {
        body.template operator()<1>();
    } else if (k <= 2 * per_lane) {
        body.template operator()<2>();
    } else if (k <= 4 * per_lane) {
        body.template operator()<4>();
    } else if (k <= 8 * per_lane) {
        body.template operator()<8>();
    } else if (k <= 16 * per_lane) {
        body.template operator()<16>();
    } else {
        body.template operator()<32>();
    }
}

}  // namespace

template <typename V, typename I>
void sddmm_csr(const CudaExecutor& exec, compute_type_t<V> alpha, DenseOperand<const V> X,
               DenseOperand<const V> Y, size_type k, compute_type_t<V> beta, matrix::Csr<V, I>& S,
               SddmmAlgorithm algorithm)
{
    using D = device_type_t<V>;
    if (algorithm == SddmmAlgorithm::vendor) {
        sddmm_csr_vendor(exec, alpha, X, Y, k, beta, S);
        return;
    }
    // Through a const view: the non-const pattern accessors would drop S's cached plans.
    const auto& pattern = std::as_const(S);
    const I* row_ptrs = pattern.row_ptrs().data();
    const I* cols = pattern.col_idxs().data();
    D* values = as_device(S.values().data());
    const auto x = on_device(X);
    const auto y = on_device(Y);
    const long long chunks = ceildiv(S.nnz(), chunk_entries);
    const auto launch = [&]<int G, bool RowMajor>() {
        sddmm_kernel<G, per_lane, RowMajor, D, I>
            <<<blocks_for<G>(exec, chunks), block_size, 0, stream_of(exec)>>>(
                S.rows(), S.nnz(), row_ptrs, cols, values, x, y, k, as_device(alpha),
                as_device(beta), beta == compute_type_t<V>{0});
    };
    with_group_size(k, [&]<int G>() {
        if (X.row_major() && Y.row_major()) {
            launch.template operator()<G, true>();
        } else {
            launch.template operator()<G, false>();
        }
    });
    check_launch(sddmm_where);
}

#define LOOM_INSTANTIATE_SDDMM_CUDA(V, I) LOOM_INSTANTIATE_SDDMM_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_CUDA)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_CUDA)

}  // namespace loom::sparse::cuda
