// Eigen as the CPU peer of Loom's SpMV: Eigen::SparseMatrix<V, RowMajor> times a vector,
// which Eigen parallelises over rows with OpenMP. Optional: built when CMake finds Eigen3.
#pragma once

#include <functional>

#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::bench {

/// Whether this build has the Eigen peer.
bool eigen_available() noexcept;

/// The call computing y += A * x with Eigen on `threads` threads (Eigen::setNbThreads).
/// Eigen maps A's arrays in place (no copy, so both libraries read the same memory). A, x and
/// y live on a host executor; x and y are single contiguous columns. NotSupported without
/// Eigen or with data on a GPU.
template <typename V, typename I>
std::function<void()> eigen_spmv(const matrix::Csr<V, I>& A, const matrix::Dense<V>& x,
                                 matrix::Dense<V>& y, int threads);

}  // namespace loom::bench
