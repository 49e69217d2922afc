// OpenMP multigrid setup kernels (the unified ones, multigrid/kernels/unified.hpp).
#include "base/omp/launch.hpp"
#include "base/instantiate.hpp"
#include "multigrid/kernels/kernels.hpp"
#include "multigrid/kernels/unified.hpp"

namespace loom::multigrid::omp {

template <typename V, typename I>
void strength_row_nnz(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                      const matrix::Dense<V>& diagonal, double theta, Array<I>& row_nnz)
{
    unified::strength_row_nnz(exec, A, diagonal, theta, row_nnz);
}

template <typename V, typename I>
void strength_fill(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                   const matrix::Dense<V>& diagonal, double theta, matrix::Csr<V, I>& result)
{
    unified::strength_fill(exec, A, diagonal, theta, result);
}

template <typename V, typename I>
size_type l1_inverse_diagonal(const OmpExecutor& exec, const matrix::Csr<V, I>& A, Array<V>& inverse)
{
    return unified::l1_inverse_diagonal(exec, A, inverse);
}

template <typename V, typename I>
void tentative_pattern(const OmpExecutor& exec, const Array<I>& aggregate_of, size_type m,
                       matrix::Csr<V, I>& P)
{
    unified::tentative_pattern(exec, aggregate_of, m, P);
}

template <typename V, typename I>
size_type orthonormalize_aggregates(const OmpExecutor& exec, const matrix::Csr<V, I>& members,
                                    const matrix::Dense<V>& B, matrix::Csr<V, I>& P,
                                    matrix::Dense<V>& coarse)
{
    return unified::orthonormalize_aggregates(exec, members, B, P, coarse);
}

template <typename I>
void spread_blocks(const OmpExecutor& exec, const Array<I>& values, size_type block, I scale,
                   Array<I>& out)
{
    unified::spread_blocks(exec, values, block, scale, out);
}

#define LOOM_INSTANTIATE_MULTIGRID_OMP(V, I) LOOM_INSTANTIATE_MULTIGRID_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_OMP)
#define LOOM_INSTANTIATE_MULTIGRID_OMP_INDEX(I) LOOM_INSTANTIATE_MULTIGRID_INDEX_KERNELS(OmpExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_OMP_INDEX)

}  // namespace loom::multigrid::omp
