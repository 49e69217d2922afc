// The CUDA batched cg and richardson solves (cuda_solve.cuh): per method a kernel per
// preconditioner for CSR batches, one for ELL and one for heterogeneous batches. (A translation
// unit per pair of methods: nvcc's fixed cost per unit is a third of a method's.)
#include "batched/sparse/cuda_solve.cuh"

namespace loom::batched::bsparse::cuda {

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVES, KrylovMethod::cg)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BATCH_SPARSE_CUDA_SOLVES,
                                      KrylovMethod::richardson)

}  // namespace loom::batched::bsparse::cuda
