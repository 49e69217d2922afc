// The front-level calls written once for the OpenMP and CUDA backends: each turns its public
// arguments into operands (transposes folded into views, conjugation and triangles into the
// routine's tags) and hands them with the routine's functor to the backend's Driver:
//   driver.run(launch, count, operands, functor)      (Driver::value<V>: the value type the
//                                                       routines compute in on that backend)
// Only the tag combinations a call can reach are instantiated: real values never conjugate.
#pragma once

#include <algorithm>

#include "batched/front/operand.hpp"
#include "batched/front/routines.hpp"
#include "loom/batched/front.hpp"

namespace loom::batched::front {

template <typename Driver, typename V>
void gemm(const Driver& driver, Launch launch, Op op_a, Op op_b, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& B, V beta, BatchDense<V>& C)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 3> ops{{input(A, view_transposed<V>(op_a)), input(B, view_transposed<V>(op_b)),
                              beta == V{} ? output(C) : in_out(C)}};
    with_conj<V>(conjugates<V>(op_a), [&](auto ta) {
        with_conj<V>(conjugates<V>(op_b), [&](auto tb) {
            driver.run(launch, C.batch_count(), ops.template as<T>(),
                       GemmCall<T, decltype(ta), decltype(tb)>{T(alpha), T(beta)});
        });
    });
}

template <typename Driver, typename V>
void gemv(const Driver& driver, Launch launch, Op op, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& x, V beta, BatchDense<V>& y)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 3> ops{
        {input(A, view_transposed<V>(op)), input(x), beta == V{} ? output(y) : in_out(y)}};
    with_conj<V>(conjugates<V>(op), [&](auto ta) {
        driver.run(launch, y.batch_count(), ops.template as<T>(),
                   GemvCall<T, decltype(ta)>{T(alpha), T(beta)});
    });
}

template <typename Driver, typename V>
void triangular(const Driver& driver, Launch launch, bool solve, blas::Side side, blas::Uplo uplo, Op op,
                blas::Diag diag, V alpha, const BatchDense<V>& A, BatchDense<V>& B)
{
    using T = typename Driver::template value<V>;
    const auto form = left_triangle<V>(side, uplo, op);
    const Operands<V, 2> ops{{input(A, form.a_transposed), in_out(B, form.b_transposed)}};
    with_uplo(form.lower, [&](auto u) {
        with_conj<V>(form.conjugate, [&](auto t) {
            with_diag(diag == blas::Diag::unit, [&](auto d) {
                using U = decltype(u);
                using TA = decltype(t);
                using D = decltype(d);
                if (solve) {
                    driver.run(launch, B.batch_count(), ops.template as<T>(),
                               TriangularCall<T, U, TA, D, true>{T(alpha)});
                } else {
                    driver.run(launch, B.batch_count(), ops.template as<T>(),
                               TriangularCall<T, U, TA, D, false>{T(alpha)});
                }
            });
        });
    });
}

template <typename Driver, typename V>
void trtri(const Driver& driver, Launch launch, blas::Uplo uplo, blas::Diag diag, BatchDense<V>& A,
           int32* info)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 1> ops{{in_out(A)}};
    with_uplo(uplo == blas::Uplo::lower, [&](auto u) {
        with_diag(diag == blas::Diag::unit, [&](auto d) {
            driver.run(launch, A.batch_count(), ops.template as<T>(),
                       TrtriCall<decltype(u), decltype(d)>{info, A.batch_count()});
        });
    });
}

template <typename Driver, typename V>
void getrf(const Driver& driver, Launch launch, BatchDense<V>& A, int32* pivots, int32* info)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 1> ops{{in_out(A)}};
    driver.run(launch, A.batch_count(), ops.template as<T>(), GetrfCall{pivots, info});
}

template <typename Driver, typename V>
void getrf_nopivot(const Driver& driver, Launch launch, BatchDense<V>& A, int32* info)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 1> ops{{in_out(A)}};
    driver.run(launch, A.batch_count(), ops.template as<T>(),
               GetrfNoPivotCall{info, A.batch_count()});
}

template <typename Driver, typename V>
void add_radial(const Driver& driver, Launch launch, remove_complex_t<V> tiny, BatchDense<V>& A)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 1> ops{{in_out(A)}};
    driver.run(launch, A.batch_count(), ops.template as<T>(),
               AddRadialCall<remove_complex_t<V>>{tiny});
}

