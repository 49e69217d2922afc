// The user-supplied edge operator of the FusedMM tests, and its CUDA run (compiled by nvcc in
// fusedmm_custom.cu, as a user's own .cu file would).
#pragma once

#include "loom/launch/macros.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::test {

/// A leaky ReLU of the dot product, scaled by a_ij.
struct LeakyReluEdge {
    template <typename V>
    LOOM_HOST_DEVICE V operator()(V dot, V a) const
    {
        return a * (dot > V{0} ? dot : V{0.2} * dot);
    }
};

/// sparse::fusedmm_with(LeakyReluEdge{}, ...) on the executor of A, from a .cu file.
void fusedmm_leaky_relu_from_cuda(const matrix::Csr<double, int32>& A,
                                  const matrix::Dense<double>& X, const matrix::Dense<double>& Y,
                                  const matrix::Dense<double>& W, matrix::Dense<double>& Z);

}  // namespace loom::test
