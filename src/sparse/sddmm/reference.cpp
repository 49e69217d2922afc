// Sequential SDDMM, the oracle the other backends are tested against.
#include <utility>

#include "base/instantiate.hpp"
#include "sparse/sddmm/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void sddmm_csr(const ReferenceExecutor&, V alpha, DenseOperand<const V> X, DenseOperand<const V> Y,
               size_type k, V beta, matrix::Csr<V, I>& S, SddmmAlgorithm)
{
    // Through a const view: the non-const pattern accessors would drop S's cached plans.
    const auto& pattern = std::as_const(S);
    const I* row_ptrs = pattern.row_ptrs().data();
    const I* cols = pattern.col_idxs().data();
    V* values = S.values().data();
    for (size_type r = 0; r < S.rows(); ++r) {
        for (auto e = row_ptrs[r]; e < row_ptrs[r + 1]; ++e) {
            V dot{};
            for (size_type j = 0; j < k; ++j) dot += X(r, j) * Y(cols[e], j);
            values[e] = alpha * dot + (beta == V{0} ? V{0} : beta * values[e]);
        }
    }
}

#define LOOM_INSTANTIATE_SDDMM_REFERENCE(V, I)                                       \
    template void sddmm_csr(const ReferenceExecutor&, V, DenseOperand<const V>,      \
                            DenseOperand<const V>, size_type, V, matrix::Csr<V, I>&, \
                            SddmmAlgorithm);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_REFERENCE)

}  // namespace loom::sparse::reference
