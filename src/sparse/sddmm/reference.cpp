// Sequential SDDMM, the oracle the other backends are tested against.
#include <utility>

#include "base/instantiate_storage.hpp"
#include "sparse/sddmm/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void sddmm_csr(const ReferenceExecutor&, compute_type_t<V> alpha, DenseOperand<const V> X,
               DenseOperand<const V> Y, size_type k, compute_type_t<V> beta, matrix::Csr<V, I>& S,
               SddmmAlgorithm)
{
    using T = compute_type_t<V>;
    // Through a const view: the non-const pattern accessors would drop S's cached plans.
    const auto& pattern = std::as_const(S);
    const I* row_ptrs = pattern.row_ptrs().data();
    const I* cols = pattern.col_idxs().data();
    V* values = S.values().data();
    for (size_type r = 0; r < S.rows(); ++r) {
        for (auto e = row_ptrs[r]; e < row_ptrs[r + 1]; ++e) {
            T dot{};
            for (size_type j = 0; j < k; ++j) {
                dot += static_cast<T>(X(r, j)) * static_cast<T>(Y(cols[e], j));
            }
            values[e] = static_cast<V>(alpha * dot +
                                       (beta == T{0} ? T{0} : beta * static_cast<T>(values[e])));
        }
    }
}

#define LOOM_INSTANTIATE_SDDMM_REFERENCE(V, I) LOOM_INSTANTIATE_SDDMM_KERNELS(ReferenceExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_REFERENCE)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_REFERENCE)

}  // namespace loom::sparse::reference
