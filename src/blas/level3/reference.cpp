// Reference level-2/3 BLAS: plain loops in the textbook order, the oracle for the others.
#include "base/instantiate.hpp"
#include "blas/level3/kernels.hpp"

namespace loom::blas::reference {

using detail::Strided;
using detail::Triangle;

template <typename V>
void gemm(const ReferenceExecutor&, V alpha, Strided<const V> A, Strided<const V> B, V beta,
          Strided<V> C)
{
    for (size_type i = 0; i < C.rows; ++i) {
        for (size_type j = 0; j < C.cols; ++j) {
            V sum{};
            for (size_type k = 0; k < A.cols; ++k) sum += A(i, k) * B(k, j);
            V& c = *C.ptr(i, j);
            c = beta == V{} ? alpha * sum : alpha * sum + beta * c;
        }
    }
}

template <typename V>
void gemv(const ReferenceExecutor& exec, V alpha, Strided<const V> A, Strided<const V> x, V beta,
          Strided<V> y)
{
    gemm(exec, alpha, A, x, beta, y);
}

template <typename V>
void trsm(const ReferenceExecutor&, Triangle<const V> T, V alpha, Strided<V> B)
{
    const auto& A = T.view;
    const size_type n = A.rows;
    for (size_type step = 0; step < n; ++step) {
        // Forward substitution for a lower triangle, backward for an upper one.
        const size_type i = T.lower ? step : n - 1 - step;
        const size_type k_begin = T.lower ? 0 : i + 1;
        const size_type k_end = T.lower ? i : n;
        for (size_type j = 0; j < B.cols; ++j) {
            V x = alpha * *B.ptr(i, j);
            for (size_type k = k_begin; k < k_end; ++k) x -= A(i, k) * *B.ptr(k, j);
            *B.ptr(i, j) = T.unit ? x : x / A(i, i);
        }
    }
}

template <typename V>
void trmm(const ReferenceExecutor&, Triangle<const V> T, V alpha, Strided<V> B)
{
    const auto& A = T.view;
    const size_type n = A.rows;
    for (size_type step = 0; step < n; ++step) {
        // Row i of the product needs rows k <= i (lower) or k >= i (upper) of B: walking
        // away from them keeps those rows unmodified.
        const size_type i = T.lower ? n - 1 - step : step;
        const size_type k_begin = T.lower ? 0 : i + 1;
        const size_type k_end = T.lower ? i : n;
        for (size_type j = 0; j < B.cols; ++j) {
            V sum = T.unit ? *B.ptr(i, j) : A(i, i) * *B.ptr(i, j);
            for (size_type k = k_begin; k < k_end; ++k) sum += A(i, k) * *B.ptr(k, j);
            *B.ptr(i, j) = alpha * sum;
        }
    }
}

template <typename V>
void gemm_dot(const ReferenceExecutor& exec, V alpha, Strided<const V> At, Strided<const V> B,
              V beta, Strided<V> C)
{
    gemm(exec, alpha, At, B, beta, C);
}

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_LEVEL3_KERNELS, ReferenceExecutor)

}  // namespace loom::blas::reference
