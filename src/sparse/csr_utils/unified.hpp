// The CSR utilities that are one independent update per entry, written once for OpenMP and
// CUDA on the unified launchers (base/parallel.hpp): kernels.hpp names them for both backends,
// omp.cpp and cuda.cu instantiate them.
#pragma once

#include "base/parallel.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::sparse::unified {

/// Every entry of A times the factor of its column, s(col, 0).
template <typename Exec, typename V, typename I>
void scale_columns(const Exec& exec, matrix::Csr<V, I>& A, const matrix::Dense<V>& s)
{
    const I* cols = A.col_idxs().data();
    const auto values = loom::detail::kernel_data(exec, A.values().data());
    const auto scale = loom::detail::kernel_data(exec, s.data());
    const size_type stride = s.stride();
    loom::detail::parallel_for(
        exec, A.nnz(), [=] LOOM_HOST_DEVICE(size_type k) { values[k] *= scale[cols[k] * stride]; },
        "loom::sparse::scale_columns");
}

}  // namespace loom::sparse::unified
