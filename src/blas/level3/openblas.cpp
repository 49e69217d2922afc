// Level-2/3 BLAS through a host BLAS library (OpenBLAS), for builds with LOOM_WITH_BLAS.
// Row-major operands are handed over as the column-major transposes they are.
#include "loom/config.hpp"

#if LOOM_HAS_BLAS

#include <algorithm>

#include "base/host/fortran.hpp"
#include "base/instantiate.hpp"
#include "blas/level3/kernels.hpp"

namespace loom::blas::openblas {
namespace {

using fortran::blas_int;
using fortran::fits;

char trans_char(Op op)
{
    switch (op) {
    case Op::transpose: return 'T';
    case Op::conj_transpose: return 'C';
    default: return 'N';
    }
}

/// Leading dimension of a row-major matrix seen column-major (at least 1, as BLAS demands).
template <typename V>
blas_int ld(const matrix::Dense<V>& A)
{
    return static_cast<blas_int>(std::max<size_type>(A.stride(), 1));
}

template <typename V>
bool fits(const matrix::Dense<V>& A)
{
    return fits(A.rows()) && fits(A.cols()) && fits(A.stride());
}

/// Side and uplo of the column-major transpose of a row-major triangular problem.
char flipped_side(Side side) { return side == Side::left ? 'R' : 'L'; }
char flipped_uplo(Uplo uplo) { return uplo == Uplo::lower ? 'U' : 'L'; }
char diag_char(Diag diag) { return diag == Diag::unit ? 'U' : 'N'; }

}  // namespace

template <typename V>
bool gemm(Op op_a, Op op_b, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& B,
          V beta, matrix::Dense<V>& C)
{
    if (!fits(A) || !fits(B) || !fits(C)) return false;
    const auto k = static_cast<blas_int>(op_a == Op::none ? A.cols() : A.rows());
    // C^T = op_b(B)^T op_a(A)^T, and a row-major X is the column-major X^T.
    fortran::gemm(trans_char(op_b), trans_char(op_a), static_cast<blas_int>(C.cols()),
                  static_cast<blas_int>(C.rows()), k, alpha, B.data(), ld(B), A.data(), ld(A),
                  beta, C.data(), ld(C));
    return true;
}

template <typename V>
bool gemv(Op op, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    // A^H would be conj(A^T) of the column-major view: no BLAS operation.
    if (op == Op::conj_transpose && is_complex_v<V>) return false;
    // An empty product leaves y = beta y, which BLAS skips (its quick return).
    if (A.size().count() == 0) return false;
    if (!fits(A) || !fits(x) || !fits(y)) return false;
    fortran::gemv(op == Op::none ? 'T' : 'N', static_cast<blas_int>(A.cols()),
                  static_cast<blas_int>(A.rows()), alpha, A.data(), ld(A), x.data(),
                  static_cast<blas_int>(std::max<size_type>(x.stride(), 1)), beta, y.data(),
                  static_cast<blas_int>(std::max<size_type>(y.stride(), 1)));
    return true;
}

template <typename V>
bool trsm(Side side, Uplo uplo, Op op, Diag diag, V alpha, const matrix::Dense<V>& A,
          matrix::Dense<V>& B)
{
    if (!fits(A) || !fits(B)) return false;
    fortran::trsm(flipped_side(side), flipped_uplo(uplo), trans_char(op), diag_char(diag),
                  static_cast<blas_int>(B.cols()), static_cast<blas_int>(B.rows()), alpha,
                  A.data(), ld(A), B.data(), ld(B));
    return true;
}

template <typename V>
bool trmm(Side side, Uplo uplo, Op op, Diag diag, V alpha, const matrix::Dense<V>& A,
          matrix::Dense<V>& B)
{
    if (!fits(A) || !fits(B)) return false;
    fortran::trmm(flipped_side(side), flipped_uplo(uplo), trans_char(op), diag_char(diag),
                  static_cast<blas_int>(B.cols()), static_cast<blas_int>(B.rows()), alpha,
                  A.data(), ld(A), B.data(), ld(B));
    return true;
}

#define LOOM_INSTANTIATE(V)                                                                    \
    template bool gemm(Op, Op, V, const matrix::Dense<V>&, const matrix::Dense<V>&, V,         \
                       matrix::Dense<V>&);                                                      \
    template bool gemv(Op, V, const matrix::Dense<V>&, const matrix::Dense<V>&, V,             \
                       matrix::Dense<V>&);                                                      \
    template bool trsm(Side, Uplo, Op, Diag, V, const matrix::Dense<V>&, matrix::Dense<V>&);   \
    template bool trmm(Side, Uplo, Op, Diag, V, const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::blas::openblas

#endif
