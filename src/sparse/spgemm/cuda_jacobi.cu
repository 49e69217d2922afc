// CUDA SpGEMM, the Jacobi product's inverse diagonal: d_inv[r] = 1 / A(r, r), a thread per row.
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::as_device;
using loom::cuda::check_launch;
using loom::cuda::grid_for;
using loom::cuda::stream_of;

/// d_inv[r] = 1 / (sum of A's entries (r, r)); first_zero = the lowest row where it is 0.
template <typename V, typename I>
__global__ void __launch_bounds__(256)
    inverse_diagonal_kernel(long long rows, const I* ptrs, const I* cols, const V* vals,
                            V* d_inv, unsigned long long* first_zero)
{
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        V diagonal(0);
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (static_cast<long long>(cols[k]) == r) diagonal += vals[k];
        }
        const bool zero = diagonal == V(0);
        if (zero) atomicMin(first_zero, static_cast<unsigned long long>(r));
        d_inv[r] = zero ? V(0) : V(1) / diagonal;
    }
}

}  // namespace

template <typename V, typename I>
int64 inverse_diagonal(const CudaExecutor& exec, const matrix::Csr<V, I>& A, Array<V>& d_inv)
{
    constexpr const char* where = "loom::sparse::spgemm_jacobi_numeric (diagonal of A)";
    const long long rows = A.rows();
    if (rows == 0) return -1;
    const auto stream = stream_of(exec);
    Array<unsigned long long> first_zero(exec.shared_from_this(), 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(first_zero.data(), 0xff, sizeof(unsigned long long), stream),
                    where);
    inverse_diagonal_kernel<<<grid_for(exec, rows, 256, 8), 256, 0, stream>>>(
        rows, A.row_ptrs().data(), A.col_idxs().data(), as_device(A.values().data()),
        as_device(d_inv.data()), first_zero.data());
    check_launch(where);
    const auto first = loom::detail::load_element(first_zero, 0);
    return first == ~0ull ? -1 : static_cast<int64>(first);
}

#define LOOM_INSTANTIATE_SPGEMM_JACOBI_CUDA(V, I)                                              \
    template int64 inverse_diagonal(const CudaExecutor&, const matrix::Csr<V, I>&, Array<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_JACOBI_CUDA)

}  // namespace loom::sparse::cuda
