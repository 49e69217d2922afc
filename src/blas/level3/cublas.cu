// Level-2/3 BLAS through cuBLAS on the executor's handle and stream. A row-major X is the
// column-major X^T: C = op(A) op(B) runs as C^T = op(B)^T op(A)^T, and a triangular problem
// flips its side and triangle. Calls cuBLAS cannot express return false (native path).
#include "base/instantiate.hpp"
#include "blas/level3/cublas.cuh"
#include "blas/level3/kernels.hpp"

namespace loom::blas::cublas {

using namespace cublas_detail;

template <typename V>
bool gemm(const CudaExecutor& exec, Op op_a, Op op_b, V alpha, const matrix::Dense<V>& A,
          const matrix::Dense<V>& B, V beta, matrix::Dense<V>& C)
{
    constexpr const char* where = "loom::blas::gemm";
    if (!fits(A) || !fits(B) || !fits(C)) return false;
    const int k = static_cast<int>(op_a == Op::none ? A.cols() : A.rows());
    LOOM_CUBLAS_CHECK(cublas_detail::gemm(handle(exec, where), operation(op_b), operation(op_a),
                                          static_cast<int>(C.cols()), static_cast<int>(C.rows()),
                                          k, cast(&alpha), cast(B.data()), ld(B), cast(A.data()),
                                          ld(A), cast(&beta), cast(C.data()), ld(C)),
                      where);
    return true;
}

template <typename V>
bool gemv(const CudaExecutor& exec, Op op, V alpha, const matrix::Dense<V>& A,
          const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::gemv";
    // A^H would be conj(A^T) of the column-major view: no cuBLAS operation.
    if (op == Op::conj_transpose && is_complex_v<V>) return false;
    // An empty product leaves y = beta y, which BLAS skips (its quick return).
    if (A.size().count() == 0) return false;
    if (!fits(A) || !fits(x) || !fits(y)) return false;
    LOOM_CUBLAS_CHECK(cublas_detail::gemv(handle(exec, where), op == Op::none ? CUBLAS_OP_T : CUBLAS_OP_N,
                                          static_cast<int>(A.cols()), static_cast<int>(A.rows()),
                                          cast(&alpha), cast(A.data()), ld(A), cast(x.data()),
                                          ld(x), cast(&beta), cast(y.data()), ld(y)),
                      where);
    return true;
}

namespace {

/// trsm or trmm (`call`, a cublas_detail overload set) on the column-major view: side and
/// triangle flip, the operation stays.
template <typename V, typename Call>
bool triangular(const CudaExecutor& exec, const char* where, Call call, Side side, Uplo uplo,
                Op op, Diag diag, V alpha, const matrix::Dense<V>& A, matrix::Dense<V>& B)
{
    if (!fits(A) || !fits(B)) return false;
    LOOM_CUBLAS_CHECK(call(handle(exec, where), flipped(side), flipped(uplo), operation(op),
                           diag_type(diag), static_cast<int>(B.cols()),
                           static_cast<int>(B.rows()), cast(&alpha), cast(A.data()), ld(A),
                           cast(B.data()), ld(B)),
                      where);
    return true;
}

}  // namespace

template <typename V>
bool trsm(const CudaExecutor& exec, Side side, Uplo uplo, Op op, Diag diag, V alpha,
          const matrix::Dense<V>& A, matrix::Dense<V>& B)
{
    const auto call = [](auto... args) { return cublas_detail::trsm(args...); };
    return triangular(exec, "loom::blas::trsm", call, side, uplo, op, diag, alpha, A, B);
}

template <typename V>
bool trmm(const CudaExecutor& exec, Side side, Uplo uplo, Op op, Diag diag, V alpha,
          const matrix::Dense<V>& A, matrix::Dense<V>& B)
{
    const auto call = [](auto... args) { return cublas_detail::trmm(args...); };
    return triangular(exec, "loom::blas::trmm", call, side, uplo, op, diag, alpha, A, B);
}

#define LOOM_INSTANTIATE(V)                                                                    \
    template bool gemm(const CudaExecutor&, Op, Op, V, const matrix::Dense<V>&,                \
                       const matrix::Dense<V>&, V, matrix::Dense<V>&);                          \
    template bool gemv(const CudaExecutor&, Op, V, const matrix::Dense<V>&,                    \
                       const matrix::Dense<V>&, V, matrix::Dense<V>&);                          \
    template bool trsm(const CudaExecutor&, Side, Uplo, Op, Diag, V, const matrix::Dense<V>&,  \
                       matrix::Dense<V>&);                                                      \
    template bool trmm(const CudaExecutor&, Side, Uplo, Op, Diag, V, const matrix::Dense<V>&,  \
                       matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::blas::cublas
