// Sequential SpGEMM, the oracle: Gustavson's row-by-row product with an ordered map as the
// accumulator of each row of C, so that C's rows come out sorted and free of duplicates
// whatever order and repetitions A and B hold.
#include <limits>
#include <map>
#include <set>

#include "base/instantiate.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse::reference {
namespace {

constexpr const char* where = "loom::sparse::spgemm_symbolic";

/// Calls visit(k, a) for every "entry" of row `row` of A, or of I + A with the identity:
/// the row of B it selects and the factor that row is scaled by. The Jacobi product's
/// row scale s multiplies A's entries, not the identity's.
template <typename V, typename I, typename Visit>
void for_each_selected_row(const matrix::Csr<V, I>& A, size_type row, bool with_identity,
                           V scale, Visit&& visit)
{
    if (with_identity) visit(row, V{1});
    const I* ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* vals = A.values().data();
    for (auto k = ptrs[row]; k < ptrs[row + 1]; ++k) {
        visit(static_cast<size_type>(cols[k]), with_identity ? scale * vals[k] : vals[k]);
    }
}

}  // namespace

template <typename V, typename I>
void spgemm_symbolic(const ReferenceExecutor& exec, const matrix::Csr<V, I>& A,
                     const matrix::Csr<V, I>& B, bool with_identity,
                     detail::SpgemmState<I>& state)
{
    const auto self = exec.shared_from_this();
    const size_type rows = A.rows();
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    state.row_ptrs = Array<I>(self, rows + 1);
    state.row_flops = Array<int64>(self, rows);
    size_type nnz = 0;
    size_type flops = 0;
    for (size_type r = 0; r < rows; ++r) {
        std::set<I> columns;
        int64 row_flops = 0;
        for_each_selected_row(A, r, with_identity, V{1}, [&](size_type k, V) {
            for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) columns.insert(b_cols[j]);
            row_flops += b_ptrs[k + 1] - b_ptrs[k];
        });
        state.row_ptrs[r] = static_cast<I>(nnz);
        state.row_flops[r] = row_flops;
        nnz += static_cast<size_type>(columns.size());
        flops += row_flops;
        if (nnz > std::numeric_limits<I>::max()) {
            throw OutOfRange(where,
                             std::string("C has more stored entries than the index type ") +
                                 type_name<I>() + " can count (use 64-bit indices); entries",
                             nnz, std::numeric_limits<I>::max());
        }
    }
    state.row_ptrs[rows] = static_cast<I>(nnz);
    state.nnz = nnz;
    state.multiply_adds = flops;
}

template <typename V, typename I>
void spgemm_numeric(const ReferenceExecutor&, detail::SpgemmState<I>& state,
                    const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                    const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    const V* b_vals = B.values().data();
    const I* c_ptrs = state.row_ptrs.data();
    I* c_cols = C.col_idxs().data();
    V* c_vals = C.values().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        std::map<I, V> row;
        const V scale = jacobi ? -jacobi->omega * jacobi->d_inv[r * jacobi->stride] : V{1};
        for_each_selected_row(A, r, jacobi != nullptr, scale, [&](size_type k, V a) {
            for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) row[b_cols[j]] += a * b_vals[j];
        });
        auto out = c_ptrs[r];
        for (const auto& [col, value] : row) {
            c_cols[out] = col;
            c_vals[out] = value;
            ++out;
        }
    }
}

template <typename V, typename I>
int64 inverse_diagonal(const ReferenceExecutor&, const matrix::Csr<V, I>& A, Array<V>& d_inv)
{
    const I* ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* vals = A.values().data();
    int64 first_zero = -1;
    for (size_type r = 0; r < A.rows(); ++r) {
        V diagonal{};
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (static_cast<size_type>(cols[k]) == r) diagonal += vals[k];
        }
        if (diagonal == V{} && first_zero < 0) first_zero = static_cast<int64>(r);
        d_inv[r] = diagonal == V{} ? V{} : V{1} / diagonal;
    }
    return first_zero;
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_SPGEMM_KERNELS, ReferenceExecutor)

}  // namespace loom::sparse::reference
