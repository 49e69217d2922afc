// The symbolic phase in the executor's memory, written once for OpenMP and CUDA: F's analysis
// (analysis_unified.hpp) and ParILUT / ParICT's pattern search (threshold_unified.hpp); the
// entry points ilu.cpp dispatches to.
#pragma once

#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "sparse/ilu/kernels.hpp"

namespace loom::sparse::detail {

/// F's pattern analysed in the executor's memory: what IluState keeps of it, and the zero
/// factors on their patterns (U empty for IC kinds).
template <typename V, typename I>
struct FactorAnalysis {
    Array<I> diag;
    Array<I> gather_ptrs;
    Array<I> sources;
    Array<I> l_index;
    Array<I> u_index;
    matrix::Csr<V, I> l;
    matrix::Csr<V, I> u;
};

}  // namespace loom::sparse::detail

/// ilu_analyse: F's analysis for A (IC: its lower triangle) on F's pattern (sorted rows,
/// every diagonal entry; its values are not read).
/// ilu_threshold_base: A on the base pattern, the ILU(0) or IC(0) pattern with every
/// diagonal entry, holding the values the numeric phase gathers onto it.
/// ilu_threshold_search: F's pattern grown from that by the search (rows sorted, every
/// diagonal entry); F's values are left unset (the numeric phase computes them).
#define LOOM_DECLARE_ILU_THRESHOLD_SEARCH(Exec)                                                 \
    template <typename V, typename I>                                                          \
    detail::FactorAnalysis<V, I> ilu_analyse(const Exec& exec, const matrix::Csr<V, I>& A,     \
                                             const matrix::Csr<V, I>& F, bool cholesky);       \
    template <typename V, typename I>                                                          \
    matrix::Csr<V, I> ilu_threshold_base(const Exec& exec, const matrix::Csr<V, I>& A,         \
                                         bool cholesky);                                       \
    template <typename V, typename I>                                                          \
    matrix::Csr<V, I> ilu_threshold_search(const Exec& exec, const matrix::Csr<V, I>& a_base,  \
                                           const detail::ThresholdParams& params)

#define LOOM_INSTANTIATE_ILU_THRESHOLD_SEARCH(Exec, V, I)                                       \
    template detail::FactorAnalysis<V, I> ilu_analyse(const Exec&, const matrix::Csr<V, I>&,   \
                                                      const matrix::Csr<V, I>&, bool);         \
    template matrix::Csr<V, I> ilu_threshold_base(const Exec&, const matrix::Csr<V, I>&, bool); \
    template matrix::Csr<V, I> ilu_threshold_search(const Exec&, const matrix::Csr<V, I>&,     \
                                                    const detail::ThresholdParams&);

namespace loom::sparse::omp {
LOOM_DECLARE_ILU_THRESHOLD_SEARCH(OmpExecutor);
}
namespace loom::sparse::cuda {
LOOM_DECLARE_ILU_THRESHOLD_SEARCH(CudaExecutor);
}
