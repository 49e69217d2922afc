// Per-backend entry points of the SpMV family, declared once with one signature for every
// backend. spmv.cpp checks arguments and dispatches; reference.cpp, omp.cpp, cuda.cu and
// cusparse.cu define them. Arguments arrive checked: shapes fit op(A), one executor.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"
#include "loom/sparse/spmv.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_SPMV_KERNELS(Exec)                                                        \
    template <typename V, typename I>                                                          \
    void spmv_csr(const Exec& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,           \
                  const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y,                     \
                  const SpmvOptions& options);                                                 \
    template <typename V, typename I>                                                          \
    void spmv_coo(const Exec& exec, Mode mode, V alpha, const matrix::Coo<V, I>& A,           \
                  const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y);                    \
    template <typename V, typename I>                                                          \
    void spmv_ell(const Exec& exec, Mode mode, V alpha, const matrix::Ell<V, I>& A,           \
                  const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y);                    \
    template <typename V, typename I>                                                          \
    void spmv_sellp(const Exec& exec, Mode mode, V alpha, const matrix::Sellp<V, I>& A,       \
                    const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y);                  \
    /* the algorithm `automatic` resolves to for A on this backend */                          \
    template <typename V, typename I>                                                          \
    SpmvAlgorithm choose_csr_algorithm(const Exec& exec, const matrix::Csr<V, I>& A)

#define LOOM_INSTANTIATE_SPMV_KERNELS(Exec, V, I)                                              \
    template void spmv_csr(const Exec&, Mode, V, const matrix::Csr<V, I>&,                     \
                           const matrix::Dense<V>&, V, matrix::Dense<V>&, const SpmvOptions&); \
    template void spmv_coo(const Exec&, Mode, V, const matrix::Coo<V, I>&,                     \
                           const matrix::Dense<V>&, V, matrix::Dense<V>&);                     \
    template void spmv_ell(const Exec&, Mode, V, const matrix::Ell<V, I>&,                     \
                           const matrix::Dense<V>&, V, matrix::Dense<V>&);                     \
    template void spmv_sellp(const Exec&, Mode, V, const matrix::Sellp<V, I>&,                 \
                             const matrix::Dense<V>&, V, matrix::Dense<V>&);                   \
    template SpmvAlgorithm choose_csr_algorithm(const Exec&, const matrix::Csr<V, I>&)

LOOM_DECLARE_ON_EACH_BACKEND(loom::sparse, LOOM_DECLARE_SPMV_KERNELS)
namespace loom::sparse::cuda {
/// Whether A's rows are irregular or all long, so that kernels splitting the work by rows
/// leave it unequal (`automatic` balances by nonzeros there, or bins the rows of a small
/// matrix, or lets stream's 32 lanes per row take long rows); SpMM's `automatic` reads it.
/// Cached with A's row statistics.
template <typename V, typename I>
bool rows_need_balancing(const CudaExecutor& exec, const matrix::Csr<V, I>& A);
/// cuSPARSE's SpMV (cusparse.cu), selected by SpmvAlgorithm::vendor.
template <typename V, typename I>
void spmv_csr_vendor(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                     const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y);
}  // namespace loom::sparse::cuda
