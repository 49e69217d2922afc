// Argument checks and backend dispatch of BLAS on Dense.
#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "blas/dense/kernels.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"

namespace loom::blas {
namespace {

template <typename A, typename B>
void check_same_executor(const char* where, const A& a, const B& b)
{
    if (!a.executor() || !b.executor() || !a.executor()->same_memory_as(*b.executor())) {
        throw BadInput(where, "operands live on different executors (" +
                                  (a.executor() ? a.executor()->name() : "none") + " and " +
                                  (b.executor() ? b.executor()->name() : "none") + ")");
    }
}

template <typename V, typename W>
void check_same_size(const char* where, const matrix::Dense<V>& x, const matrix::Dense<W>& y,
                     const char* x_name, const char* y_name)
{
    if (x.size() != y.size()) {
        throw DimensionMismatch(where, x_name, x.size(), y_name, y.size(), "shapes must agree");
    }
    check_same_executor(where, x, y);
}

template <typename V, typename W>
void check_result(const char* where, const matrix::Dense<V>& x, const matrix::Dense<W>& result)
{
    if (result.rows() != 1 || result.cols() != x.cols()) {
        throw DimensionMismatch(where, "x", x.size(), "result", result.size(),
                                "result must be 1 x (columns of x)");
    }
    check_same_executor(where, x, result);
}

template <typename V>
void check_coefficient(const char* where, const matrix::Dense<V>& x, const matrix::Dense<V>& c,
                       const char* name)
{
    if (c.rows() != 1 || (c.cols() != 1 && c.cols() != x.cols())) {
        throw DimensionMismatch(where, name, c.size(), "x", x.size(),
                                "a coefficient must be 1 x 1 or 1 x (columns of x)");
    }
    check_same_executor(where, x, c);
}

/// axpy is axpby without beta; a typed null so that the kernel templates deduce V.
template <typename V>
constexpr const matrix::Dense<V>* no_beta = nullptr;

}  // namespace

namespace {
/// dot and conj_dot: one kernel, x conjugated or not.
template <typename V>
void checked_dot(const char* where, const matrix::Dense<V>& x, const matrix::Dense<V>& y,
                 matrix::Dense<V>& result, bool conjugate)
{
    check_same_size(where, x, y, "x", "y");
    check_result(where, x, result);
    LOOM_RUN_KERNEL(where, *x.executor(), dot, x, y, result, conjugate);
}
}  // namespace

template <typename V>
void dot(const matrix::Dense<V>& x, const matrix::Dense<V>& y, matrix::Dense<V>& result)
{
    checked_dot("loom::blas::dot", x, y, result, false);
}

template <typename V>
void conj_dot(const matrix::Dense<V>& x, const matrix::Dense<V>& y, matrix::Dense<V>& result)
{
    checked_dot("loom::blas::conj_dot", x, y, result, true);
}

template <typename V>
void nrm2(const matrix::Dense<V>& x, matrix::Dense<remove_complex_t<V>>& result)
{
    constexpr const char* where = "loom::blas::nrm2";
    check_result(where, x, result);
    LOOM_RUN_KERNEL(where, *x.executor(), nrm2, x, result);
}

template <typename V>
void axpy(const matrix::Dense<V>& alpha, const matrix::Dense<V>& x, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::axpy";
    check_same_size(where, x, y, "x", "y");
    check_coefficient(where, x, alpha, "alpha");
    LOOM_RUN_KERNEL(where, *x.executor(), axpby, &alpha, x, no_beta<V>, y);
}

template <typename V>
void axpy_quotient(const matrix::Dense<V>& num, const matrix::Dense<V>& den,
                   const matrix::Dense<V>& x, matrix::Dense<V>& y, bool subtract)
{
    constexpr const char* where = "loom::blas::axpy_quotient";
    check_same_size(where, x, y, "x", "y");
    check_coefficient(where, x, num, "num");
    check_coefficient(where, x, den, "den");
    const V sign = subtract ? V{-1} : V{1};
    LOOM_RUN_KERNEL(where, *x.executor(), axpy_quotient, num, den, sign, x, y);
}

template <typename V>
void axpy(V alpha, const matrix::Dense<V>& x, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::axpy";
    check_same_size(where, x, y, "x", "y");
    LOOM_RUN_KERNEL(where, *x.executor(), axpby_scalar, alpha, x, V{1}, y);
}

template <typename V>
void axpby(const matrix::Dense<V>& alpha, const matrix::Dense<V>& x,
           const matrix::Dense<V>& beta, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::axpby";
    check_same_size(where, x, y, "x", "y");
    check_coefficient(where, x, alpha, "alpha");
    check_coefficient(where, x, beta, "beta");
    LOOM_RUN_KERNEL(where, *x.executor(), axpby, &alpha, x, &beta, y);
}

template <typename V>
void axpby(V alpha, const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::axpby";
    check_same_size(where, x, y, "x", "y");
    LOOM_RUN_KERNEL(where, *x.executor(), axpby_scalar, alpha, x, beta, y);
}

template <typename V>
void scal(const matrix::Dense<V>& alpha, matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::blas::scal";
    check_coefficient(where, x, alpha, "alpha");
    LOOM_RUN_KERNEL(where, *x.executor(), scal, alpha, x);
}

template <typename V>
void scal(V alpha, matrix::Dense<V>& x)
{
    [[maybe_unused]] constexpr const char* where = "loom::blas::scal";
    if (!x.executor()) return;
    LOOM_RUN_KERNEL(where, *x.executor(), scal_scalar, alpha, x);
}

template <typename V>
void copy(const matrix::Dense<V>& x, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::copy";
    check_same_size(where, x, y, "x", "y");
    LOOM_RUN_KERNEL(where, *x.executor(), copy, x, y);
}

template <typename V>
void fill(matrix::Dense<V>& x, V value)
{
    [[maybe_unused]] constexpr const char* where = "loom::blas::fill";
    if (!x.executor()) return;
    LOOM_RUN_KERNEL(where, *x.executor(), fill, x, value);
}

template <typename V>
void check_packed(const char* where, const matrix::Dense<V>& x,
                  const Array<lower_precision_t<V>>& packed)
{
    if (packed.size() != x.rows() * x.cols()) {
        throw BadInput(where, "the packed array holds " + std::to_string(packed.size()) +
                                  " values, the matrix " + std::to_string(x.rows() * x.cols()));
    }
    check_same_executor(where, x, packed);
}

template <typename V>
void pack(const matrix::Dense<V>& x, Array<lower_precision_t<V>>& packed)
{
    constexpr const char* where = "loom::blas::pack";
    check_packed(where, x, packed);
    if (packed.size() == 0) return;
    LOOM_RUN_KERNEL(where, *x.executor(), pack, x, packed.data());
}

template <typename V>
void unpack(const Array<lower_precision_t<V>>& packed, matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::unpack";
    check_packed(where, y, packed);
    if (packed.size() == 0) return;
    LOOM_RUN_KERNEL(where, *y.executor(), unpack, packed.data(), y);
}

#define LOOM_INSTANTIATE_BLAS_DENSE(V)                                                         \
    template void dot(const matrix::Dense<V>&, const matrix::Dense<V>&, matrix::Dense<V>&);   \
    template void conj_dot(const matrix::Dense<V>&, const matrix::Dense<V>&,                  \
                           matrix::Dense<V>&);                                                 \
    template void nrm2(const matrix::Dense<V>&, matrix::Dense<remove_complex_t<V>>&);          \
    template void axpy(const matrix::Dense<V>&, const matrix::Dense<V>&, matrix::Dense<V>&);  \
    template void axpy(V, const matrix::Dense<V>&, matrix::Dense<V>&);                        \
    template void axpy_quotient(const matrix::Dense<V>&, const matrix::Dense<V>&,             \
                                const matrix::Dense<V>&, matrix::Dense<V>&, bool);             \
    template void axpby(const matrix::Dense<V>&, const matrix::Dense<V>&,                     \
                        const matrix::Dense<V>&, matrix::Dense<V>&);                           \
    template void axpby(V, const matrix::Dense<V>&, V, matrix::Dense<V>&);                    \
    template void scal(const matrix::Dense<V>&, matrix::Dense<V>&);                           \
    template void scal(V, matrix::Dense<V>&);                                                  \
    template void copy(const matrix::Dense<V>&, matrix::Dense<V>&);                           \
    template void fill(matrix::Dense<V>&, V);                                                 \
    template void pack(const matrix::Dense<V>&, Array<lower_precision_t<V>>&);                \
    template void unpack(const Array<lower_precision_t<V>>&, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BLAS_DENSE)

}  // namespace loom::blas
