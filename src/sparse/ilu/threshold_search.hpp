// ParILUT / ParICT's pattern search in the executor's memory (threshold_unified.hpp, written
// once for OpenMP and CUDA): the entry points ilu.cpp dispatches to.
#pragma once

#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "sparse/ilu/kernels.hpp"

/// F's pattern grown from A on its base pattern (`a_base`: A's values gathered onto the ILU(0)
/// or IC(0) pattern, every diagonal entry present) whose diagonal positions are `diag`; F's
/// values are left unset (the numeric phase computes them).
#define LOOM_DECLARE_ILU_THRESHOLD_SEARCH(Exec)                                                 \
    template <typename V, typename I>                                                          \
    matrix::Csr<V, I> ilu_threshold_search(const Exec& exec, const matrix::Csr<V, I>& a_base,  \
                                           const Array<I>& diag,                               \
                                           const detail::ThresholdParams& params)

#define LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH(Exec, V, I)                                       \
    template matrix::Csr<V, I> ilu_threshold_search(const Exec&, const matrix::Csr<V, I>&,     \
                                                    const Array<I>&,                           \
                                                    const detail::ThresholdParams&);

namespace loom::sparse::omp {
LOOM_DECLARE_ILU_THRESHOLD_SEARCH(OmpExecutor);
}
namespace loom::sparse::cuda {
LOOM_DECLARE_ILU_THRESHOLD_SEARCH(CudaExecutor);
}
