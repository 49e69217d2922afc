// FusedMM on the reference backend: the team kernel run team after team.
#include "base/instantiate_storage.hpp"
#include "sparse/fusedmm/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void fusedmm_csr(const ReferenceExecutor& exec, EdgeOp op, const matrix::Csr<V, I>& A,
                 const matrix::Dense<V>& X, const matrix::Dense<V>& Y, const matrix::Dense<V>& W,
                 matrix::Dense<V>& Z)
{
    run_fusedmm(exec, op, A, X, Y, W, Z);
}

#define LOOM_INSTANTIATE_FUSEDMM_REFERENCE(V, I)                                          \
    template void fusedmm_csr(const ReferenceExecutor&, EdgeOp, const matrix::Csr<V, I>&, \
                              const matrix::Dense<V>&, const matrix::Dense<V>&,           \
                              const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_REFERENCE)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_REFERENCE)

}  // namespace loom::sparse::reference
