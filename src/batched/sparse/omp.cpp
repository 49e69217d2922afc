// Batched sparse on OpenMP: the team launches of drivers.hpp, the teams (one per matrix or
// system) split statically over the executor's threads, each team one thread.
#include "base/instantiate.hpp"
#include "batched/sparse/drivers.hpp"

namespace loom::batched::bsparse::team {

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BATCH_SPARSE_KERNELS, OmpExecutor)

}  // namespace loom::batched::bsparse::team
