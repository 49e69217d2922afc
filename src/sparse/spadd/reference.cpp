// Sequential SpAdd, the oracle: each row of C is the sorted set of the columns that A's and
// B's rows hold, and every entry finds its slot by binary search in it.
#include <algorithm>
#include <utility>
#include <vector>

#include "base/instantiate.hpp"
#include "sparse/spadd/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void spadd_symbolic(const ReferenceExecutor& exec, const matrix::Csr<V, I>& A,
                    const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C, Array<I>& a_positions,
                    Array<I>& b_positions)
{
    const auto shared_exec = exec.shared_from_this();
    const I* a_ptrs = A.row_ptrs().data();
    const I* a_cols = A.col_idxs().data();
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    Array<I> row_ptrs(shared_exec, A.rows() + 1);
    std::vector<I> cols;
    a_positions = Array<I>(shared_exec, A.nnz());
    b_positions = Array<I>(shared_exec, B.nnz());
    std::vector<I> row;
    row_ptrs.data()[0] = 0;
    for (size_type r = 0; r < A.rows(); ++r) {
        row.assign(a_cols + a_ptrs[r], a_cols + a_ptrs[r + 1]);
        row.insert(row.end(), b_cols + b_ptrs[r], b_cols + b_ptrs[r + 1]);
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        const auto slot = [&](I col) {
            return static_cast<I>(std::lower_bound(row.begin(), row.end(), col) - row.begin());
        };
        for (auto k = a_ptrs[r]; k < a_ptrs[r + 1]; ++k) a_positions.data()[k] = slot(a_cols[k]);
        for (auto k = b_ptrs[r]; k < b_ptrs[r + 1]; ++k) b_positions.data()[k] = slot(b_cols[k]);
        cols.insert(cols.end(), row.begin(), row.end());
        row_ptrs.data()[r + 1] = static_cast<I>(cols.size());
    }
    C = matrix::Csr<V, I>(shared_exec, A.size(), static_cast<size_type>(cols.size()));
    C.row_ptrs() = std::move(row_ptrs);
    std::copy(cols.begin(), cols.end(), C.col_idxs().data());
}

template <typename V, typename I>
void spadd_numeric(const ReferenceExecutor&, V alpha, const matrix::Csr<V, I>& A, V beta,
                   const matrix::Csr<V, I>& B, const Array<I>& a_positions,
                   const Array<I>& b_positions, matrix::Csr<V, I>& C)
{
    const I* c_ptrs = std::as_const(C).row_ptrs().data();
    V* c_values = C.values().data();
    std::fill_n(c_values, C.nnz(), V{});
    const auto add = [&](V scale, const matrix::Csr<V, I>& M, const I* positions) {
        const I* ptrs = M.row_ptrs().data();
        const V* values = M.values().data();
        for (size_type r = 0; r < M.rows(); ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                c_values[c_ptrs[r] + positions[k]] += scale * values[k];
            }
        }
    };
    add(alpha, A, a_positions.data());
    add(beta, B, b_positions.data());
}

#define LOOM_INSTANTIATE_SPADD_REFERENCE(V, I) \
    LOOM_INSTANTIATE_SPADD_KERNELS(ReferenceExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPADD_REFERENCE)

}  // namespace loom::sparse::reference
