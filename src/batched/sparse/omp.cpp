// Batched sparse on OpenMP: the team launches of drivers.hpp, the teams (one per matrix or
// system) split statically over the executor's threads, each team one thread.
#include "base/instantiate.hpp"
#include "batched/sparse/drivers.hpp"

namespace loom::batched::bsparse::omp {

LOOM_DEFINE_BATCH_SPARSE_TEAM_SPMV(OmpExecutor, 1, 1)
LOOM_DEFINE_BATCH_SPARSE_TEAM_SOLVES(OmpExecutor)

#define LOOM_INSTANTIATE_BATCH_SPARSE_OMP(V, I)                                                \
    LOOM_INSTANTIATE_BATCH_SPARSE_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BATCH_SPARSE_OMP)

}  // namespace loom::batched::bsparse::omp
