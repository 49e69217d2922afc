// Sequential SpMM, the oracle the other backends are tested against: C = beta C, then every
// stored entry of A adds its row of products, in the transposed position for A^T and A^H.
#include "base/instantiate.hpp"
#include "sparse/spmm/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void spmm_csr(const ReferenceExecutor&, Mode mode, V alpha, const matrix::Csr<V, I>& A,
              DenseOperand<const V> B, V beta, DenseOperand<V> C, size_type k, SpmmAlgorithm)
{
    const bool conjugates = mode == Mode::conjugate || mode == Mode::conj_transpose;
    const bool transposes = mode == Mode::transpose || mode == Mode::conj_transpose;
    const size_type c_rows = transposes ? A.cols() : A.rows();
    for (size_type i = 0; i < c_rows; ++i) {
        for (size_type j = 0; j < k; ++j) C(i, j) = beta == V{0} ? V{0} : beta * C(i, j);
    }
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto e = row_ptrs[r]; e < row_ptrs[r + 1]; ++e) {
            const V a = alpha * (conjugates ? loom::conj(values[e]) : values[e]);
            const size_type out = transposes ? cols[e] : r;
            const size_type in = transposes ? r : cols[e];
            for (size_type j = 0; j < k; ++j) C(out, j) += a * B(in, j);
        }
    }
}

/// The reference backend has a single kernel.
template <typename V, typename I>
SpmmAlgorithm choose_spmm(const ReferenceExecutor&, const matrix::Csr<V, I>&, size_type)
{
    return SpmmAlgorithm::row_split;
}

#define LOOM_INSTANTIATE_SPMM_REFERENCE(V, I)                                                    \
    template void spmm_csr(const ReferenceExecutor&, Mode, V, const matrix::Csr<V, I>&,          \
                           DenseOperand<const V>, V, DenseOperand<V>, size_type, SpmmAlgorithm); \
    template SpmmAlgorithm choose_spmm(const ReferenceExecutor&, const matrix::Csr<V, I>&,       \
                                       size_type);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_REFERENCE)

}  // namespace loom::sparse::reference
