// Front-level batched calls: one call factors, solves or multiplies every matrix of a
// BatchDense, launching the batched routines (routines.hpp) in the mode that suits the sizes:
//
//   loom::batched::gemm(alpha, A, B, beta, C);                        // C_b = alpha A_b B_b + beta C_b
//   loom::batched::gemm(exec, alpha, A, B, beta, C);                  // the same, run on exec
//   loom::batched::getrf(A, pivots, info);                            // P_b A_b = L_b U_b
//   loom::batched::getrs(blas::Op::none, A, pivots, B);
//
// All operands live on one executor; sizes are checked (DimensionMismatch, BadInput) before
// anything runs. Numerical failures are reported per matrix in an info array, never thrown:
// info[b] = 0, or k + 1 when step k of matrix b met a zero pivot (LAPACK's convention); the
// other matrices are computed as usual. Pivots are 0-based, n per matrix, matrix after matrix:
// row k of matrix b was interchanged with row pivots[b * n + k] at step k.
//
// Calls: gemm gemv trsm trmm trsv syr axpy scale dot conj_dot nrm2 add_radial (BLAS-like);
// trtri getrf getrf_nopivot getrs gesv inverse_lu inverse_lu_nopivot (LU); potrf potrs
// (Cholesky); qr apply_q utv (orthogonal); gbtrf gbtrs (banded LU).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "loom/base/array.hpp"
#include "loom/blas/types.hpp"
#include "loom/matrix/batch_dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::batched {

/// How a front-level call runs. (The routines' own mode tags are loom::batched::Mode::Serial,
/// Team and TeamVector.)
///   automatic    per call and order, as `automatic_launch` says (measured choices: on CUDA
///                the lane-per-row kernels or a team for real square operands, serial up to
///                order 8 and team_vector above otherwise; on the host serial, or the AVX2
///                kernel for real gemm)
///   serial       one thread per matrix. On CUDA a block stages its matrices through shared
///                memory so that every global access is coalesced
///   team         a team per matrix (CUDA: a warp or a block, its threads as one flat set of
///                workers); on the host a team is one thread
///   team_vector  a team per matrix, its threads over rows and their vector lanes within rows
///   simd         host only, real values only: W matrices interleaved in SIMD packs
///                (batched::Simd), so that the serial routines vectorize across the batch;
///                the batch is packed and unpacked around the call. Routines with pivoting
///                have no pack version (NotSupported)
///   vendor       the vendor library: cuBLAS on CUDA (gemm: gemmStridedBatched, trsm:
///                trsmBatched, getrf: getrfBatched around two in-place transposes, since
///                cuBLAS is column-major; qr: geqrfBatched on a transposed copy), cuSOLVER's
///                potrfBatched for potrf (no copy: the triangle flips),
///                a loop of OpenBLAS/LAPACK calls on the host (LOOM_WITH_BLAS builds).
///                NotSupported for routines the library does not batch
/// The reference executor runs its plain loops whatever the launch (it is the oracle).
enum class Launch { automatic, serial, team, team_vector, simd, vendor };

LOOM_NAME_TABLE(Launch, launch_names, "launch",
    {Launch::automatic, "auto", "the launch measured fastest for the call", {"automatic"}},
    {Launch::serial, "serial", "a thread per matrix"},
    {Launch::team, "team", "a team per matrix"},
    {Launch::team_vector, "teamvector", "a team per matrix, lanes within rows", {"team_vector"}},
    {Launch::simd, "simd", "host, real values: SIMD packs of matrices"},
    {Launch::vendor, "vendor", "the vendor library"},
);

