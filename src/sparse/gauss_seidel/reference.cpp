// Sequential multicolor sweep, the oracle: the colors, their clusters and the clusters' rows
// in the order the parallel backends use, one after the other.
#include "base/instantiate.hpp"
#include "sparse/gauss_seidel/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void gauss_seidel_sweep(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                        const Array<V>& inverse_diagonal, const SweepOrder<I>& order,
                        SweepDirection direction, V omega, const matrix::Dense<V>& b,
                        matrix::Dense<V>& x)
{
    const auto s = gauss_seidel::sweep_data<V>(A, inverse_diagonal, order, omega, b, x);
    const bool backward = direction == SweepDirection::backward;
    const auto colors = order.num_colors();
    for (size_type t = 0; t < colors; ++t) {
        const auto color = backward ? colors - 1 - t : t;
        const auto begin = order.color_ptrs[color];
        const auto end = order.color_ptrs[color + 1];
        for (size_type u = 0; u < end - begin; ++u) {
            // Inside a color any order gives the same bits; reversing it keeps the backward
            // sweep the exact mirror of the forward one.
            const auto k = backward ? end - 1 - u : begin + u;
            gauss_seidel::relax_cluster(s, static_cast<long long>(k), backward);
        }
    }
}

#define LOOM_INSTANTIATE_GAUSS_SEIDEL_REFERENCE(V, I) \
    LOOM_INSTANTIATE_GAUSS_SEIDEL_KERNELS(ReferenceExecutor, V, I);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GAUSS_SEIDEL_REFERENCE)

}  // namespace loom::sparse::reference