template <typename Driver, typename V>
void getrs(const Driver& driver, Launch launch, Op op, const BatchDense<V>& LU,
           const int32* pivots, BatchDense<V>& B)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{input(LU), in_out(B)}};
    with_trans<V>(op, [&](auto t) {
        driver.run(launch, B.batch_count(), ops.template as<T>(), GetrsCall<decltype(t)>{pivots});
    });
}

template <typename Driver, typename V>
void gesv(const Driver& driver, Launch launch, BatchDense<V>& A, int32* pivots, BatchDense<V>& B,
          int32* info)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{in_out(A), in_out(B)}};
    driver.run(launch, A.batch_count(), ops.template as<T>(), GesvCall{pivots, info});
}

template <typename Driver, typename V>
void potrf(const Driver& driver, Launch launch, blas::Uplo uplo, BatchDense<V>& A, int32* info)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 1> ops{{in_out(A)}};
    with_uplo(uplo == blas::Uplo::lower, [&](auto u) {
        driver.run(launch, A.batch_count(), ops.template as<T>(),
                   PotrfCall<decltype(u)>{info, A.batch_count()});
    });
}

template <typename Driver, typename V>
void potrs(const Driver& driver, Launch launch, blas::Uplo uplo, const BatchDense<V>& A,
           BatchDense<V>& B)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{input(A), in_out(B)}};
    with_uplo(uplo == blas::Uplo::lower, [&](auto u) {
        driver.run(launch, B.batch_count(), ops.template as<T>(), PotrsCall<decltype(u)>{});
    });
}

template <typename Driver, typename V>
void qr(const Driver& driver, Launch launch, BatchDense<V>& A, BatchDense<V>& tau)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{in_out(A), output(tau)}};
    driver.run(launch, A.batch_count(), ops.template as<T>(), QrCall{});
}

template <typename Driver, typename V>
void apply_q(const Driver& driver, Launch launch, blas::Side side, Op op, const BatchDense<V>& A,
             const BatchDense<V>& tau, BatchDense<V>& B)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 3> ops{{input(A), input(tau), in_out(B)}};
    const auto run = [&](auto s, auto t) {
        driver.run(launch, B.batch_count(), ops.template as<T>(),
                   ApplyQCall<decltype(s), decltype(t)>{});
    };
    // Q^T of a real Q is Q^H: one adjoint tag for both.
    const bool adjoint = op != Op::none;
    if (side == blas::Side::left) {
        adjoint ? run(batched::Side::Left{}, Trans::ConjTranspose{})
                : run(batched::Side::Left{}, Trans::NoTranspose{});
    } else {
        adjoint ? run(batched::Side::Right{}, Trans::ConjTranspose{})
                : run(batched::Side::Right{}, Trans::NoTranspose{});
    }
}

template <typename Driver, typename V>
void trsv(const Driver& driver, Launch launch, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& x)
{
    using T = typename Driver::template value<V>;
    const auto form = left_triangle<V>(blas::Side::left, uplo, op);
    const Operands<V, 2> ops{{input(A, form.a_transposed), in_out(x)}};
    with_uplo(form.lower, [&](auto u) {
        with_conj<V>(form.conjugate, [&](auto t) {
            with_diag(diag == blas::Diag::unit, [&](auto d) {
                driver.run(launch, x.batch_count(), ops.template as<T>(),
                           TrsvCall<T, decltype(u), decltype(t), decltype(d)>{T(alpha)});
            });
        });
    });
}

template <typename Driver, typename V>
void syr(const Driver& driver, Launch launch, blas::Uplo uplo, bool conjugate, V alpha,
         const BatchDense<V>& x, BatchDense<V>& A)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{input(x), in_out(A)}};
    const auto run = [&](auto t) {
        with_uplo(uplo == blas::Uplo::lower, [&](auto u) {
            driver.run(launch, A.batch_count(), ops.template as<T>(),
                       SyrCall<T, decltype(u), decltype(t)>{T(alpha)});
        });
    };
    // Real values have one rank-1 update: x x^T.
    if constexpr (is_complex_v<V>) {
        if (conjugate) return run(Trans::ConjTranspose{});
    }
    run(Trans::Transpose{});
}

template <typename Driver, typename V>
void axpy(const Driver& driver, Launch launch, V alpha, const BatchDense<V>& x, BatchDense<V>& y)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{input(x), in_out(y)}};
    driver.run(launch, y.batch_count(), ops.template as<T>(), AxpyCall<T>{T(alpha)});
}

