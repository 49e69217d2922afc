// Approximate minimum degree (AMD): a fill-reducing reordering for sparse Cholesky, LU and
// their incomplete variants, computed by SuiteSparse AMD (Amestoy, Davis and Duff).
//
// The graph is the symmetrized pattern of a square Csr (values and self-loops ignored).
// SuiteSparse is an optional dependency (Debian libsuitesparse-dev, found by CMake like
// CHOLMOD); a build without it throws NotCompiled.
//
// The ordering runs on the host whatever A's executor (a CUDA matrix's pattern is copied to
// the host and the permutation copied back).
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/export.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::graph {

/// Whether this build of Loom has SuiteSparse AMD.
LOOM_EXPORT bool amd_available();

/// The AMD permutation of A's graph on A's executor, in graph::rcm's convention: perm[k] is
/// the original index of the vertex that becomes vertex k (matrix::Permutation applies it:
/// B = P A P^T). BadInput for a non-square matrix or one without an executor; NotCompiled
/// without SuiteSparse AMD.
template <typename V, typename I>
LOOM_EXPORT Array<I> amd(const matrix::Csr<V, I>& A);

}  // namespace loom::graph

LOOM_PUBLIC_END
