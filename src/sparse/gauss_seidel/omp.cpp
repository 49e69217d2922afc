// OpenMP multicolor sweep: one team of threads for the sweep, the clusters of a color split
// among them, a barrier between colors.
#include "base/instantiate.hpp"
#include "sparse/gauss_seidel/kernels.hpp"

namespace loom::sparse::omp {

template <typename V, typename I>
void gauss_seidel_sweep(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                        const Array<V>& inverse_diagonal, const SweepOrder<I>& order,
                        SweepDirection direction, V omega, const matrix::Dense<V>& b,
                        matrix::Dense<V>& x)
{
    const auto s = gauss_seidel::sweep_data<V>(A, inverse_diagonal, order, omega, b, x);
    const bool backward = direction == SweepDirection::backward;
    const auto colors = static_cast<long long>(order.num_colors());
    const auto* color_ptrs = order.color_ptrs.data();
#pragma omp parallel num_threads(exec.num_threads())
    for (long long t = 0; t < colors; ++t) {
        const auto color = backward ? colors - 1 - t : t;
        const auto begin = static_cast<long long>(color_ptrs[color]);
        const auto end = static_cast<long long>(color_ptrs[color + 1]);
#pragma omp for schedule(static)
        for (long long k = begin; k < end; ++k) gauss_seidel::relax_cluster(s, k, backward);
    }
}

#define LOOM_INSTANTIATE_GAUSS_SEIDEL_OMP(V, I) \
    LOOM_INSTANTIATE_GAUSS_SEIDEL_KERNELS(OmpExecutor, V, I);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GAUSS_SEIDEL_OMP)

}  // namespace loom::sparse::omp
