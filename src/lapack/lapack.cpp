// Argument checks, the native/vendor choice and backend dispatch of dense LAPACK. Every
// routine that can fail works on a copy and publishes its result only on success.
#include <string>
#include <utility>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "blas/level3/route.hpp"
#include "lapack/kernels.hpp"
#include "loom/base/error.hpp"
#include "loom/lapack/dense_lapack.hpp"

namespace loom::lapack {
namespace {

using blas::detail::Route;
using blas::detail::Triangle;
using blas::detail::view_of;

template <typename V>
void check_square(const char* where, const matrix::Dense<V>& A, const char* name)
{
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(where, name, A.size(), name, A.size().transposed(),
                                std::string(name) + " must be square");
    }
    if (!A.executor()) throw BadInput(where, std::string(name) + " has no executor");
}

[[noreturn]] void throw_zero_pivot(const char* where, int32 row, const char* what)
{
    throw NumericalError(where, std::string(what) + " is exactly zero at row " +
                                    std::to_string(row) + " (0-based): the matrix is singular");
}

/// The single int32 `info` of the kernels, in exec memory, starting at -1.
Array<int32> make_info(const std::shared_ptr<const Executor>& exec)
{
    return Array<int32>(exec, std::vector<int32>{-1});
}

int32 read_info(const Array<int32>& info) { return info.to_host()[0]; }

}  // namespace

template <typename V>
void getrf(matrix::Dense<V>& A, Array<int32>& pivots, Backend backend)
{
    constexpr const char* where = "loom::lapack::getrf";
    check_square(where, A, "A");
    const auto& exec = A.executor();
    // Factor a copy: a singular A leaves the caller's A and pivots as they were.
    matrix::Dense<V> work(exec, A);
    Array<int32> new_pivots(exec, A.rows());
    auto info = make_info(exec);
    if (A.rows() > 0) {
        const auto route = blas::detail::choose_route(where, *exec, backend, double(A.rows()),
                                                      blas::detail::crossovers::getrf);
        if (!LOOM_TRY_VENDOR(route, *exec, cusolver, openblas, getrf, work, new_pivots.data(),
                             info.data())) {
            LOOM_RUN_KERNEL(where, *exec, getrf, view_of(work), new_pivots.data(), info.data());
        }
        if (const auto row = read_info(info); row >= 0) throw_zero_pivot(where, row, "the pivot");
    }
    A = work;
    pivots = std::move(new_pivots);
}

template <typename V>
void getrs(Op op, const matrix::Dense<V>& LU, const Array<int32>& pivots, matrix::Dense<V>& B,
           Backend backend)
{
    constexpr const char* where = "loom::lapack::getrs";
    check_square(where, LU, "LU");
    if (B.rows() != LU.rows()) {
        throw DimensionMismatch(where, "LU", LU.size(), "B", B.size(),
                                "B must have as many rows as LU");
    }
    if (pivots.size() != LU.rows()) {
        throw BadInput(where, "got " + std::to_string(pivots.size()) + " pivots for an LU of order " +
                                  std::to_string(LU.rows()));
    }
    if (!B.executor() || !pivots.executor() || !LU.executor()->same_memory_as(*B.executor()) ||
        !LU.executor()->same_memory_as(*pivots.executor())) {
        throw BadInput(where, "LU, pivots and B must live on one executor");
    }
    if (B.size().count() == 0) return;
    const auto& exec = *LU.executor();
    const auto permute = [&](bool reverse) {
        LOOM_RUN_KERNEL(where, exec, permute_rows, pivots.data(), 0, LU.rows(), view_of(B),
                        reverse);
    };
    using blas::Side;
    if (op == Op::none) {
        // A = P^T L U:  x = U^{-1} L^{-1} P b
        permute(false);
        blas::trsm(Side::left, Uplo::lower, Op::none, Diag::unit, V{1}, LU, B, backend);
        blas::trsm(Side::left, Uplo::upper, Op::none, Diag::non_unit, V{1}, LU, B, backend);
    } else {
        // op(A) = op(U) op(L) P:  x = P^T op(L)^{-1} op(U)^{-1} b
        blas::trsm(Side::left, Uplo::upper, op, Diag::non_unit, V{1}, LU, B, backend);
        blas::trsm(Side::left, Uplo::lower, op, Diag::unit, V{1}, LU, B, backend);
        permute(true);
    }
}

template <typename V>
void gesv(const matrix::Dense<V>& A, matrix::Dense<V>& B, Backend backend)
{
    constexpr const char* where = "loom::lapack::gesv";
    check_square(where, A, "A");
    if (B.rows() != A.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "B", B.size(),
                                "B must have as many rows as A");
    }
    if (!B.executor() || !A.executor()->same_memory_as(*B.executor())) {
        throw BadInput(where, "A and B must live on one executor");
    }
    matrix::Dense<V> LU(A.executor(), A);
    Array<int32> pivots;
    try {
        getrf(LU, pivots, backend);
    } catch (const NumericalError& error) {
        // Report the caller's function; B has not been touched.
        throw NumericalError(where, std::string(error.what()).substr(error.where().size() + 2));
    }
    getrs(Op::none, LU, pivots, B, backend);
}

template <typename V>
void trtri(Uplo uplo, Diag diag, matrix::Dense<V>& A, Backend backend)
{
    constexpr const char* where = "loom::lapack::trtri";
    check_square(where, A, "A");
    if (A.rows() == 0) return;
    const auto& exec = *A.executor();
    if (diag == Diag::non_unit) {
        // The only way trtri fails, checked before anything is written.
        const auto row =
            LOOM_RUN_KERNEL(where, exec, first_zero_diagonal, view_of(std::as_const(A)));
        if (row >= 0) throw_zero_pivot(where, static_cast<int32>(row), "the diagonal entry");
    }
    const auto route = blas::detail::choose_route(where, exec, backend, double(A.rows()),
                                                  blas::detail::crossovers::trtri);
    if (!LOOM_TRY_VENDOR(route, exec, cusolver, openblas, trtri, uplo, diag, A)) {
        LOOM_RUN_KERNEL(where, exec, trtri,
                        Triangle<V>{view_of(A), uplo == Uplo::lower, diag == Diag::unit});
    }
}

#define LOOM_INSTANTIATE_LAPACK(V)                                                             \
    template void getrf(matrix::Dense<V>&, Array<int32>&, Backend);                             \
    template void getrs(Op, const matrix::Dense<V>&, const Array<int32>&, matrix::Dense<V>&,    \
                        Backend);                                                               \
    template void gesv(const matrix::Dense<V>&, matrix::Dense<V>&, Backend);                    \
    template void trtri(Uplo, Diag, matrix::Dense<V>&, Backend);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_LAPACK)

}  // namespace loom::lapack
