// The halo gather written once for OpenMP and CUDA (base/parallel.hpp).
#pragma once

#include "base/parallel.hpp"
#include "distributed/halo/kernels.hpp"

namespace loom::distributed::unified {

template <typename Exec, typename V, typename I>
void gather_rows(const Exec& exec, const matrix::Dense<V>& x, const Array<I>& rows,
                 matrix::Dense<V>& out)
{
    const auto xd = loom::detail::kernel_data(exec, x.data());
    const auto od = loom::detail::kernel_data(exec, out.data());
    const I* rd = rows.data();
    const size_type xs = x.stride();
    const size_type os = out.stride();
    loom::detail::parallel_for(
        exec, rows.size(), x.cols(),
        [=] LOOM_HOST_DEVICE(size_type t, size_type j) { od[t * os + j] = xd[rd[t] * xs + j]; },
        "loom::distributed::Matrix::apply");
}

}  // namespace loom::distributed::unified
