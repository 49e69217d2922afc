// FusedMM on OpenMP: the team kernels, teams (chunks of nonzeros of A: a hub row is split
// too) spread evenly over the threads.
#include "base/instantiate_storage.hpp"
#include "sparse/fusedmm/kernels.hpp"

namespace loom::sparse::omp {

template <typename V, typename I>
void fusedmm_csr(const OmpExecutor& exec, EdgeOp op, const matrix::Csr<V, I>& A,
                 const matrix::Dense<V>& X, const matrix::Dense<V>& Y, const matrix::Dense<V>& W,
                 matrix::Dense<V>& Z)
{
    run_fusedmm(exec, op, A, X, Y, W, Z);
}

#define LOOM_INSTANTIATE_FUSEDMM_OMP(V, I)                                          \
    template void fusedmm_csr(const OmpExecutor&, EdgeOp, const matrix::Csr<V, I>&, \
                              const matrix::Dense<V>&, const matrix::Dense<V>&,     \
                              const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_OMP)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_OMP)

}  // namespace loom::sparse::omp
