// Reference SpTRSV: the rows one after the other, forward for a lower op(T), backward for an
// upper one, which is an order every dependency respects.
#include "base/instantiate.hpp"
#include "sparse/sptrsv/host_row.hpp"
#include "sparse/sptrsv/kernels.hpp"
#include "sparse/sptrsv/supernodal.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void sptrsv_level_set(const ReferenceExecutor&, const detail::TriangularRows<V, I>& rows,
                      const detail::LevelSchedule<I>&, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x)
{
    detail::solve_rows_in_order(rows, b, x);
}

LOOM_DEFINE_SPTRSV_SUPERNODAL(ReferenceExecutor)

#define LOOM_INSTANTIATE(V, I) LOOM_INSTANTIATE_SPTRSV_KERNELS(ReferenceExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse::reference
