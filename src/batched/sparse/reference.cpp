// Batched sparse on the reference executor: the team launches of drivers.hpp run one team
// after the other, a team being the calling thread. (The oracle the tests hold the batched
// results to is the loop of single-matrix reference kernels over the batch.)
#include "base/instantiate.hpp"
#include "batched/sparse/drivers.hpp"

namespace loom::batched::bsparse::team {

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BATCH_SPARSE_KERNELS, ReferenceExecutor)

}  // namespace loom::batched::bsparse::team
