// The lower or upper triangle of a CSR matrix (MATLAB's tril / triu), e.g. to hand a part of
// a matrix to a triangular solve (loom/sparse/sptrsv.hpp).
#pragma once

#include "loom/blas/types.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::sparse {

/// The entries of A on and below (lower) or on and above (upper) the diagonal, in their
/// order within each row; without the diagonal ones when `with_diagonal` is false. A new
/// matrix of A's shape on A's executor. Runs on the host (A's pattern travels there and
/// back): a preparation step, not a kernel.
template <typename V, typename I>
matrix::Csr<V, I> triangle(const matrix::Csr<V, I>& A, blas::Uplo uplo, bool with_diagonal = true);

}  // namespace loom::sparse
