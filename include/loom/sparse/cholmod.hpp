// A supernodal Cholesky factorization by CHOLMOD (SuiteSparse), an optional dependency: the
// factors that supernodal SpTRSV is made for, with CHOLMOD's supernode partition, so that
// the SpTRSV analysis need not detect it:
//
//     if (sparse::cholmod_available()) {
//         const auto f = sparse::cholmod_cholesky(A);          // P A P^T = L L^T
//         sparse::SptrsvHandle<double> handle({.algorithm = SptrsvAlgorithm::supernodal,
//                                              .supernodes = f.supernodes});
//         sparse::sptrsv_symbolic(handle, f.L);
//     }
#pragma once

#include <vector>

#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// P A P^T = L L^T: L lower triangular (rows sorted) on A's executor; row/column k of
/// P A P^T is row/column permutation[k] of A; supernode s of L holds columns
/// supernodes[s] .. supernodes[s + 1] - 1.
template <typename V, typename I>
struct CholeskyFactor {
    matrix::Csr<V, I> L;
    std::vector<size_type> permutation;
    std::vector<size_type> supernodes;
};

/// Whether this build of Loom has CHOLMOD.
bool cholmod_available();

/// CHOLMOD's supernodal Cholesky factorization of the symmetric positive definite A (read
/// from its upper triangle), with CHOLMOD's fill-reducing ordering. NotSupported without
/// CHOLMOD or for complex values; DimensionMismatch when A is not square; NumericalError
/// naming the column where A is found not positive definite.
template <typename V, typename I>
LOOM_EXPORT CholeskyFactor<V, I> cholmod_cholesky(const matrix::Csr<V, I>& A);

}  // namespace loom::sparse

LOOM_PUBLIC_END
