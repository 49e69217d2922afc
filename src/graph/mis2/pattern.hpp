// What every graph kernel of a Csr needs first: a square matrix with an executor, and its
// pattern made symmetric (the graph kernels treat an entry (i, j) as the edge {i, j}).
#pragma once

#include "loom/base/executor.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::graph::detail {

/// A's executor; BadInput when A has none or is not square.
template <typename V, typename I>
const Executor& graph_executor(const char* where, const matrix::Csr<V, I>& A);

/// pattern(A) + pattern(A^T) on A's executor: sorted, distinct columns, self-loops kept;
/// the values are allocated but not set.
template <typename V, typename I>
matrix::Csr<V, I> symmetrized_pattern(const matrix::Csr<V, I>& A);

}  // namespace loom::graph::detail
