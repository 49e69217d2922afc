// OpenMP permutation kernels: the reference's loops split over the threads. Every output
// element is written by one iteration, so results are the reference's bits.
#include <omp.h>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "matrix/permutation/kernels.hpp"
#include "matrix/permutation/rows.hpp"

namespace loom::matrix::omp {

using namespace permutation_detail;

using loom::omp::parallel_for;

template <typename I>
bool invert(const OmpExecutor& exec, const Array<I>& perm, Array<I>& inverse)
{
    const size_type n = perm.size();
    const I* p = perm.data();
    I* inv = inverse.data();
    bool in_range = true;
#pragma omp parallel for schedule(static) reduction(&& : in_range) num_threads(exec.num_threads())
    for (size_type k = 0; k < n; ++k) in_range = in_range && p[k] >= 0 && p[k] < n;
    if (!in_range) return false;
    parallel_for(exec, n, [&](size_type k) { inv[p[k]] = static_cast<I>(k); });
    // A repeated index left another one unwritten and lost one of its own writes.
    bool valid = true;
#pragma omp parallel for schedule(static) reduction(&& : valid) num_threads(exec.num_threads())
    for (size_type k = 0; k < n; ++k) valid = valid && inv[p[k]] == k;
    return valid;
}

template <typename V, typename I>
void gather_rows(const OmpExecutor& exec, const Array<I>& perm, const matrix::Dense<V>& x,
                 matrix::Dense<V>& y)
{
    const I* p = perm.data();
    const V* in = x.data();
    V* out = y.data();
    const size_type cols = y.cols();
    const size_type in_stride = x.stride();
    const size_type out_stride = y.stride();
    parallel_for(exec, y.rows(), [&](size_type k) {
        for (size_type c = 0; c < cols; ++c) out[k * out_stride + c] = in[p[k] * in_stride + c];
    });
}

template <typename V, typename I>
void permuted_row_nnz(const OmpExecutor& exec, const matrix::Csr<V, I>& A, const I* old_row,
                      Array<I>& row_nnz)
{
    const I* row_ptrs = A.row_ptrs().data();
    I* out = row_nnz.data();
    parallel_for(exec, A.rows(),
                 [&](size_type k) { out[k] = permuted_row_length(row_ptrs, old_row, k); });
}

template <typename V, typename I>
void permute_entries(const OmpExecutor& exec, const matrix::Csr<V, I>& A, const I* old_row,
                     const I* new_col, matrix::Csr<V, I>& result)
{
    const CsrArrays<V, I> source{A.row_ptrs().data(), A.col_idxs().data(), A.values().data()};
    const I* out_ptrs = result.row_ptrs().data();
    I* out_cols = result.col_idxs().data();
    V* out_values = result.values().data();
    // Dynamic: the rows that land side by side may differ much in length.
#pragma omp parallel for schedule(dynamic, 256) num_threads(exec.num_threads())
    for (size_type k = 0; k < A.rows(); ++k) {
        copy_permuted_row(source, old_row, new_col, out_ptrs, out_cols, out_values, k);
    }
}

LOOM_FOR_EACH_INDEX_TYPE_ON(LOOM_INSTANTIATE_PERMUTATION_INDEX_KERNELS, OmpExecutor)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_PERMUTATION_KERNELS, OmpExecutor)

}  // namespace loom::matrix::omp