template <typename Driver, typename V>
void scale(const Driver& driver, Launch launch, V alpha, BatchDense<V>& x)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 1> ops{{in_out(x)}};
    driver.run(launch, x.batch_count(), ops.template as<T>(), ScaleCall<T>{T(alpha)});
}

template <typename Driver, typename V>
void dot(const Driver& driver, Launch launch, bool conjugate, const BatchDense<V>& x,
         const BatchDense<V>& y, V* result)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{input(x), input(y)}};
    const auto run = [&](auto t) {
        driver.run(launch, x.batch_count(), ops.template as<T>(),
                   DotCall<T, decltype(t)>{reinterpret_cast<T*>(result), x.batch_count()});
    };
    if constexpr (is_complex_v<V>) {
        if (conjugate) return run(Trans::ConjTranspose{});
    }
    run(Trans::Transpose{});
}

template <typename Driver, typename V>
void nrm2(const Driver& driver, Launch launch, const BatchDense<V>& x, remove_complex_t<V>* result)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 1> ops{{input(x)}};
    driver.run(launch, x.batch_count(), ops.template as<T>(),
               Nrm2Call<remove_complex_t<V>>{result, x.batch_count()});
}

/// The work vector of a routine: n x 1 per matrix, on the batch's executor.
template <typename V>
BatchDense<V> work_vectors(const BatchDense<V>& A, size_type n)
{
    return BatchDense<V>(A.executor(), A.batch_count(), {std::max<size_type>(n, 1), 1});
}

template <typename Driver, typename V>
void inverse_lu(const Driver& driver, Launch launch, BatchDense<V>& A, const int32* pivots,
                int32* info)
{
    using T = typename Driver::template value<V>;
    auto work = work_vectors(A, A.rows());
    const Operands<V, 2> ops{{in_out(A), scratch(work)}};
    if (pivots != nullptr) {
        driver.run(launch, A.batch_count(), ops.template as<T>(), InverseLuCall{pivots, info});
    } else {
        driver.run(launch, A.batch_count(), ops.template as<T>(),
                   InverseLuNoPivotCall{info, A.batch_count()});
    }
}

template <typename Driver, typename V>
void utv(const Driver& driver, Launch launch, BatchDense<V>& A, int32* jpiv, BatchDense<V>& U,
         BatchDense<V>& V_, int32* rank, remove_complex_t<V> tol)
{
    using T = typename Driver::template value<V>;
    auto work = work_vectors(A, std::min(A.rows(), A.cols()));
    const Operands<V, 4> ops{{in_out(A), output(U), output(V_), scratch(work)}};
    driver.run(launch, A.batch_count(), ops.template as<T>(),
               UtvCall<remove_complex_t<V>>{jpiv, rank, tol});
}

template <typename Driver, typename V>
void gbtrf(const Driver& driver, Launch launch, int kl, int ku, BatchDense<V>& AB, int32* pivots,
           int32* info)
{
    using T = typename Driver::template value<V>;
    // The first kl rows are fill-in workspace: Gbtrf zeroes them, nothing needs to be read.
    const Operands<V, 1> ops{{in_out(AB)}};
    driver.run(launch, AB.batch_count(), ops.template as<T>(), GbtrfCall{pivots, info, kl, ku});
}

template <typename Driver, typename V>
void gbtrs(const Driver& driver, Launch launch, Op op, int kl, int ku, const BatchDense<V>& AB,
           const int32* pivots, BatchDense<V>& B)
{
    using T = typename Driver::template value<V>;
    const Operands<V, 2> ops{{input(AB), in_out(B)}};
    with_trans<V>(op, [&](auto t) {
        driver.run(launch, B.batch_count(), ops.template as<T>(),
                   GbtrsCall<decltype(t)>{pivots, kl, ku});
    });
}

/// Whether a functor's routine has a SIMD pack version (pivoting ones do not).
template <typename F>
inline constexpr bool has_pack_version = true;
template <>
inline constexpr bool has_pack_version<GetrfCall> = false;
template <>
inline constexpr bool has_pack_version<GesvCall> = false;
template <typename TA>
inline constexpr bool has_pack_version<GetrsCall<TA>> = false;
template <>
inline constexpr bool has_pack_version<InverseLuCall> = false;
template <typename R>
inline constexpr bool has_pack_version<UtvCall<R>> = false;
template <>
inline constexpr bool has_pack_version<GbtrfCall> = false;
template <typename TA>
inline constexpr bool has_pack_version<GbtrsCall<TA>> = false;

}  // namespace loom::batched::front
