// The operand every level-2/3 kernel works on: a matrix with a row and a column stride and
// an optional conjugation. op(A) of a row-major Dense is a view of the same memory (A^T swaps
// the strides, A^H also conjugates), so one kernel covers every transpose combination, and
// Side::right reduces to Side::left on transposed views. Usable in CUDA device code with
// device value types (thrust::complex has std::complex's layout).
#pragma once

#include <type_traits>
#include <utility>

#include "loom/base/types.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/launch/macros.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::blas::detail {

template <typename T>
concept complex_like = requires(const T& x) { x.imag(); };

/// x or conj(x); conj found by argument-dependent lookup (std:: or thrust::).
template <typename T>
LOOM_HOST_DEVICE inline T conj_if(const T& x, bool conjugate)
{
    if constexpr (complex_like<T>) {
        return conjugate ? conj(x) : x;
    } else {
        return x;
    }
}

/// a * b without the NaN/infinity recovery of std::complex's operator* (a library call that
/// keeps loops from vectorizing); the products of BLAS kernels need none.
template <typename T>
LOOM_HOST_DEVICE inline T mul(const T& a, const T& b)
{
    if constexpr (complex_like<T>) {
        return T(a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real());
    } else {
        return a * b;
    }
}

/// View<const T> for a mutable T; for a const T a type no conversion ever asks for (a
/// conversion of a type to itself would be dead code, which nvcc warns about).
template <template <typename> class View, typename T>
struct NoConversion {};
template <template <typename> class View, typename T>
using const_view_t =
    std::conditional_t<std::is_const_v<T>, NoConversion<View, T>, View<const T>>;

template <typename T>
struct Strided {
    T* data = nullptr;
    size_type rows = 0;
    size_type cols = 0;
    size_type rs = 0;  ///< distance between rows
    size_type cs = 1;  ///< distance between columns
    bool conj = false;

    LOOM_HOST_DEVICE T* ptr(size_type i, size_type j) const { return data + i * rs + j * cs; }
    /// The element as op(A) sees it (conjugated when the view says so).
    LOOM_HOST_DEVICE std::remove_const_t<T> operator()(size_type i, size_type j) const
    {
        return conj_if(std::remove_const_t<T>(data[i * rs + j * cs]), conj);
    }
    LOOM_HOST_DEVICE Strided transposed() const { return {data, cols, rows, cs, rs, conj}; }
    LOOM_HOST_DEVICE Strided conjugated() const { return {data, rows, cols, rs, cs, !conj}; }
    LOOM_HOST_DEVICE Strided block(size_type i, size_type j, size_type r, size_type c) const
    {
        return {data + i * rs + j * cs, r, c, rs, cs, conj};
    }
    /// Storage order when one stride is 1 (what BLAS libraries can take).
    LOOM_HOST_DEVICE bool row_contiguous() const { return cs == 1 || cols <= 1; }
    LOOM_HOST_DEVICE bool col_contiguous() const { return rs == 1 || rows <= 1; }
    template <typename U>
    Strided<U> as() const
    {
        return {reinterpret_cast<U*>(data), rows, cols, rs, cs, conj};
    }
    /// A read-only view of the same matrix (for a view that already is one: an unusable type).
    operator const_view_t<Strided, T>() const { return {data, rows, cols, rs, cs, conj}; }
};

template <typename V>
Strided<V> view_of(matrix::Dense<V>& A)
{
    return {A.data(), A.rows(), A.cols(), A.stride(), 1, false};
}
template <typename V>
Strided<const V> view_of(const matrix::Dense<V>& A)
{
    return {A.data(), A.rows(), A.cols(), A.stride(), 1, false};
}

/// op(A) as a view.
template <typename T>
Strided<T> apply_op(Op op, Strided<T> A)
{
    switch (op) {
    case Op::transpose: return A.transposed();
    case Op::conj_transpose: return A.transposed().conjugated();
    default: return A;
    }
}

/// A triangular operand: the view of op(A) and whether that view is lower triangular.
template <typename T>
struct Triangle {
    Strided<T> view;
    bool lower;
    bool unit;
    operator const_view_t<Triangle, T>() const { return {view, lower, unit}; }
};

/// op(A) for Side::left as a Triangle.
template <typename T>
Triangle<T> triangle_of(Uplo uplo, Op op, Diag diag, Strided<T> A)
{
    const bool lower = (uplo == Uplo::lower) == (op == Op::none);
    return {apply_op(op, A), lower, diag == Diag::unit};
}

/// Side::right as Side::left: X op(A) = B  <=>  op(A)^T X^T = B^T. The triangle becomes
/// op(A)^T (a conjugated, untransposed A for conj_transpose) and B is seen transposed.
template <typename T, typename U>
std::pair<Triangle<T>, Strided<U>> as_left(Side side, Uplo uplo, Op op, Diag diag, Strided<T> A,
                                           Strided<U> B)
{
    if (side == Side::left) return {triangle_of(uplo, op, diag, A), B};
    auto t = triangle_of(uplo, op, diag, A);
    t.view = t.view.transposed();
    t.lower = !t.lower;
    return {t, B.transposed()};
}

}  // namespace loom::blas::detail
