// FusedMM on CUDA: the team kernels, a team of up to 32 lanes per chunk of nonzeros of A, its
// rows of Z accumulated in shared memory (team scratch), then the cut rows added up.
#include "base/instantiate_storage.hpp"
#include "sparse/fusedmm/kernels.hpp"

namespace loom::sparse::cuda {

template <typename V, typename I>
void fusedmm_csr(const CudaExecutor& exec, EdgeOp op, const matrix::Csr<V, I>& A,
                 const matrix::Dense<V>& X, const matrix::Dense<V>& Y, const matrix::Dense<V>& W,
                 matrix::Dense<V>& Z)
{
    run_fusedmm(exec, op, A, X, Y, W, Z);
}

#define LOOM_INSTANTIATE_FUSEDMM_CUDA(V, I)                                          \
    template void fusedmm_csr(const CudaExecutor&, EdgeOp, const matrix::Csr<V, I>&, \
                              const matrix::Dense<V>&, const matrix::Dense<V>&,      \
                              const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_CUDA)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_CUDA)

}  // namespace loom::sparse::cuda