/// A name of launch_names ("automatic", "team_vector" too); BadInput otherwise.
Launch parse_launch(const std::string& text);
/// The launch `automatic` picks for square matrices of order n on exec: on CUDA one thread per
/// matrix up to order cuda_serial_max, a team per matrix beyond; serial on the host.
Launch choose_launch(const Executor& exec, size_type n, size_type cuda_serial_max = 8);
/// gemm's serial/team_vector crossover on CUDA for complex or rectangular operands, measured on
/// an H200 (batch 163840, `loom bench batched gemm`): n = 3 serial 36 us, team_vector 125 us;
/// n = 5 194 vs 172 us; n = 8 1092 vs 224 us. Other calls switch at 8 (getrf n = 5: serial
/// 56 us, team_vector 249 us; trsm n = 5: 123 vs 287 us).
inline constexpr size_type gemm_cuda_serial_max = 4;
/// The launch `automatic` takes for square operands of order n of the front-level call named
/// `routine` ("gemm", "getrf", "trmm", ...) with values V on exec: what a benchmark reports.
/// On CUDA, real square gemm/trmm/trtri/getrf take whichever of serial, team and team_vector
/// (whose lane-per-row kernels cover orders up to 32) measured fastest for the order; on the
/// host, real gemm runs the vectorized kernel (simd) where the CPU has AVX2 and FMA. The
/// choices and their measurements: the table of src/batched/front/tuning.hpp.
template <typename V>
LOOM_EXPORT Launch automatic_launch(std::string_view routine, const Executor& exec, size_type n);

// Side, Uplo and Diag name the routines' tag namespaces here (tags.hpp): the front-level
// calls take blas::Side, blas::Uplo and blas::Diag.
using blas::Op;
using matrix::BatchDense;

/// C_b = alpha op_a(A_b) op_b(B_b) + beta C_b (C not read when beta is zero).
template <typename V>
LOOM_EXPORT void gemm(Op op_a, Op op_b, V alpha, const BatchDense<V>& A, const BatchDense<V>& B,
                      V beta, BatchDense<V>& C, Launch launch = Launch::automatic);
template <typename V>
void gemm(V alpha, const BatchDense<V>& A, const BatchDense<V>& B, V beta, BatchDense<V>& C,
          Launch launch = Launch::automatic)
{
    gemm(Op::none, Op::none, alpha, A, B, beta, C, launch);
}

/// y_b = alpha op(A_b) x_b + beta y_b; x and y are batches of single columns.
template <typename V>
LOOM_EXPORT void gemv(Op op, V alpha, const BatchDense<V>& A, const BatchDense<V>& x, V beta,
                      BatchDense<V>& y, Launch launch = Launch::automatic);

/// B_b = alpha op(A_b)^{-1} B_b (Side::left) or alpha B_b op(A_b)^{-1} (Side::right), A_b
/// triangular. A zero diagonal entry is not checked (trtri and getrf report singularity).
template <typename V>
LOOM_EXPORT void trsm(blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
                      const BatchDense<V>& A, BatchDense<V>& B, Launch launch = Launch::automatic);

/// B_b = alpha op(A_b) B_b (Side::left) or alpha B_b op(A_b) (Side::right), A_b triangular.
template <typename V>
LOOM_EXPORT void trmm(blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
                      const BatchDense<V>& A, BatchDense<V>& B, Launch launch = Launch::automatic);

/// A_b = A_b^{-1} for triangular A_b, in place (the other triangle untouched). info (resized to
/// the batch count, on A's executor) flags a zero diagonal; such a matrix is left unchanged.
template <typename V>
LOOM_EXPORT void trtri(blas::Uplo uplo, blas::Diag diag, BatchDense<V>& A, Array<int32>& info,
                       Launch launch = Launch::automatic);

/// P_b A_b = L_b U_b with partial pivoting, in place. pivots and info are resized (count * n
/// and count entries, on A's executor). A zero pivot column is skipped, as LAPACK does.
template <typename V>
LOOM_EXPORT void getrf(BatchDense<V>& A, Array<int32>& pivots, Array<int32>& info,
                       Launch launch = Launch::automatic);

/// A_b = L_b U_b without pivoting, in place: for diagonally dominant matrices, or after
/// add_radial; has a SIMD pack version. info[b] = k + 1 when U_b(k, k) is zero (the contents
/// of that A_b are then unspecified).
template <typename V>
LOOM_EXPORT void getrf_nopivot(BatchDense<V>& A, Array<int32>& info,
                               Launch launch = Launch::automatic);

