// What the front-level batched drivers pass around: each matrix argument of a call as an
// Operand (where matrix b lives, whether the routine reads or writes it, whether it sees it
// transposed), and the views the routines receive, on global memory or staged copies. Usable
// in CUDA device code with device value types.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "loom/base/types.hpp"
#include "loom/batched/tags.hpp"
#include "loom/batched/view.hpp"
#include "loom/blas/types.hpp"
#include "loom/launch/macros.hpp"
#include "loom/matrix/batch_dense.hpp"

namespace loom::batched::front {

template <typename T>
struct Operand {
    T* data = nullptr;
    int rows = 0;  ///< as stored
    int cols = 0;
    size_type stride = 0;
    size_type batch_stride = 0;
    bool read = true;        ///< the routine reads it (staged in)
    bool written = false;    ///< the routine writes it (staged out)
    bool transposed = false; ///< the routine sees the stored matrix transposed

    LOOM_HOST_DEVICE int entries() const { return rows * cols; }
    LOOM_HOST_DEVICE View<T> oriented(View<T> v) const { return transposed ? v.transposed() : v; }
    /// Matrix b in place.
    LOOM_HOST_DEVICE View<T> global(size_type b) const
    {
        return oriented(View<T>(data + b * batch_stride, rows, cols, stride, 1));
    }
    /// Matrix b staged row-major at base.
    LOOM_HOST_DEVICE View<T> packed(T* base) const
    {
        return oriented(View<T>(base, rows, cols, cols, 1));
    }
    /// Matrix t of `lanes` staged element-interleaved at base: entry e of matrix t at
    /// base[e * (lanes + 1) + t] (the + 1 keeps the staging stores free of bank conflicts).
    LOOM_HOST_DEVICE View<T> interleaved(T* base, int t, int lanes) const
    {
        const size_type pitch = lanes + 1;
        return oriented(View<T>(base + t, rows, cols, cols * pitch, pitch));
    }
    LOOM_HOST_DEVICE size_type global_offset(size_type b, int e) const
    {
        return b * batch_stride + (e / cols) * stride + e % cols;
    }
};

/// A fixed number of operands (std::array is not device code).
template <typename T, int K>
struct Operands {
    Operand<T> op[K];
    static constexpr int size = K;
    LOOM_HOST_DEVICE const Operand<T>& operator[](int k) const { return op[k]; }
    /// The largest order among them (what the team sizes follow).
    int max_extent() const
    {
        int n = 0;
        for (int k = 0; k < K; ++k) n = n < op[k].rows ? op[k].rows : n < op[k].cols ? op[k].cols : n;
        return n;
    }
    int total_entries() const
    {
        int sum = 0;
        for (int k = 0; k < K; ++k) sum += op[k].entries();
        return sum;
    }
    template <typename U>
    Operands<U, K> as() const
    {
        Operands<U, K> result;
        for (int k = 0; k < K; ++k) {
            const auto& o = op[k];
            result.op[k] = {reinterpret_cast<U*>(o.data), o.rows, o.cols, o.stride,
                            o.batch_stride, o.read, o.written, o.transposed};
        }
        return result;
    }
};

/// Calls f(view_of(0), ..., view_of(K - 1)).
template <typename T, int K, typename ViewOf, typename F, int... k>
LOOM_HOST_DEVICE LOOM_INLINE void with_views(const Operands<T, K>&, ViewOf&& view_of, F&& f,
                                             std::integer_sequence<int, k...>)
{
    f(view_of(k)...);
}
template <typename T, int K, typename ViewOf, typename F>
LOOM_HOST_DEVICE LOOM_INLINE void with_views(const Operands<T, K>& ops, ViewOf&& view_of, F&& f)
{
    with_views(ops, view_of, f, std::make_integer_sequence<int, K>{});
}

/// An input operand of a batch.
template <typename V>
Operand<V> input(const matrix::BatchDense<V>& M, bool transposed = false)
{
    return {const_cast<V*>(M.data()),
            static_cast<int>(M.rows()),
            static_cast<int>(M.cols()),
            M.stride(),
            M.batch_stride(),
            true,
            false,
            transposed};
}
/// An operand the routine updates (read and written).
template <typename V>
Operand<V> in_out(matrix::BatchDense<V>& M, bool transposed = false)
{
    auto o = input(M, transposed);
    o.written = true;
    return o;
}
/// An operand the routine only writes.
template <typename V>
Operand<V> output(matrix::BatchDense<V>& M)
{
    auto o = in_out(M);
    o.read = false;
    return o;
}

/// Scratch of a routine (its work vector): staged on CUDA like any operand, but never read from
/// or written back to the batch that backs it.
template <typename V>
Operand<V> scratch(matrix::BatchDense<V>& M)
{
    auto o = output(M);
    o.written = false;
    return o;
}

/// How an op(A) reaches a routine: transposition through the view, conjugation through the
/// routine's Trans tag (ConjTranspose on the untransposed view). Real values never conjugate,
/// so their routines are instantiated once.
template <typename V>
constexpr bool conjugates(blas::Op op)
{
    return is_complex_v<V> && op == blas::Op::conj_transpose;
}
template <typename V>
constexpr bool view_transposed(blas::Op op)
{
    return op != blas::Op::none && !conjugates<V>(op);
}

/// f(Trans::ConjTranspose{}) or f(Trans::NoTranspose{}); only the latter for real values.
template <typename V, typename F>
decltype(auto) with_conj(bool conjugate, F&& f)
{
    if constexpr (is_complex_v<V>) {
        if (conjugate) return f(Trans::ConjTranspose{});
    }
    return f(Trans::NoTranspose{});
}

/// f(the Trans tag of op) for routines that take op as a tag, not as a view (a transposed
/// solve runs its triangles in the other order); real values never take ConjTranspose.
template <typename V, typename F>
void with_trans(blas::Op op, F&& f)
{
    if (op == blas::Op::none) return f(Trans::NoTranspose{});
    if constexpr (is_complex_v<V>) {
        if (conjugates<V>(op)) return f(Trans::ConjTranspose{});
    }
    f(Trans::Transpose{});
}

template <typename F>
decltype(auto) with_uplo(bool lower, F&& f)
{
    return lower ? f(Uplo::Lower{}) : f(Uplo::Upper{});
}

template <typename F>
decltype(auto) with_diag(bool unit, F&& f)
{
    return unit ? f(Diag::Unit{}) : f(Diag::NonUnit{});
}

/// A triangular call canonicalized to Side::left: the view of the triangle (transposed or
/// not), its stored triangle as the routine sees it, and whether the routine conjugates it
/// (ConjTranspose of the view); B is seen transposed for Side::right.
/// X op(A) = B  <=>  op(A)^T X^T = B^T, and op(A)^T is A^T, A or conj(A) = (A^T)^H.
struct LeftTriangle {
    bool a_transposed;
    bool lower;
    bool conjugate;
    bool b_transposed;
};

template <typename V>
LeftTriangle left_triangle(blas::Side side, blas::Uplo uplo, blas::Op op)
{
    const bool conj = conjugates<V>(op);
    const bool plain_transpose = op != blas::Op::none && !conj;
    // Left: op(A) is A, A^T (a transposed view) or A^H (ConjTranspose of A).
    // Right: op(A)^T is A^T, A, or conj(A) = ConjTranspose of A^T.
    const bool a_transposed = side == blas::Side::left ? plain_transpose : !plain_transpose;
    const bool stored_lower = uplo == blas::Uplo::lower;
    return {a_transposed, stored_lower != a_transposed, conj, side == blas::Side::right};
}

}  // namespace loom::batched::front
