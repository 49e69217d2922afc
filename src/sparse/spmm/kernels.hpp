// Per-backend entry points of the SpMM family, declared once with one signature for every
// backend. spmm.cpp checks arguments and dispatches; reference.cpp, omp.cpp, cuda.cu and
// cusparse.cu define them. Arguments arrive checked: B is op(A).cols x k, C op(A).rows x k,
// one executor, alpha != 0 and C non-empty. The OpenMP kernel gets Mode::none or
// Mode::conjugate (spmm.cpp transposes A for it); the others take every mode. V may be a
// 16-bit storage type (then Mode::none or conjugate only): scalars and sums in
// compute_type_t<V> (float), every value converted on load and C rounded once on store.
#pragma once

#include "loom/base/executor.hpp"
#include "loom/base/half.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmm.hpp"
#include "sparse/spmm/operand.hpp"

#define LOOM_DECLARE_SPMM_KERNELS(Exec)                                                        \
    template <typename V, typename I>                                                          \
    void spmm_csr(const Exec& exec, Mode mode, compute_type_t<V> alpha,                        \
                  const matrix::Csr<V, I>& A, DenseOperand<const V> B, compute_type_t<V> beta, \
                  DenseOperand<V> C, size_type k, SpmmAlgorithm algorithm);                    \
    /* the algorithm `automatic` resolves to for A and k columns on this backend */            \
    template <typename V, typename I>                                                          \
    SpmmAlgorithm choose_spmm(const Exec& exec, const matrix::Csr<V, I>& A, size_type k)

namespace loom::sparse::reference {
LOOM_DECLARE_SPMM_KERNELS(ReferenceExecutor);
}
namespace loom::sparse::omp {
LOOM_DECLARE_SPMM_KERNELS(OmpExecutor);
}
namespace loom::sparse::cuda {
LOOM_DECLARE_SPMM_KERNELS(CudaExecutor);
/// cuSPARSE's SpMM (cusparse.cu), selected by SpmmAlgorithm::vendor; takes every mode.
template <typename V, typename I>
void spmm_csr_vendor(const CudaExecutor& exec, Mode mode, compute_type_t<V> alpha,
                     const matrix::Csr<V, I>& A, DenseOperand<const V> B, compute_type_t<V> beta,
                     DenseOperand<V> C, size_type k,
                     VendorSpmmAlgorithm algorithm = VendorSpmmAlgorithm::default_algorithm);
}  // namespace loom::sparse::cuda
