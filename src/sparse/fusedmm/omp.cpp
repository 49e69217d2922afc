// FusedMM on OpenMP: the team kernels, teams (chunks of nonzeros of A: a hub row is split
// too) spread evenly over the threads.
#include "sparse/fusedmm/unified.hpp"

namespace loom::sparse::unified {

#define LOOM_INSTANTIATE_FUSEDMM_OMP(V, I) LOOM_INSTANTIATE_FUSEDMM_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_OMP)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_OMP)

}  // namespace loom::sparse::unified
