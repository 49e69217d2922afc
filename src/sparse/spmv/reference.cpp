// Sequential SpMV, the oracle the other backends are tested against. Every format is read
// as a stream of stored entries (row, column, value); one generic loop turns the stream into
// y = alpha * op(A) * x + beta * y, so the formats differ only in how they are walked.
#include "base/instantiate.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse::reference {
namespace {

/// y = beta * y, writing zeros (not reading y) when beta is zero.
template <typename V>
void scale(V beta, matrix::Dense<V>& y)
{
    for (size_type i = 0; i < y.rows(); ++i) {
        for (size_type j = 0; j < y.cols(); ++j) {
            y.at(i, j) = beta == V{0} ? V{0} : beta * y.at(i, j);
        }
    }
}

/// Applies op to one stored entry A(row, col) = value and adds alpha * op(A) x's share to y.
template <typename V, typename ForEachEntry>
void spmv_entries(Mode mode, V alpha, ForEachEntry for_each_entry, const matrix::Dense<V>& x,
                  V beta, matrix::Dense<V>& y)
{
    scale(beta, y);
    const bool conjugates = mode == Mode::conjugate || mode == Mode::conj_transpose;
    const bool transposes = mode == Mode::transpose || mode == Mode::conj_transpose;
    for_each_entry([&](size_type row, size_type col, V value) {
        const V a = alpha * (conjugates ? loom::conj(value) : value);
        const size_type out = transposes ? col : row;
        const size_type in = transposes ? row : col;
        for (size_type j = 0; j < y.cols(); ++j) y.at(out, j) += a * x.at(in, j);
    });
}

}  // namespace

template <typename V, typename I>
void spmv_csr(const ReferenceExecutor&, Mode mode, V alpha, const matrix::Csr<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y, const SpmvOptions&)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    spmv_entries(
        mode, alpha,
        [&](auto&& visit) {
            for (size_type r = 0; r < A.rows(); ++r) {
                for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) visit(r, cols[k], values[k]);
            }
        },
        x, beta, y);
}

template <typename V, typename I>
void spmv_coo(const ReferenceExecutor&, Mode mode, V alpha, const matrix::Coo<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const I* rows = A.row_idxs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    spmv_entries(
        mode, alpha,
        [&](auto&& visit) {
            for (size_type k = 0; k < A.nnz(); ++k) visit(rows[k], cols[k], values[k]);
        },
        x, beta, y);
}

template <typename V, typename I>
void spmv_ell(const ReferenceExecutor&, Mode mode, V alpha, const matrix::Ell<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    spmv_entries(
        mode, alpha,
        [&](auto&& visit) {
            for (size_type r = 0; r < A.rows(); ++r) {
                for (size_type slot = 0; slot < A.width(); ++slot) {
                    const auto k = slot * A.stride() + r;
                    if (cols[k] != matrix::invalid_index) visit(r, cols[k], values[k]);
                }
            }
        },
        x, beta, y);
}

template <typename V, typename I>
void spmv_sellp(const ReferenceExecutor&, Mode mode, V alpha, const matrix::Sellp<V, I>& A,
                const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const I* lengths = A.slice_lengths().data();
    const I* sets = A.slice_sets().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const size_type slice_size = A.slice_size();
    spmv_entries(
        mode, alpha,
        [&](auto&& visit) {
            for (size_type r = 0; r < A.rows(); ++r) {
                const size_type s = r / slice_size;
                for (size_type slot = 0; slot < lengths[s]; ++slot) {
                    const auto k = (sets[s] + slot) * slice_size + r % slice_size;
                    if (cols[k] != matrix::invalid_index) visit(r, cols[k], values[k]);
                }
            }
        },
        x, beta, y);
}

/// The reference backend has a single CSR kernel.
template <typename V, typename I>
SpmvAlgorithm choose_csr_algorithm(const ReferenceExecutor&, const matrix::Csr<V, I>&)
{
    return SpmvAlgorithm::row_vector;
}

#define LOOM_INSTANTIATE_SPMV_REFERENCE(V, I) \
    LOOM_INSTANTIATE_SPMV_KERNELS(ReferenceExecutor, V, I);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_REFERENCE)

}  // namespace loom::sparse::reference
