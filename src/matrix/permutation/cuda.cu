// CUDA permutation kernels: a thread per index (per row for CSR, per element for Dense).
// Every output element is written by one thread, so results are the reference's bits.
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "matrix/permutation/kernels.hpp"
#include "matrix/permutation/rows.hpp"

namespace loom::matrix::cuda {

using namespace permutation_detail;

using loom::cuda::as_device;
using loom::cuda::parallel_for;

namespace {
constexpr const char* where = "loom::matrix::Permutation";
}

template <typename I>
bool invert(const CudaExecutor& exec, const Array<I>& perm, Array<I>& inverse)
{
    Array<int> failed(exec.shared_from_this(), {0});
    const long long n = perm.size();
    const I* p = perm.data();
    I* inv = inverse.data();
    int* fail = failed.data();
    parallel_for(
        exec, n,
        [=] __device__(long long k) {
            if (p[k] < 0 || p[k] >= n) *fail = 1;
        },
        where);
    if (loom::detail::load_element(failed, 0) != 0) return false;
    parallel_for(
        exec, n, [=] __device__(long long k) { inv[p[k]] = static_cast<I>(k); }, where);
    // A repeated index left another one unwritten and lost one of its own writes.
    parallel_for(
        exec, n,
        [=] __device__(long long k) {
            if (inv[p[k]] != k) *fail = 1;
        },
        where);
    return loom::detail::load_element(failed, 0) == 0;
}

template <typename V, typename I>
void gather_rows(const CudaExecutor& exec, const Array<I>& perm, const matrix::Dense<V>& x,
                 matrix::Dense<V>& y)
{
    const I* p = perm.data();
    const auto* in = as_device(x.data());
    auto* out = as_device(y.data());
    const long long cols = y.cols();
    const long long in_stride = x.stride();
    const long long out_stride = y.stride();
    parallel_for(
        exec, y.rows() * cols,
        [=] __device__(long long i) {
            const long long k = i / cols;
            const long long c = i % cols;
            out[k * out_stride + c] = in[p[k] * in_stride + c];
        },
        where);
}

template <typename V, typename I>
void permuted_row_nnz(const CudaExecutor& exec, const matrix::Csr<V, I>& A, const I* old_row,
                      Array<I>& row_nnz)
{
    const I* row_ptrs = A.row_ptrs().data();
    I* out = row_nnz.data();
    parallel_for(
        exec, A.rows(),
        [=] __device__(long long k) { out[k] = permuted_row_length(row_ptrs, old_row, k); }, where);
}

template <typename V, typename I>
void permute_entries(const CudaExecutor& exec, const matrix::Csr<V, I>& A, const I* old_row,
                     const I* new_col, matrix::Csr<V, I>& result)
{
    using Value = loom::cuda::device_type_t<V>;
    const CsrArrays<Value, I> source{A.row_ptrs().data(), A.col_idxs().data(),
                                     as_device(A.values().data())};
    const I* out_ptrs = result.row_ptrs().data();
    I* out_cols = result.col_idxs().data();
    Value* out_values = as_device(result.values().data());
    parallel_for(
        exec, A.rows(),
        [=] __device__(long long k) {
            copy_permuted_row(source, old_row, new_col, out_ptrs, out_cols, out_values, k);
        },
        where);
}

LOOM_FOR_EACH_INDEX_TYPE_ON(LOOM_INSTANTIATE_PERMUTATION_INDEX_KERNELS, CudaExecutor)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_PERMUTATION_KERNELS, CudaExecutor)

}  // namespace loom::matrix::cuda
