// Per-backend entry points of the FusedMM family with a built-in edge operator, declared once
// with one signature for every backend. fusedmm.cpp checks arguments and dispatches; each
// backend runs the one team kernel of loom/sparse/fusedmm_custom.hpp with the operator's
// functor. Real value types only.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/sparse/fusedmm_custom.hpp"

#define LOOM_DECLARE_FUSEDMM_KERNELS(Exec)                                    \
    template <typename V, typename I>                                         \
    void fusedmm_csr(const Exec& exec, EdgeOp op, const matrix::Csr<V, I>& A, \
                     const matrix::Dense<V>& X, const matrix::Dense<V>& Y,    \
                     const matrix::Dense<V>& W, matrix::Dense<V>& Z)

namespace loom::sparse {

/// The body of every backend's fusedmm_csr: the team kernel with op's functor on exec.
template <typename Exec, typename V, typename I>
void run_fusedmm(const Exec& exec, EdgeOp op, const matrix::Csr<V, I>& A, const matrix::Dense<V>& X,
                 const matrix::Dense<V>& Y, const matrix::Dense<V>& W, matrix::Dense<V>& Z)
{
    with_edge_functor(op, [&](auto edge) { detail::launch_fusedmm(exec, edge, A, X, Y, W, Z); });
}

namespace reference {
LOOM_DECLARE_FUSEDMM_KERNELS(ReferenceExecutor);
}
namespace omp {
LOOM_DECLARE_FUSEDMM_KERNELS(OmpExecutor);
}
namespace cuda {
LOOM_DECLARE_FUSEDMM_KERNELS(CudaExecutor);
}

}  // namespace loom::sparse
