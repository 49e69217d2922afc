// Per-backend entry points of the front-level batched calls (include/loom/batched/front.hpp),
// declared once for every backend as templates over the executor (families.hpp defines them,
// each backend's sources instantiate them for their executor). front.cpp checks the arguments, resolves Launch::automatic
// and dispatches; `launch` is never automatic here. Pointers (pivots, info) are in the
// executor's memory; pivots hold n entries per matrix, info one per matrix (inverse_lu: null
// pivots for the factors of getrf_nopivot; dot and nrm2: one result per matrix).
#pragma once

#include "loom/base/executor.hpp"
#include "loom/batched/front.hpp"
#include "loom/config.hpp"

namespace loom::batched::backend {

/// The Driver (calls.hpp) that runs the calls on executor Exec, as `type`.
template <typename Exec>
struct DriverOf;

template <typename Exec, typename V>
void gemm(const Exec& exec, Launch launch, Op op_a, Op op_b, V alpha,
          const BatchDense<V>& A, const BatchDense<V>& B, V beta, BatchDense<V>& C);
template <typename Exec, typename V>
void gemv(const Exec& exec, Launch launch, Op op, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& x, V beta, BatchDense<V>& y);
template <typename Exec, typename V>
void trsm(const Exec& exec, Launch launch, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& B);
template <typename Exec, typename V>
void trmm(const Exec& exec, Launch launch, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& B);
template <typename Exec, typename V>
void trtri(const Exec& exec, Launch launch, blas::Uplo uplo, blas::Diag diag, BatchDense<V>& A,
           int32* info);
template <typename Exec, typename V>
void getrf(const Exec& exec, Launch launch, BatchDense<V>& A, int32* pivots, int32* info);
template <typename Exec, typename V>
void getrf_nopivot(const Exec& exec, Launch launch, BatchDense<V>& A, int32* info);
template <typename Exec, typename V>
void add_radial(const Exec& exec, Launch launch, remove_complex_t<V> tiny,
                BatchDense<V>& A);
template <typename Exec, typename V>
void getrs(const Exec& exec, Launch launch, Op op, const BatchDense<V>& LU,
           const int32* pivots, BatchDense<V>& B);
template <typename Exec, typename V>
void gesv(const Exec& exec, Launch launch, BatchDense<V>& A, int32* pivots,
          BatchDense<V>& B, int32* info);
template <typename Exec, typename V>
void potrf(const Exec& exec, Launch launch, blas::Uplo uplo, BatchDense<V>& A, int32* info);
template <typename Exec, typename V>
void potrs(const Exec& exec, Launch launch, blas::Uplo uplo, const BatchDense<V>& A,
           BatchDense<V>& B);
template <typename Exec, typename V>
void qr(const Exec& exec, Launch launch, BatchDense<V>& A, BatchDense<V>& tau);
template <typename Exec, typename V>
void apply_q(const Exec& exec, Launch launch, blas::Side side, Op op, const BatchDense<V>& A,
             const BatchDense<V>& tau, BatchDense<V>& B);
template <typename Exec, typename V>
void trsv(const Exec& exec, Launch launch, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& x);
template <typename Exec, typename V>
void syr(const Exec& exec, Launch launch, blas::Uplo uplo, bool conjugate, V alpha,
         const BatchDense<V>& x, BatchDense<V>& A);
template <typename Exec, typename V>
void axpy(const Exec& exec, Launch launch, V alpha, const BatchDense<V>& x,
          BatchDense<V>& y);
template <typename Exec, typename V>
void scale(const Exec& exec, Launch launch, V alpha, BatchDense<V>& x);
template <typename Exec, typename V>
void dot(const Exec& exec, Launch launch, bool conjugate, const BatchDense<V>& x,
         const BatchDense<V>& y, V* result);
template <typename Exec, typename V>
void nrm2(const Exec& exec, Launch launch, const BatchDense<V>& x,
          remove_complex_t<V>* result);
template <typename Exec, typename V>
void inverse_lu(const Exec& exec, Launch launch, BatchDense<V>& A, const int32* pivots,
                int32* info);
template <typename Exec, typename V>
void gbtrf(const Exec& exec, Launch launch, int kl, int ku, BatchDense<V>& AB,
           int32* pivots, int32* info);
template <typename Exec, typename V>
void gbtrs(const Exec& exec, Launch launch, Op op, int kl, int ku, const BatchDense<V>& AB,
           const int32* pivots, BatchDense<V>& B);
template <typename Exec, typename V>
void utv(const Exec& exec, Launch launch, BatchDense<V>& A, int32* jpiv, BatchDense<V>& U,
         BatchDense<V>& V_, int32* rank, remove_complex_t<V> tol);

}  // namespace loom::batched::backend

