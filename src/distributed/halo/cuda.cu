// CUDA halo gather (the unified kernel).
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "distributed/halo/unified.hpp"

namespace loom::distributed::cuda {

template <typename V, typename I>
void gather_rows(const CudaExecutor& exec, const matrix::Dense<V>& x, const Array<I>& rows,
                 matrix::Dense<V>& out)
{
    unified::gather_rows(exec, x, rows, out);
}

#define LOOM_INSTANTIATE_HALO_CUDA(V, I) LOOM_INSTANTIATE_HALO_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_HALO_CUDA)

}  // namespace loom::distributed::cuda
