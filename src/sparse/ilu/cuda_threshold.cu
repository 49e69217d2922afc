// CUDA ParILUT / ParICT pattern search on the device (threshold_unified.hpp).
#include "base/cuda/parallel.cuh"
#include "base/cuda/parallel_reduce.cuh"
#include "base/instantiate.hpp"
#include "sparse/ilu/threshold_search.hpp"
#include "sparse/ilu/threshold_unified.hpp"

namespace loom::sparse::cuda {

LOOM_DEFINE_ILU_THRESHOLD_SEARCH(CudaExecutor)

#define LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_CUDA(V, I) \
    LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH_CUDA)

}  // namespace loom::sparse::cuda
