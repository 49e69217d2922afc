// What the cuSPARSE adapters of SpMV, SpMM and SDDMM share on top of base/cuda/cusparse.hpp:
// owned descriptors, Loom's Mode as a cuSPARSE operation, and the workspace cached in A's
// CUDA plan.
#pragma once

#include <cstddef>

#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "sparse/spmv/cuda_plan.hpp"

namespace loom::sparse::cuda {

/// Owned generic-API descriptors.
using SpMat =
    loom::cuda::CusparseDescriptor<cusparseConstSpMatDescr_t, &loom::cuda::destroy_sp_mat>;
using ConstDnVec =
    loom::cuda::CusparseDescriptor<cusparseConstDnVecDescr_t, &loom::cuda::destroy_dn_vec>;
using DnVec = loom::cuda::CusparseDescriptor<cusparseDnVecDescr_t, &loom::cuda::destroy_dn_vec>;
using ConstDnMat =
    loom::cuda::CusparseDescriptor<cusparseConstDnMatDescr_t, &loom::cuda::destroy_dn_mat>;
using DnMat = loom::cuda::CusparseDescriptor<cusparseDnMatDescr_t, &loom::cuda::destroy_dn_mat>;

/// op(A) for cuSPARSE; Mode::conjugate (which it lacks) is the caller's to refuse.
inline cusparseOperation_t cusparse_operation(Mode mode, bool complex_values)
{
    switch (mode) {
    case Mode::transpose: return CUSPARSE_OPERATION_TRANSPOSE;
    // A^H of a real matrix is A^T; asked as such so that no real-type restriction applies.
    case Mode::conj_transpose:
        return complex_values ? CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE
                              : CUSPARSE_OPERATION_TRANSPOSE;
    default: return CUSPARSE_OPERATION_NON_TRANSPOSE;
    }
}

/// A's cached vendor workspace, grown to at least `bytes` (a null pointer when none is needed).
template <typename V, typename I>
void* vendor_workspace(const matrix::Csr<V, I>& A, std::size_t bytes)
{
    if (bytes == 0) return nullptr;
    const auto plan = plan_of(A);
    if (plan->vendor_workspace.size() < static_cast<size_type>(bytes)) {
        plan->vendor_workspace = Array<std::byte>(A.executor(), static_cast<size_type>(bytes));
    }
    return plan->vendor_workspace.data();
}

}  // namespace loom::sparse::cuda
