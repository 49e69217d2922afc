// FusedMM on CUDA: the team kernels, a team of up to 32 lanes per chunk of nonzeros of A, its
// rows of Z accumulated in shared memory (team scratch), then the cut rows added up.
#include "sparse/fusedmm/unified.hpp"

namespace loom::sparse::unified {

#define LOOM_INSTANTIATE_FUSEDMM_CUDA(V, I) LOOM_INSTANTIATE_FUSEDMM_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_CUDA)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_CUDA)

}  // namespace loom::sparse::unified
