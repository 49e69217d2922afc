// Reverse Cuthill-McKee: a reordering that gathers a sparse matrix's entries near the
// diagonal (small bandwidth and profile), for incomplete factorizations and banded solvers.
//
// The graph is the symmetrized pattern of a square Csr (values and self-loops ignored).
// Every connected component is ordered from a pseudo-peripheral vertex (George and Liu),
// breadth first, neighbours by increasing degree (ties by index); the whole order is then
// reversed. The result is deterministic.
//
// The ordering is sequential by nature: it runs on the host whatever A's executor (a CUDA
// matrix's pattern is copied to the host and the permutation copied back).
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::graph {

/// The RCM permutation of A's graph on A's executor: perm[k] is the original index of the
/// vertex that becomes vertex k (matrix::Permutation applies it: B = P A P^T). BadInput for
/// a non-square matrix or one without an executor.
template <typename V, typename I>
LOOM_EXPORT Array<I> rcm(const matrix::Csr<V, I>& A);

/// max |i - j| over A's stored entries (0 without entries).
template <typename V, typename I>
LOOM_EXPORT size_type bandwidth(const matrix::Csr<V, I>& A);

/// The profile (envelope size): the sum over rows i of i - (the lowest column j <= i stored
/// in row i), rows without such a column counting 0.
template <typename V, typename I>
LOOM_EXPORT size_type profile(const matrix::Csr<V, I>& A);

}  // namespace loom::graph

LOOM_PUBLIC_END
