// Argument checks and backend dispatch of FusedMM with a built-in edge operator
// (include/loom/sparse/fusedmm.hpp).
#include "loom/sparse/fusedmm.hpp"

#include "base/dispatch.hpp"
#include "base/instantiate_storage.hpp"
#include "sparse/fusedmm/kernels.hpp"

namespace loom::sparse {

EdgeOp parse_edge_op(const std::string& text)
{
    return names_of(EdgeOp{}).parse(text, "loom::sparse::parse_edge_op");
}

template <typename V, typename I>
void fusedmm(EdgeOp op, const matrix::Csr<V, I>& A, const matrix::Dense<V>& X,
             const matrix::Dense<V>& Y, const matrix::Dense<V>& W, matrix::Dense<V>& Z)
{
    detail::check_fusedmm(A, X, Y, W, Z);
    if (Z.rows() == 0 || Z.cols() == 0) return;
    LOOM_RUN_KERNEL("loom::sparse::fusedmm", *A.executor(), fusedmm_csr, op, A, X, Y, W, Z);
}

#define LOOM_INSTANTIATE_FUSEDMM(V, I)                                               \
    template void fusedmm(EdgeOp, const matrix::Csr<V, I>&, const matrix::Dense<V>&, \
                          const matrix::Dense<V>&, const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM)

}  // namespace loom::sparse
