// The per-backend entry points of kernels.hpp, defined once as templates over the executor:
// each forwards to calls.hpp with the executor's Driver (DriverOf, specialized beside each
// driver: host_driver.hpp, cuda_driver.cuh). A backend translation unit per family includes
// its driver and this header and instantiates its family for its executor:
//     namespace loom::batched::backend {
//     using Exec = OmpExecutor;
//     LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT_BLAS)
//     }
// Families: BLAS (gemm, gemv, trsm, trmm), LU (trtri, getrf, getrf_nopivot, add_radial, getrs,
// gesv), FACTOR (potrf, potrs, qr, apply_q), VECTOR (trsv, syr, axpy, scale, dot, nrm2), SOLVE
// (inverse_lu, gbtrf, gbtrs), UTV (utv, alone: the heaviest routine gets its own translation
// unit so that the builds of the families run in parallel).
#pragma once

#include "base/instantiate.hpp"
#include "batched/front/calls.hpp"
#include "batched/front/kernels.hpp"

namespace loom::batched::backend {

template <typename Exec>
typename DriverOf<Exec>::type driver(const Exec& exec)
{
    return typename DriverOf<Exec>::type{exec};
}

// blas
template <typename Exec, typename V>
void gemm(const Exec& exec, Launch launch, Op op_a, Op op_b, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& B, V beta, BatchDense<V>& C)
{
    front::gemm(driver(exec), launch, op_a, op_b, alpha, A, B, beta, C);
}
template <typename Exec, typename V>
void gemv(const Exec& exec, Launch launch, Op op, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& x, V beta, BatchDense<V>& y)
{
    front::gemv(driver(exec), launch, op, alpha, A, x, beta, y);
}
template <typename Exec, typename V>
void trsm(const Exec& exec, Launch launch, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag,
          V alpha, const BatchDense<V>& A, BatchDense<V>& B)
{
    front::triangular(driver(exec), launch, true, side, uplo, op, diag, alpha, A, B);
}
template <typename Exec, typename V>
void trmm(const Exec& exec, Launch launch, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag,
          V alpha, const BatchDense<V>& A, BatchDense<V>& B)
{
    front::triangular(driver(exec), launch, false, side, uplo, op, diag, alpha, A, B);
}

// lu
template <typename Exec, typename V>
void trtri(const Exec& exec, Launch launch, blas::Uplo uplo, blas::Diag diag, BatchDense<V>& A,
           int32* info)
{
    front::trtri(driver(exec), launch, uplo, diag, A, info);
}
template <typename Exec, typename V>
void getrf(const Exec& exec, Launch launch, BatchDense<V>& A, int32* pivots, int32* info)
{
    front::getrf(driver(exec), launch, A, pivots, info);
}
template <typename Exec, typename V>
void getrf_nopivot(const Exec& exec, Launch launch, BatchDense<V>& A, int32* info)
{
    front::getrf_nopivot(driver(exec), launch, A, info);
}
template <typename Exec, typename V>
void add_radial(const Exec& exec, Launch launch, remove_complex_t<V> tiny, BatchDense<V>& A)
{
    front::add_radial(driver(exec), launch, tiny, A);
}
template <typename Exec, typename V>
void getrs(const Exec& exec, Launch launch, Op op, const BatchDense<V>& LU, const int32* pivots,
           BatchDense<V>& B)
{
    front::getrs(driver(exec), launch, op, LU, pivots, B);
}
template <typename Exec, typename V>
void gesv(const Exec& exec, Launch launch, BatchDense<V>& A, int32* pivots, BatchDense<V>& B,
          int32* info)
{
    front::gesv(driver(exec), launch, A, pivots, B, info);
}

// factor
template <typename Exec, typename V>
void potrf(const Exec& exec, Launch launch, blas::Uplo uplo, BatchDense<V>& A, int32* info)
{
    front::potrf(driver(exec), launch, uplo, A, info);
}
template <typename Exec, typename V>
void potrs(const Exec& exec, Launch launch, blas::Uplo uplo, const BatchDense<V>& A,
           BatchDense<V>& B)
{
    front::potrs(driver(exec), launch, uplo, A, B);
}
template <typename Exec, typename V>
void qr(const Exec& exec, Launch launch, BatchDense<V>& A, BatchDense<V>& tau)
{
    front::qr(driver(exec), launch, A, tau);
}
template <typename Exec, typename V>
void apply_q(const Exec& exec, Launch launch, blas::Side side, Op op, const BatchDense<V>& A,
             const BatchDense<V>& tau, BatchDense<V>& B)
{
    front::apply_q(driver(exec), launch, side, op, A, tau, B);
}

// vector
template <typename Exec, typename V>
void trsv(const Exec& exec, Launch launch, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& x)
{
    front::trsv(driver(exec), launch, uplo, op, diag, alpha, A, x);
}
template <typename Exec, typename V>
void syr(const Exec& exec, Launch launch, blas::Uplo uplo, bool conjugate, V alpha,
         const BatchDense<V>& x, BatchDense<V>& A)
{
    front::syr(driver(exec), launch, uplo, conjugate, alpha, x, A);
}
template <typename Exec, typename V>
void axpy(const Exec& exec, Launch launch, V alpha, const BatchDense<V>& x, BatchDense<V>& y)
{
    front::axpy(driver(exec), launch, alpha, x, y);
}
template <typename Exec, typename V>
void scale(const Exec& exec, Launch launch, V alpha, BatchDense<V>& x)
{
    front::scale(driver(exec), launch, alpha, x);
}
template <typename Exec, typename V>
void dot(const Exec& exec, Launch launch, bool conjugate, const BatchDense<V>& x,
         const BatchDense<V>& y, V* result)
{
    front::dot(driver(exec), launch, conjugate, x, y, result);
}
template <typename Exec, typename V>
void nrm2(const Exec& exec, Launch launch, const BatchDense<V>& x, remove_complex_t<V>* result)
{
    front::nrm2(driver(exec), launch, x, result);
}

// solve
template <typename Exec, typename V>
void inverse_lu(const Exec& exec, Launch launch, BatchDense<V>& A, const int32* pivots, int32* info)
{
    front::inverse_lu(driver(exec), launch, A, pivots, info);
}
template <typename Exec, typename V>
void gbtrf(const Exec& exec, Launch launch, int kl, int ku, BatchDense<V>& AB, int32* pivots,
           int32* info)
{
    front::gbtrf(driver(exec), launch, kl, ku, AB, pivots, info);
}
template <typename Exec, typename V>
void gbtrs(const Exec& exec, Launch launch, Op op, int kl, int ku, const BatchDense<V>& AB,
           const int32* pivots, BatchDense<V>& B)
{
    front::gbtrs(driver(exec), launch, op, kl, ku, AB, pivots, B);
}

// utv
template <typename Exec, typename V>
void utv(const Exec& exec, Launch launch, BatchDense<V>& A, int32* jpiv, BatchDense<V>& U,
         BatchDense<V>& V_, int32* rank, remove_complex_t<V> tol)
{
    front::utv(driver(exec), launch, A, jpiv, U, V_, rank, tol);
}

}  // namespace loom::batched::backend

