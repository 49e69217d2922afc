// tril / triu of a CSR matrix, on the host (include/loom/sparse/triangle.hpp).
#include "loom/sparse/triangle.hpp"

#include <vector>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"

namespace loom::sparse {

template <typename V, typename I>
matrix::Csr<V, I> triangle(const matrix::Csr<V, I>& A, blas::Uplo uplo, bool with_diagonal)
{
    if (!A.executor()) {
        throw BadInput("loom::sparse::triangle", "A has no executor (it was default-constructed)");
    }
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    const auto keeps = [&](size_type r, size_type c) {
        if (r == c) return with_diagonal;
        return uplo == blas::Uplo::lower ? c < r : c > r;
    };
    std::vector<I> out_ptrs{0};
    std::vector<I> out_cols;
    std::vector<V> out_values;
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (!keeps(r, cols[k])) continue;
            out_cols.push_back(cols[k]);
            out_values.push_back(values[k]);
        }
        out_ptrs.push_back(static_cast<I>(out_cols.size()));
    }
    return matrix::Csr<V, I>::from_host(A.executor(), A.size(), out_ptrs, out_cols, out_values);
}

#define LOOM_INSTANTIATE_TRIANGLE(V, I) \
    template matrix::Csr<V, I> triangle(const matrix::Csr<V, I>&, blas::Uplo, bool);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_TRIANGLE)

}  // namespace loom::sparse
