// fusedmm_with and a user's edge functor compiled by nvcc, as a user's .cu file would.
#include "loom/sparse/fusedmm_custom.hpp"
#include "sparse/fusedmm_edge.hpp"

namespace loom::test {

void fusedmm_leaky_relu_from_cuda(const matrix::Csr<double, int32>& A,
                                  const matrix::Dense<double>& X, const matrix::Dense<double>& Y,
                                  const matrix::Dense<double>& W, matrix::Dense<double>& Z)
{
    sparse::fusedmm_with(LeakyReluEdge{}, A, X, Y, W, Z);
}

}  // namespace loom::test
