// ParILUT / ParICT's pattern search in the executor's memory (threshold_unified.hpp, written
// once for OpenMP and CUDA): the entry points ilu.cpp dispatches to.
#pragma once

#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "sparse/ilu/kernels.hpp"

/// ilu_threshold_base: A on the base pattern, the ILU(0) or IC(0) pattern with every
/// diagonal entry, holding the values the numeric phase gathers onto it.
/// ilu_threshold_search: F's pattern grown from that by the search (rows sorted, every
/// diagonal entry); F's values are left unset (the numeric phase computes them).
#define LOOM_DECLARE_ILU_THRESHOLD_SEARCH(Exec)                                                 \
    template <typename V, typename I>                                                          \
    matrix::Csr<V, I> ilu_threshold_base(const Exec& exec, const matrix::Csr<V, I>& A,         \
                                         bool cholesky);                                       \
    template <typename V, typename I>                                                          \
    matrix::Csr<V, I> ilu_threshold_search(const Exec& exec, const matrix::Csr<V, I>& a_base,  \
                                           const detail::ThresholdParams& params)

#define LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH(Exec, V, I)                                       \
    template matrix::Csr<V, I> ilu_threshold_base(const Exec&, const matrix::Csr<V, I>&, bool); \
    template matrix::Csr<V, I> ilu_threshold_search(const Exec&, const matrix::Csr<V, I>&,     \
                                                    const detail::ThresholdParams&);

namespace loom::sparse::omp {
LOOM_DECLARE_ILU_THRESHOLD_SEARCH(OmpExecutor);
}
namespace loom::sparse::cuda {
LOOM_DECLARE_ILU_THRESHOLD_SEARCH(CudaExecutor);
}
