// OpenMP ParILUT / ParICT pattern search in the executor's memory (threshold_unified.hpp).
#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "sparse/ilu/threshold_search.hpp"
#include "sparse/ilu/threshold_unified.hpp"

namespace loom::sparse::omp {

LOOM_DEFINE_ILU_THRESHOLD_SEARCH(OmpExecutor)

#define LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_OMP(V, I) \
    LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_OMP)

}  // namespace loom::sparse::omp
