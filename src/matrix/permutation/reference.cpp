// Sequential permutation kernels: plain loops, the oracle for the other backends.
#include "base/instantiate.hpp"
#include "matrix/permutation/kernels.hpp"
#include "matrix/permutation/rows.hpp"

namespace loom::matrix::reference {

using namespace permutation_detail;

template <typename I>
bool invert(const ReferenceExecutor&, const Array<I>& perm, Array<I>& inverse)
{
    const size_type n = perm.size();
    for (size_type k = 0; k < n; ++k) {
        if (perm[k] < 0 || perm[k] >= n) return false;
        inverse[perm[k]] = static_cast<I>(k);
    }
    // A repeated index left another one unwritten and lost one of its own writes.
    for (size_type k = 0; k < n; ++k) {
        if (inverse[perm[k]] != k) return false;
    }
    return true;
}

template <typename V, typename I>
void gather_rows(const ReferenceExecutor&, const Array<I>& perm, const matrix::Dense<V>& x,
                 matrix::Dense<V>& y)
{
    for (size_type k = 0; k < y.rows(); ++k) {
        for (size_type c = 0; c < y.cols(); ++c) y.at(k, c) = x.at(perm[k], c);
    }
}

template <typename V, typename I>
void permuted_row_nnz(const ReferenceExecutor&, const matrix::Csr<V, I>& A, const I* old_row,
                      Array<I>& row_nnz)
{
    for (size_type k = 0; k < A.rows(); ++k) {
        row_nnz[k] = permuted_row_length(A.row_ptrs().data(), old_row, k);
    }
}

template <typename V, typename I>
void permute_entries(const ReferenceExecutor&, const matrix::Csr<V, I>& A, const I* old_row,
                     const I* new_col, matrix::Csr<V, I>& result)
{
    const CsrArrays<V, I> source{A.row_ptrs().data(), A.col_idxs().data(), A.values().data()};
    for (size_type k = 0; k < A.rows(); ++k) {
        copy_permuted_row(source, old_row, new_col, result.row_ptrs().data(),
                          result.col_idxs().data(), result.values().data(), k);
    }
}

LOOM_FOR_EACH_INDEX_TYPE_ON(LOOM_INSTANTIATE_PERMUTATION_INDEX_KERNELS, ReferenceExecutor)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_PERMUTATION_KERNELS, ReferenceExecutor)

}  // namespace loom::matrix::reference
