// The CUDA batched bicgstab and gmres solves (cuda_solve.cuh): per method a kernel per
// preconditioner for CSR batches, one for ELL and one for heterogeneous batches. (A translation
// unit per pair of methods: nvcc's fixed cost per unit is a third of a method's.)
#include "batched/sparse/cuda_solve.cuh"

namespace loom::batched::bsparse::cuda {

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVES,
                                      KrylovMethod::bicgstab)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVES,
                                      KrylovMethod::gmres)

}  // namespace loom::batched::bsparse::cuda
