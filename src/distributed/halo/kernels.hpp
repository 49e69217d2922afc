// Per-backend entry points of the halo exchange's one kernel: gathering the rows a rank sends
// to its neighbours into one contiguous buffer (distributed/matrix.cpp dispatches).
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/matrix/dense.hpp"

#define LOOM_INSTANTIATE_HALO_KERNELS(Exec, V, I)                                    \
    template void gather_rows(const Exec&, const matrix::Dense<V>&, const Array<I>&, \
                              matrix::Dense<V>&);

namespace loom::distributed {

namespace reference {
/// out(t, :) = x(rows[t], :); out is rows.size() x x.cols().
template <typename V, typename I>
void gather_rows(const ReferenceExecutor& exec, const matrix::Dense<V>& x, const Array<I>& rows,
                 matrix::Dense<V>& out);
}  // namespace reference

/// The same for OpenMP and CUDA, written once (unified.hpp; omp.cpp and cuda.cu instantiate
/// it for their executor).
namespace unified {
template <typename Exec, typename V, typename I>
void gather_rows(const Exec& exec, const matrix::Dense<V>& x, const Array<I>& rows,
                 matrix::Dense<V>& out);
}  // namespace unified
namespace omp {
using unified::gather_rows;
}
namespace cuda {
using unified::gather_rows;
}

}  // namespace loom::distributed
