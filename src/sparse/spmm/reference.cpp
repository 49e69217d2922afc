// Sequential SpMM, the oracle the other backends are tested against: sums start from beta C,
// then every stored entry of A adds its row of products, in the transposed position for A^T
// and A^H. The sums are kept in the compute type (float for the 16-bit storage types) and C
// is written once at the end.
#include <vector>

#include "base/instantiate_storage.hpp"
#include "sparse/spmm/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void spmm_csr(const ReferenceExecutor&, Mode mode, compute_type_t<V> alpha,
              const matrix::Csr<V, I>& A, DenseOperand<const V> B, compute_type_t<V> beta,
              DenseOperand<V> C, size_type k, SpmmAlgorithm)
{
    using T = compute_type_t<V>;
    const bool conjugates = mode == Mode::conjugate || mode == Mode::conj_transpose;
    const bool transposes = mode == Mode::transpose || mode == Mode::conj_transpose;
    const size_type c_rows = transposes ? A.cols() : A.rows();
    std::vector<T> sums(static_cast<std::size_t>(c_rows * k));
    const auto sum = [&](size_type i, size_type j) -> T& { return sums[i * k + j]; };
    for (size_type i = 0; i < c_rows; ++i) {
        for (size_type j = 0; j < k; ++j) {
            sum(i, j) = beta == T{0} ? T{0} : beta * static_cast<T>(C(i, j));
        }
    }
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto e = row_ptrs[r]; e < row_ptrs[r + 1]; ++e) {
            const T value = static_cast<T>(values[e]);
            const T a = alpha * (conjugates ? loom::conj(value) : value);
            const size_type out = transposes ? cols[e] : r;
            const size_type in = transposes ? r : cols[e];
            for (size_type j = 0; j < k; ++j) sum(out, j) += a * static_cast<T>(B(in, j));
        }
    }
    for (size_type i = 0; i < c_rows; ++i) {
        for (size_type j = 0; j < k; ++j) C(i, j) = static_cast<V>(sum(i, j));
    }
}

/// The reference backend has a single kernel.
template <typename V, typename I>
SpmmAlgorithm choose_spmm(const ReferenceExecutor&, const matrix::Csr<V, I>&, size_type)
{
    return SpmmAlgorithm::row_split;
}

#define LOOM_INSTANTIATE_SPMM_REFERENCE(V, I)                                                  \
    template void spmm_csr(const ReferenceExecutor&, Mode, compute_type_t<V>,                  \
                           const matrix::Csr<V, I>&, DenseOperand<const V>, compute_type_t<V>, \
                           DenseOperand<V>, size_type, SpmmAlgorithm);                         \
    template SpmmAlgorithm choose_spmm(const ReferenceExecutor&, const matrix::Csr<V, I>&,     \
                                       size_type);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_REFERENCE)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_REFERENCE)

}  // namespace loom::sparse::reference