// The backend namespaces LOOM_RUN_KERNEL reaches (reference::gemm(e, ...), omp::..., cuda::...):
// each sees the one set of entry points, instantiated for its executor by its own sources.
namespace loom::batched::reference {
using namespace backend;
}
namespace loom::batched::omp {
using namespace backend;
}
namespace loom::batched::cuda {
using namespace backend;
}

/// A loop of host BLAS/LAPACK calls over the batch, on the OpenMP threads of exec (or one
/// thread for the reference executor); only with LOOM_WITH_BLAS. False: not offered.
namespace loom::batched::openblas {
#if LOOM_HAS_BLAS
template <typename V>
bool gemm(const Executor& exec, Op op_a, Op op_b, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& B, V beta, BatchDense<V>& C);
template <typename V>
bool trsm(const Executor& exec, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& B);
template <typename V>
bool trmm(const Executor& exec, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& B);
template <typename V>
bool trtri(const Executor& exec, blas::Uplo uplo, blas::Diag diag, BatchDense<V>& A, int32* info);
template <typename V>
bool getrf(const Executor& exec, BatchDense<V>& A, int32* pivots, int32* info);
template <typename V>
bool potrf(const Executor& exec, blas::Uplo uplo, BatchDense<V>& A, int32* info);
#endif
}  // namespace loom::batched::openblas

/// cuBLAS's batched routines. False: not offered for these arguments.
namespace loom::batched::cublas {
template <typename V>
bool gemm(const CudaExecutor& exec, Op op_a, Op op_b, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& B, V beta, BatchDense<V>& C);
/// trsmBatched on the column-major views (X op(A)^T-form with the triangle flipped).
template <typename V>
bool trsm(const CudaExecutor& exec, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag,
          V alpha, const BatchDense<V>& A, BatchDense<V>& B);
/// getrfBatched on the row-major batch: transposes in place, factors, transposes back.
template <typename V>
bool getrf(const CudaExecutor& exec, BatchDense<V>& A, int32* pivots, int32* info);
/// cuBLAS getrfBatched alone on the batch as stored (it factors the transposes, as a
/// column-major library sees row-major data): the peer timing of `loom bench batched`.
/// Pivots and info are cuBLAS's (1-based). Needs a packed square batch.
template <typename V>
void getrf_raw(const CudaExecutor& exec, BatchDense<V>& A, int32* pivots, int32* info);
/// cuSOLVER potrfBatched on the row-major batch: the column-major view is A^T = conj(A), whose
/// factor with the other triangle is the wanted one, so no copy (the triangle flips).
template <typename V>
bool potrf(const CudaExecutor& exec, blas::Uplo uplo, BatchDense<V>& A, int32* info);
/// cuBLAS geqrfBatched: A is transposed into a column-major workspace, factored and transposed
/// back (geqrf storage either way). False where tau is not contiguous per matrix.
template <typename V>
bool qr(const CudaExecutor& exec, BatchDense<V>& A, BatchDense<V>& tau);
/// cuBLAS geqrfBatched alone on the batch as stored (it factors the transposes): the peer
/// timing of `loom bench batched qr`.
template <typename V>
void qr_raw(const CudaExecutor& exec, BatchDense<V>& A, BatchDense<V>& tau);
}  // namespace loom::batched::cublas