/// Static pivoting: A_b(i, i) += tiny where Re A_b(i, i) >= 0, -= tiny where it is negative.
template <typename V>
LOOM_EXPORT void add_radial(remove_complex_t<V> tiny, BatchDense<V>& A,
                            Launch launch = Launch::automatic);

/// Solves op(A_b) X_b = B_b with the factors and pivots of getrf; X overwrites B.
template <typename V>
LOOM_EXPORT void getrs(Op op, const BatchDense<V>& LU, const Array<int32>& pivots, BatchDense<V>& B,
                       Launch launch = Launch::automatic);

/// Solves A_b X_b = B_b by getrf then getrs: A is replaced by its factors, B by X (a matrix with
/// a zero pivot keeps its B).
template <typename V>
LOOM_EXPORT void gesv(BatchDense<V>& A, Array<int32>& pivots, BatchDense<V>& B, Array<int32>& info,
                      Launch launch = Launch::automatic);

/// Cholesky A_b = L_b L_b^H (Uplo::lower) or U_b^H U_b (Uplo::upper) of Hermitian positive
/// definite matrices, in place on that triangle. info[b] = k + 1 when the leading minor of
/// order k + 1 is not positive definite (that factorization stops there).
template <typename V>
LOOM_EXPORT void potrf(blas::Uplo uplo, BatchDense<V>& A, Array<int32>& info,
                       Launch launch = Launch::automatic);

/// Solves A_b X_b = B_b with the factors of potrf; X overwrites B.
template <typename V>
LOOM_EXPORT void potrs(blas::Uplo uplo, const BatchDense<V>& A, BatchDense<V>& B,
                       Launch launch = Launch::automatic);

/// Householder QR A_b = Q_b R_b in place (LAPACK's geqrf storage: R on and above the diagonal,
/// the reflectors below); tau is a batch of min(m, n) x 1 columns (resized when its shape is
/// wrong).
template <typename V>
LOOM_EXPORT void qr(BatchDense<V>& A, BatchDense<V>& tau, Launch launch = Launch::automatic);

/// B_b = op(Q_b) B_b (Side::left) or B_b op(Q_b) (Side::right) with Q_b from qr; op is none or
/// conj_transpose (transpose is accepted for real values).
template <typename V>
LOOM_EXPORT void apply_q(blas::Side side, Op op, const BatchDense<V>& A, const BatchDense<V>& tau,
                         BatchDense<V>& B, Launch launch = Launch::automatic);

/// x_b = alpha op(A_b)^{-1} x_b, A_b triangular, x a batch of n x 1 columns. A zero diagonal
/// entry is not checked.
template <typename V>
LOOM_EXPORT void trsv(blas::Uplo uplo, Op op, blas::Diag diag, V alpha, const BatchDense<V>& A,
                      BatchDense<V>& x, Launch launch = Launch::automatic);

/// Rank-1 update of one triangle of A_b (the other untouched): A_b += alpha x_b x_b^T
/// (Op::transpose, BLAS syr) or A_b += alpha x_b x_b^H (Op::conj_transpose, BLAS her: alpha
/// must be real, the diagonal stays real). The two are one update for real values. x is a
/// batch of n x 1 columns.
template <typename V>
LOOM_EXPORT void syr(blas::Uplo uplo, Op op, V alpha, const BatchDense<V>& x, BatchDense<V>& A,
                     Launch launch = Launch::automatic);

/// y_b += alpha x_b. x and y are batches of one shape: vectors (n x 1), or whole matrices.
template <typename V>
LOOM_EXPORT void axpy(V alpha, const BatchDense<V>& x, BatchDense<V>& y,
                      Launch launch = Launch::automatic);

/// x_b *= alpha (vectors or matrices).
template <typename V>
LOOM_EXPORT void scale(V alpha, BatchDense<V>& x, Launch launch = Launch::automatic);

