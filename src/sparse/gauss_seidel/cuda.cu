// CUDA multicolor sweep: a launch per color, a thread per cluster (per row in the point
// variant); the launches on the executor's stream order the colors.
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "sparse/gauss_seidel/kernels.hpp"

namespace loom::sparse::cuda {

template <typename V, typename I>
void gauss_seidel_sweep(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                        const Array<V>& inverse_diagonal, const SweepOrder<I>& order,
                        SweepDirection direction, V omega, const matrix::Dense<V>& b,
                        matrix::Dense<V>& x)
{
    using D = loom::cuda::device_type_t<V>;
    const auto s = gauss_seidel::sweep_data<D>(A, inverse_diagonal, order, omega, b, x);
    const bool backward = direction == SweepDirection::backward;
    const auto colors = order.num_colors();
    for (size_type t = 0; t < colors; ++t) {
        const auto color = backward ? colors - 1 - t : t;
        const auto begin = static_cast<long long>(order.color_ptrs[color]);
        const auto end = static_cast<long long>(order.color_ptrs[color + 1]);
        loom::cuda::parallel_for(
            exec, end - begin,
            [=] __device__(long long u) { gauss_seidel::relax_cluster(s, begin + u, backward); },
            "loom::sparse::gauss_seidel_sweep");
    }
}

#define LOOM_INSTANTIATE_GAUSS_SEIDEL_CUDA(V, I) \
    LOOM_INSTANTIATE_GAUSS_SEIDEL_KERNELS(CudaExecutor, V, I);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GAUSS_SEIDEL_CUDA)

}  // namespace loom::sparse::cuda
