// Launch::vendor on the host: a loop of BLAS/LAPACK calls (OpenBLAS), one per matrix, spread
// over the executor's threads — the peer that Loom's batched routines are measured against.
// Only with LOOM_WITH_BLAS. Row-major matrices are handed over as the column-major
// transposes they are (row-major A is column-major A^T).
#include "loom/config.hpp"

#if LOOM_HAS_BLAS

#include <algorithm>
#include <vector>

#include "base/host/fortran.hpp"
#include "base/instantiate.hpp"
#include "batched/front/kernels.hpp"
#include "loom/launch/team.hpp"

namespace loom::batched::openblas {
namespace {

using fortran::blas_int;

char trans_char(Op op)
{
    switch (op) {
    case Op::transpose: return 'T';
    case Op::conj_transpose: return 'C';
    default: return 'N';
    }
}
char flipped_uplo(blas::Uplo uplo) { return uplo == blas::Uplo::lower ? 'U' : 'L'; }
char diag_char(blas::Diag diag) { return diag == blas::Diag::unit ? 'U' : 'N'; }

template <typename V>
bool fits(const BatchDense<V>& M)
{
    return fortran::fits(M.rows()) && fortran::fits(M.cols()) && fortran::fits(M.stride());
}
template <typename V>
blas_int ld(const BatchDense<V>& M)
{
    return static_cast<blas_int>(std::max<size_type>(M.stride(), 1));
}

/// f(b) for every matrix, on the threads of exec.
template <typename F>
void for_each_matrix(const Executor& exec, size_type count, F&& f)
{
    launch::team_parallel_for(exec, launch::TeamPolicy{count, 1, 1},
                              [&](const auto& m) { f(m.league_rank()); });
}

}  // namespace

template <typename V>
bool gemm(const Executor& exec, Op op_a, Op op_b, V alpha, const BatchDense<V>& A,
          const BatchDense<V>& B, V beta, BatchDense<V>& C)
{
    if (!fits(A) || !fits(B) || !fits(C)) return false;
    const auto k = static_cast<blas_int>(op_a == Op::none ? A.cols() : A.rows());
    for_each_matrix(exec, C.batch_count(), [&](size_type b) {
        fortran::gemm(trans_char(op_b), trans_char(op_a), static_cast<blas_int>(C.cols()),
                      static_cast<blas_int>(C.rows()), k, alpha, B.data() + b * B.batch_stride(),
                      ld(B), A.data() + b * A.batch_stride(), ld(A), beta,
                      C.data() + b * C.batch_stride(), ld(C));
    });
    return true;
}

template <typename V>
bool trsm(const Executor& exec, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& B)
{
    if (!fits(A) || !fits(B)) return false;
    for_each_matrix(exec, B.batch_count(), [&](size_type b) {
        fortran::trsm(side == blas::Side::left ? 'R' : 'L', flipped_uplo(uplo), trans_char(op),
                      diag_char(diag), static_cast<blas_int>(B.cols()),
                      static_cast<blas_int>(B.rows()), alpha, A.data() + b * A.batch_stride(),
                      ld(A), B.data() + b * B.batch_stride(), ld(B));
    });
    return true;
}

template <typename V>
bool trmm(const Executor& exec, blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha,
          const BatchDense<V>& A, BatchDense<V>& B)
{
    if (!fits(A) || !fits(B)) return false;
    for_each_matrix(exec, B.batch_count(), [&](size_type b) {
        fortran::trmm(side == blas::Side::left ? 'R' : 'L', flipped_uplo(uplo), trans_char(op),
                      diag_char(diag), static_cast<blas_int>(B.cols()),
                      static_cast<blas_int>(B.rows()), alpha, A.data() + b * A.batch_stride(),
                      ld(A), B.data() + b * B.batch_stride(), ld(B));
    });
    return true;
}

template <typename V>
bool trtri(const Executor& exec, blas::Uplo uplo, blas::Diag diag, BatchDense<V>& A, int32* info)
{
    if (!fits(A)) return false;
    for_each_matrix(exec, A.batch_count(), [&](size_type b) {
        info[b] = fortran::trtri(flipped_uplo(uplo), diag_char(diag),
                                 static_cast<blas_int>(A.rows()), A.data() + b * A.batch_stride(),
                                 ld(A));
    });
    return true;
}

template <typename V>
bool getrf(const Executor& exec, BatchDense<V>& A, int32* pivots, int32* info)
{
    if (!fits(A)) return false;
    const size_type n = A.rows();
    for_each_matrix(exec, A.batch_count(), [&](size_type b) {
        // LAPACK pivots rows of column-major storage: factor a column-major copy.
        V* M = A.data() + b * A.batch_stride();
        std::vector<V> columns(static_cast<std::size_t>(n * n));
        for (size_type i = 0; i < n; ++i) {
            for (size_type j = 0; j < n; ++j) columns[i + j * n] = M[i * A.stride() + j];
        }
        std::vector<blas_int> ipiv(static_cast<std::size_t>(n));
        const auto order = static_cast<blas_int>(n);
        info[b] = fortran::getrf(order, order, columns.data(), order, ipiv.data());
        for (size_type i = 0; i < n; ++i) {
            for (size_type j = 0; j < n; ++j) M[i * A.stride() + j] = columns[i + j * n];
            pivots[b * n + i] = ipiv[i] - 1;
        }
    });
    return true;
}

template <typename V>
bool potrf(const Executor& exec, blas::Uplo uplo, BatchDense<V>& A, int32* info)
{
    if (!fits(A)) return false;
    // The column-major view of a Hermitian A is conj(A) = A^T: its upper factor U is, in the
    // same memory, the row-major lower factor L = U^T (and the other way round).
    for_each_matrix(exec, A.batch_count(), [&](size_type b) {
        info[b] = fortran::potrf(flipped_uplo(uplo), static_cast<blas_int>(A.rows()),
                                 A.data() + b * A.batch_stride(), ld(A));
    });
    return true;
}

#define LOOM_INSTANTIATE(V)                                                                    \
    template bool gemm(const Executor&, Op, Op, V, const BatchDense<V>&, const BatchDense<V>&, \
                       V, BatchDense<V>&);                                                      \
    template bool trsm(const Executor&, blas::Side, blas::Uplo, Op, blas::Diag, V,             \
                       const BatchDense<V>&, BatchDense<V>&);                                   \
    template bool trmm(const Executor&, blas::Side, blas::Uplo, Op, blas::Diag, V,             \
                       const BatchDense<V>&, BatchDense<V>&);                                   \
    template bool trtri(const Executor&, blas::Uplo, blas::Diag, BatchDense<V>&, int32*);      \
    template bool getrf(const Executor&, BatchDense<V>&, int32*, int32*);                       \
    template bool potrf(const Executor&, blas::Uplo, BatchDense<V>&, int32*);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::batched::openblas

#endif