/// result[b] = sum_i x_b(i) y_b(i) (no conjugation, as blas::dot), x and y batches of n x 1
/// columns. result is resized to the batch count, on x's executor.
template <typename V>
LOOM_EXPORT void dot(const BatchDense<V>& x, const BatchDense<V>& y, Array<V>& result,
                     Launch launch = Launch::automatic);

/// result[b] = sum_i conj(x_b(i)) y_b(i) (as blas::conj_dot).
template <typename V>
LOOM_EXPORT void conj_dot(const BatchDense<V>& x, const BatchDense<V>& y, Array<V>& result,
                          Launch launch = Launch::automatic);

/// result[b] = ||x_b||_2 (no scaling against overflow: the vectors are short), x a batch of
/// n x 1 columns.
template <typename V>
LOOM_EXPORT void nrm2(const BatchDense<V>& x, Array<remove_complex_t<V>>& result,
                      Launch launch = Launch::automatic);

/// A_b = A_b^{-1} in place, from the factors and pivots of getrf (LAPACK's getri). info flags
/// a zero U_b(k, k) with k + 1; that A_b is then left as it was (its factors). Launches that
/// run a matrix out of place (CUDA) take an n-entry work vector per matrix from shared memory.
template <typename V>
LOOM_EXPORT void inverse_lu(BatchDense<V>& LU, const Array<int32>& pivots, Array<int32>& info,
                            Launch launch = Launch::automatic);

/// The same from the factors of getrf_nopivot; has a SIMD pack version.
template <typename V>
LOOM_EXPORT void inverse_lu_nopivot(BatchDense<V>& LU, Array<int32>& info,
                                    Launch launch = Launch::automatic);

/// Rank-revealing A_b P_b = U_b T_b W_b of the m x n A_b, q = min(m, n): QR with column
/// pivoting stopped at the numerical rank r_b (the largest remaining column norm at most tol
/// times the largest of A_b; tol < 0 means max(m, n) epsilon), then an LQ of the r_b leading
/// rows. On return A_b(0:r, 0:r) holds T_b (lower triangular, real diagonal) and the rest of
/// A_b is zero; U (m x q) has orthonormal columns, the first r_b spanning the range; W (q x n)
/// orthonormal rows, the first r_b used; jpiv (n per matrix, 0-based): column k was
/// interchanged with column jpiv[b * n + k] at step k; rank[b] = r_b. U and W are resized when
/// their shape is wrong, jpiv and rank always sized for the batch. No SIMD pack version.
template <typename V>
LOOM_EXPORT void utv(BatchDense<V>& A, Array<int32>& jpiv, BatchDense<V>& U, BatchDense<V>& W,
                     Array<int32>& rank, remove_complex_t<V> tol = -1,
                     Launch launch = Launch::automatic);

/// Banded LU with partial pivoting (LAPACK's gbtrf) of n x n matrices with kl sub- and ku
/// super-diagonals, in place in LAPACK band storage: AB is a batch of (2 kl + ku + 1) x n
/// matrices (row-major like every BatchDense, so row r of AB_b is a diagonal) holding A_b(i, j)
/// at AB_b(kl + ku + i - j, j) for max(0, j - ku) <= i <= min(n - 1, j + kl). Its first kl rows
/// are workspace for the fill-in of pivoting (set to zero here, need not be set on entry).
/// After the call U (bandwidth kl + ku) is in rows 0 .. kl + ku and the multipliers of L
/// below; pivots (n per matrix, 0-based) and info (k + 1 at the first zero U(k, k); the
/// factorization goes on, as LAPACK's) are resized for the batch. No SIMD pack version.
template <typename V>
LOOM_EXPORT void gbtrf(size_type kl, size_type ku, BatchDense<V>& AB, Array<int32>& pivots,
                       Array<int32>& info, Launch launch = Launch::automatic);

/// Solves op(A_b) X_b = B_b (B n x nrhs) with the factors and pivots of gbtrf; X overwrites B.
template <typename V>
LOOM_EXPORT void gbtrs(Op op, size_type kl, size_type ku, const BatchDense<V>& AB,
                       const Array<int32>& pivots, BatchDense<V>& B,
                       Launch launch = Launch::automatic);

