// Per-backend entry points of the FusedMM family with a built-in edge operator. Every backend
// runs the one team kernel of loom/sparse/fusedmm_custom.hpp with the operator's functor, so
// the entry point is one template (unified.hpp) that reference.cpp, omp.cpp and cuda.cu
// instantiate for their executor; fusedmm.cpp checks arguments and dispatches. Real value
// types only.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/sparse/fusedmm_custom.hpp"

#define LOOM_INSTANTIATE_FUSEDMM_KERNELS(Exec, V, I)                            \
    template void fusedmm_csr(const Exec&, EdgeOp, const matrix::Csr<V, I>&,    \
                              const matrix::Dense<V>&, const matrix::Dense<V>&, \
                              const matrix::Dense<V>&, matrix::Dense<V>&);

namespace loom::sparse {

namespace unified {
template <typename Exec, typename V, typename I>
void fusedmm_csr(const Exec& exec, EdgeOp op, const matrix::Csr<V, I>& A, const matrix::Dense<V>& X,
                 const matrix::Dense<V>& Y, const matrix::Dense<V>& W, matrix::Dense<V>& Z);
}  // namespace unified
namespace reference {
using unified::fusedmm_csr;
}
namespace omp {
using unified::fusedmm_csr;
}
namespace cuda {
using unified::fusedmm_csr;
}

}  // namespace loom::sparse
