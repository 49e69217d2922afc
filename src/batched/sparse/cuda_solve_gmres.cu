// The CUDA batched gmres solves (cuda_solve.cuh), one kernel per preconditioner and kind of batch.
#include "batched/sparse/cuda_solve.cuh"

namespace loom::batched::bsparse::cuda {

#define LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_GMRES(V, I)                                         \
    LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVES(KrylovMethod::gmres, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_GMRES)

}  // namespace loom::batched::bsparse::cuda
