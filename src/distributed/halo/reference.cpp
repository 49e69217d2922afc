// Sequential halo gather.
#include "base/instantiate.hpp"
#include "distributed/halo/kernels.hpp"

namespace loom::distributed::reference {

template <typename V, typename I>
void gather_rows(const ReferenceExecutor&, const matrix::Dense<V>& x, const Array<I>& rows,
                 matrix::Dense<V>& out)
{
    for (size_type t = 0; t < rows.size(); ++t) {
        for (size_type j = 0; j < x.cols(); ++j) out.at(t, j) = x.at(rows[t], j);
    }
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_HALO_KERNELS, ReferenceExecutor)

}  // namespace loom::distributed::reference
