// Per-backend entry points of SpAdd, declared once with the same signature for every
// backend; spadd.cpp checks the arguments, keeps the handle and dispatches.
//
// The symbolic phase records, for every entry of A and of B, its position within its row
// of C (0 for the row's first entry): the numeric phase then adds each entry into its slot
// without looking at a column index, and these offsets fit the index type whatever nnz(C).
#pragma once

#include <memory>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/spadd.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_SPADD_KERNELS(Exec)                                                       \
    /* C: replaced by the pattern of A + B (values allocated, not set); positions: one per    \
       entry of A and of B, its offset within its row of C. */                                 \
    template <typename V, typename I>                                                          \
    void spadd_symbolic(const Exec& exec, const matrix::Csr<V, I>& A,                          \
                        const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C,                      \
                        Array<I>& a_positions, Array<I>& b_positions);                          \
    /* C's values = alpha A + beta B through the positions of the symbolic phase */            \
    template <typename V, typename I>                                                          \
    void spadd_numeric(const Exec& exec, V alpha, const matrix::Csr<V, I>& A, V beta,         \
                       const matrix::Csr<V, I>& B, const Array<I>& a_positions,                \
                       const Array<I>& b_positions, matrix::Csr<V, I>& C)

#define LOOM_INSTANTIATE_SPADD_KERNELS(Exec, V, I)                                             \
    template void spadd_symbolic(const Exec&, const matrix::Csr<V, I>&,                        \
                                 const matrix::Csr<V, I>&, matrix::Csr<V, I>&, Array<I>&,      \
                                 Array<I>&);                                                   \
    template void spadd_numeric(const Exec&, V, const matrix::Csr<V, I>&, V,                   \
                                const matrix::Csr<V, I>&, const Array<I>&, const Array<I>&,    \
                                matrix::Csr<V, I>&);

LOOM_DECLARE_ON_EACH_BACKEND(loom::sparse, LOOM_DECLARE_SPADD_KERNELS)
namespace loom::sparse::cuda {

/// cuSPARSE's csrgeam2 (cusparse.cu), for 32-bit indices and rows sorted without
/// duplicates (checked by the caller): C's pattern, and what the numeric phase reuses.
template <typename V, typename I>
std::shared_ptr<void> spadd_vendor_symbolic(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                                            const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);
/// csrgeam2 itself, which writes C's columns and values.
template <typename V, typename I>
void spadd_vendor_numeric(const CudaExecutor& exec, const std::shared_ptr<void>& vendor, V alpha,
                          const matrix::Csr<V, I>& A, V beta, const matrix::Csr<V, I>& B,
                          matrix::Csr<V, I>& C);
}  // namespace loom::sparse::cuda
