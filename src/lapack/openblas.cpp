// Dense LAPACK through a host LAPACK library (OpenBLAS), for builds with LOOM_WITH_BLAS.
#include "loom/config.hpp"

#if LOOM_HAS_BLAS

#include <vector>

#include "base/host/fortran.hpp"
#include "base/instantiate.hpp"
#include "lapack/kernels.hpp"

namespace loom::lapack::openblas {

using fortran::blas_int;
using fortran::fits;

template <typename V>
bool getrf(matrix::Dense<V>& A, int32* pivots, int32* info)
{
    const size_type n = A.rows();
    if (!fits(n) || !fits(n * n)) return false;
    // LAPACK pivots rows of a column-major matrix, and row-major A seen column-major is A^T:
    // factor a column-major copy instead.
    std::vector<V> columns(static_cast<std::size_t>(n * n));
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) columns[i + j * n] = A.at(i, j);
    }
    std::vector<blas_int> ipiv(static_cast<std::size_t>(n));
    const auto order = static_cast<blas_int>(n);
    const blas_int status = fortran::getrf(order, order, columns.data(), order, ipiv.data());
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) A.at(i, j) = columns[i + j * n];
        pivots[i] = ipiv[i] - 1;
    }
    if (status > 0 && *info < 0) *info = status - 1;
    return true;
}

template <typename V>
bool trtri(blas::Uplo uplo, blas::Diag diag, matrix::Dense<V>& A)
{
    if (!fits(A.rows()) || !fits(A.stride())) return false;
    // The inverse of the column-major view A^T is (A^{-1})^T: the same memory, other triangle.
    fortran::trtri(uplo == blas::Uplo::lower ? 'U' : 'L', diag == blas::Diag::unit ? 'U' : 'N',
                   static_cast<blas_int>(A.rows()), A.data(),
                   static_cast<blas_int>(std::max<size_type>(A.stride(), 1)));
    return true;
}

#define LOOM_INSTANTIATE(V)                                                                    \
    template bool getrf(matrix::Dense<V>&, int32*, int32*);                                     \
    template bool trtri(blas::Uplo, blas::Diag, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::lapack::openblas

#endif
