// FusedMM on the reference backend: the team kernel run team after team.
#include "sparse/fusedmm/unified.hpp"

namespace loom::sparse::unified {

#define LOOM_INSTANTIATE_FUSEDMM_REFERENCE(V, I) LOOM_INSTANTIATE_FUSEDMM_KERNELS(ReferenceExecutor, V, I)
LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_REFERENCE)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FUSEDMM_REFERENCE)

}  // namespace loom::sparse::unified
