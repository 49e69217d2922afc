// Per-backend entry points of the halo exchange's one kernel: gathering the rows a rank sends
// to its neighbours into one contiguous buffer (distributed/matrix.cpp dispatches).
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/matrix/dense.hpp"

#define LOOM_DECLARE_HALO_KERNELS(Exec)                                                        \
    /* out(t, :) = x(rows[t], :); out is rows.size() x x.cols() */                            \
    template <typename V, typename I>                                                          \
    void gather_rows(const Exec& exec, const matrix::Dense<V>& x, const Array<I>& rows,        \
                     matrix::Dense<V>& out)

#define LOOM_INSTANTIATE_HALO_KERNELS(Exec, V, I)                                              \
    template void gather_rows(const Exec&, const matrix::Dense<V>&, const Array<I>&,           \
                              matrix::Dense<V>&);

namespace loom::distributed::reference {
LOOM_DECLARE_HALO_KERNELS(ReferenceExecutor);
}
namespace loom::distributed::omp {
LOOM_DECLARE_HALO_KERNELS(OmpExecutor);
}
namespace loom::distributed::cuda {
LOOM_DECLARE_HALO_KERNELS(CudaExecutor);
}
