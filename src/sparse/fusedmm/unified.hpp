// The body of every backend's fusedmm_csr: the team kernel with op's functor on exec.
#pragma once

#include "base/instantiate_storage.hpp"
#include "sparse/fusedmm/kernels.hpp"

namespace loom::sparse::unified {

template <typename Exec, typename V, typename I>
void fusedmm_csr(const Exec& exec, EdgeOp op, const matrix::Csr<V, I>& A, const matrix::Dense<V>& X,
                 const matrix::Dense<V>& Y, const matrix::Dense<V>& W, matrix::Dense<V>& Z)
{
    with_edge_functor(op, [&](auto edge) { detail::launch_fusedmm(exec, edge, A, X, Y, W, Z); });
}

}  // namespace loom::sparse::unified