// Explicit instantiations for the executor `Exec` of the including translation unit.
#define LOOM_INSTANTIATE_BATCHED_FRONT_BLAS(V)                                                     \
    template void gemm(const Exec&, Launch, Op, Op, V, const BatchDense<V>&, const BatchDense<V>&, \
                       V, BatchDense<V>&);                                                         \
    template void gemv(const Exec&, Launch, Op, V, const BatchDense<V>&, const BatchDense<V>&, V,  \
                       BatchDense<V>&);                                                            \
    template void trsm(const Exec&, Launch, blas::Side, blas::Uplo, Op, blas::Diag, V,             \
                       const BatchDense<V>&, BatchDense<V>&);                                      \
    template void trmm(const Exec&, Launch, blas::Side, blas::Uplo, Op, blas::Diag, V,             \
                       const BatchDense<V>&, BatchDense<V>&);

#define LOOM_INSTANTIATE_BATCHED_FRONT_LU(V)                                                  \
    template void trtri(const Exec&, Launch, blas::Uplo, blas::Diag, BatchDense<V>&, int32*); \
    template void getrf(const Exec&, Launch, BatchDense<V>&, int32*, int32*);                 \
    template void getrf_nopivot(const Exec&, Launch, BatchDense<V>&, int32*);                 \
    template void add_radial(const Exec&, Launch, remove_complex_t<V>, BatchDense<V>&);       \
    template void getrs(const Exec&, Launch, Op, const BatchDense<V>&, const int32*,          \
                        BatchDense<V>&);                                                      \
    template void gesv(const Exec&, Launch, BatchDense<V>&, int32*, BatchDense<V>&, int32*);

#define LOOM_INSTANTIATE_BATCHED_FRONT_FACTOR(V)                                                \
    template void potrf(const Exec&, Launch, blas::Uplo, BatchDense<V>&, int32*);               \
    template void potrs(const Exec&, Launch, blas::Uplo, const BatchDense<V>&, BatchDense<V>&); \
    template void qr(const Exec&, Launch, BatchDense<V>&, BatchDense<V>&);                      \
    template void apply_q(const Exec&, Launch, blas::Side, Op, const BatchDense<V>&,            \
                          const BatchDense<V>&, BatchDense<V>&);

#define LOOM_INSTANTIATE_BATCHED_FRONT_VECTOR(V)                                                  \
    template void trsv(const Exec&, Launch, blas::Uplo, Op, blas::Diag, V, const BatchDense<V>&,  \
                       BatchDense<V>&);                                                           \
    template void syr(const Exec&, Launch, blas::Uplo, bool, V, const BatchDense<V>&,             \
                      BatchDense<V>&);                                                            \
    template void axpy(const Exec&, Launch, V, const BatchDense<V>&, BatchDense<V>&);             \
    template void scale(const Exec&, Launch, V, BatchDense<V>&);                                  \
    template void dot(const Exec&, Launch, bool, const BatchDense<V>&, const BatchDense<V>&, V*); \
    template void nrm2(const Exec&, Launch, const BatchDense<V>&, remove_complex_t<V>*);

#define LOOM_INSTANTIATE_BATCHED_FRONT_SOLVE(V)                                                \
    template void inverse_lu(const Exec&, Launch, BatchDense<V>&, const int32*, int32*);       \
    template void gbtrf(const Exec&, Launch, int, int, BatchDense<V>&, int32*, int32*);        \
    template void gbtrs(const Exec&, Launch, Op, int, int, const BatchDense<V>&, const int32*, \
                        BatchDense<V>&);

#define LOOM_INSTANTIATE_BATCHED_FRONT_UTV(V)                                                      \
    template void utv(const Exec&, Launch, BatchDense<V>&, int32*, BatchDense<V>&, BatchDense<V>&, \
                      int32*, remove_complex_t<V>);
