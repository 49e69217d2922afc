// Per-backend entry points of the SDDMM family, declared once with one signature for every
// backend. sddmm.cpp checks arguments and dispatches; reference.cpp, omp.cpp, cuda.cu and
// cusparse.cu define them. Arguments arrive checked: X is S.rows x k, Y S.cols x k, one
// executor, S has entries. V may be a 16-bit storage type: scalars and dot products in
// compute_type_t<V> (float), S's values rounded once on store.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/base/half.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/sddmm.hpp"
#include "sparse/spmm/operand.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_SDDMM_KERNELS(Exec)                                               \
    template <typename V, typename I>                                                  \
    void sddmm_csr(const Exec& exec, compute_type_t<V> alpha, DenseOperand<const V> X, \
                   DenseOperand<const V> Y, size_type k, compute_type_t<V> beta,       \
                   matrix::Csr<V, I>& S, SddmmAlgorithm algorithm)

#define LOOM_INSTANTIATE_SDDMM_KERNELS(Exec, V, I)                                 \
    template void sddmm_csr(const Exec&, compute_type_t<V>, DenseOperand<const V>, \
                            DenseOperand<const V>, size_type, compute_type_t<V>,   \
                            matrix::Csr<V, I>&, SddmmAlgorithm);

LOOM_DECLARE_ON_EACH_BACKEND(loom::sparse, LOOM_DECLARE_SDDMM_KERNELS)
namespace loom::sparse::cuda {
/// cuSPARSE's SDDMM (cusparse.cu), selected by SddmmAlgorithm::vendor.
template <typename V, typename I>
void sddmm_csr_vendor(const CudaExecutor& exec, compute_type_t<V> alpha, DenseOperand<const V> X,
                      DenseOperand<const V> Y, size_type k, compute_type_t<V> beta,
                      matrix::Csr<V, I>& S);
}  // namespace loom::sparse::cuda