/// A view of M on exec, so that a call runs on exec whatever executor made the batch (an
/// OpenMP call on a batch built by the reference executor, say). BadInput when M's memory is
/// not exec's (a GPU batch handed to a host executor).
template <typename V>
BatchDense<V> on(const std::shared_ptr<const Executor>& exec, const BatchDense<V>& M)
{
    if (!exec || !M.executor() || !M.executor()->same_memory_as(*exec)) {
        throw BadInput("loom::batched::on", "the batch does not live in the memory of " +
                                                std::string(exec ? exec->name() : "no executor"));
    }
    return BatchDense<V>::view(exec, M.batch_count(), M.size(), M.stride(), M.batch_stride(),
                               const_cast<V*>(M.data()));
}

namespace detail {
/// An argument of an executor-first call: batches become views on exec, the rest pass as is.
template <typename T>
T&& on_exec(const std::shared_ptr<const Executor>&, T&& arg)
{
    return std::forward<T>(arg);
}
template <typename V>
BatchDense<V> on_exec(const std::shared_ptr<const Executor>& exec, BatchDense<V>& M)
{
    return on(exec, M);
}
template <typename V>
BatchDense<V> on_exec(const std::shared_ptr<const Executor>& exec, const BatchDense<V>& M)
{
    return on(exec, M);
}
}  // namespace detail

/// Executor-first forms of every call, `loom::batched::getrf(exec, A, pivots, info)`: the call
/// without exec, run on exec over views of the batches (see on()); pivots and info are placed
/// on exec, and so are the results of dot, conj_dot and nrm2. (qr's tau and utv's U and W
/// must already have their shapes: a view cannot be resized.)
#define LOOM_BATCHED_ON_EXEC(name)                                                              \
    template <typename... Args>                                                                 \
    void name(const std::shared_ptr<const Executor>& exec, Args&&... args)                      \
    {                                                                                           \
        std::tuple<decltype(detail::on_exec(exec, std::forward<Args>(args)))...> on_exec_args(  \
            detail::on_exec(exec, std::forward<Args>(args))...);                                \
        std::apply([](auto&... a) { name(a...); }, on_exec_args);                               \
    }
LOOM_BATCHED_ON_EXEC(gemm)
LOOM_BATCHED_ON_EXEC(gemv)
LOOM_BATCHED_ON_EXEC(trsm)
LOOM_BATCHED_ON_EXEC(trmm)
LOOM_BATCHED_ON_EXEC(trtri)
LOOM_BATCHED_ON_EXEC(getrf)
LOOM_BATCHED_ON_EXEC(getrs)
LOOM_BATCHED_ON_EXEC(getrf_nopivot)
LOOM_BATCHED_ON_EXEC(add_radial)
LOOM_BATCHED_ON_EXEC(gesv)
LOOM_BATCHED_ON_EXEC(potrf)
LOOM_BATCHED_ON_EXEC(potrs)
LOOM_BATCHED_ON_EXEC(qr)
LOOM_BATCHED_ON_EXEC(apply_q)
LOOM_BATCHED_ON_EXEC(trsv)
LOOM_BATCHED_ON_EXEC(syr)
LOOM_BATCHED_ON_EXEC(axpy)
LOOM_BATCHED_ON_EXEC(scale)
LOOM_BATCHED_ON_EXEC(dot)
LOOM_BATCHED_ON_EXEC(conj_dot)
LOOM_BATCHED_ON_EXEC(nrm2)
LOOM_BATCHED_ON_EXEC(inverse_lu)
LOOM_BATCHED_ON_EXEC(inverse_lu_nopivot)
LOOM_BATCHED_ON_EXEC(utv)
LOOM_BATCHED_ON_EXEC(gbtrf)
LOOM_BATCHED_ON_EXEC(gbtrs)
#undef LOOM_BATCHED_ON_EXEC

}  // namespace loom::batched

LOOM_PUBLIC_END
