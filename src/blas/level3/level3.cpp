// Argument checks, the native/vendor choice and backend dispatch of level-2/3 BLAS.
#include <functional>
#include <optional>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "blas/level3/kernels.hpp"
#include "blas/level3/route.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/dense_blas.hpp"

namespace loom::blas {
namespace {

using detail::Route;
using detail::view_of;

template <typename V>
void check_same_executor(const char* where, const matrix::Dense<V>& a, const char* a_name,
                         const matrix::Dense<V>& b, const char* b_name)
{
    if (!a.executor() || !b.executor() || !a.executor()->same_memory_as(*b.executor())) {
        throw BadInput(where, std::string(a_name) + " and " + b_name +
                                  " live on different executors (" +
                                  (a.executor() ? a.executor()->name() : "none") + " and " +
                                  (b.executor() ? b.executor()->name() : "none") + ")");
    }
}

template <typename V>
bool overlaps(const matrix::Dense<V>& a, const matrix::Dense<V>& b)
{
    if (a.size().count() == 0 || b.size().count() == 0) return false;
    const V* a_end = a.data() + matrix::dense_span(a.size(), a.stride());
    const V* b_end = b.data() + matrix::dense_span(b.size(), b.stride());
    const std::less<const V*> less;
    return less(a.data(), b_end) && less(b.data(), a_end);
}

/// The output must neither share memory with an input nor live on another executor.
template <typename V>
void check_output(const char* where, const matrix::Dense<V>& out, const char* out_name,
                  const matrix::Dense<V>& in, const char* in_name)
{
    check_same_executor(where, in, in_name, out, out_name);
    if (overlaps(out, in)) {
        throw BadInput(where, std::string(out_name) + " overlaps " + in_name +
                                  " (the result would overwrite its own input)");
    }
}

dim2 op_size(Op op, dim2 size) { return op == Op::none ? size : size.transposed(); }

std::string op_name(const char* name, Op op)
{
    switch (op) {
    case Op::transpose: return std::string(name) + "^T";
    case Op::conj_transpose: return std::string(name) + "^H";
    default: return name;
    }
}

void check_triangle(const char* where, Side side, dim2 A, dim2 B)
{
    if (A.rows != A.cols) {
        throw DimensionMismatch(where, "A", A, "B", B, "the triangular matrix A must be square");
    }
    const size_type needed = side == Side::left ? B.rows : B.cols;
    if (needed != A.rows) {
        throw DimensionMismatch(where, "A", A, "B", B,
                                side == Side::left ? "rows of B must equal the order of A"
                                                   : "columns of B must equal the order of A");
    }
}

/// The checks and the route shared by trsm and trmm; nothing when B is empty.
template <typename V>
std::optional<Route> triangular_route(const char* where, Side side, const matrix::Dense<V>& A,
                                      const matrix::Dense<V>& B, Backend backend)
{
    check_triangle(where, side, A.size(), B.size());
    check_output(where, B, "B", A, "A");
    if (B.size().count() == 0) return std::nullopt;
    return detail::choose_route(where, *A.executor(), backend,
                                double(A.rows()) * double(B.size().count()),
                                detail::crossovers::triangular);
}

/// B = alpha op(A)^-1 B (solve: trsm) or alpha op(A) B (trmm), A triangular, on either side.
template <typename V>
void triangular(bool solve, Side side, Uplo uplo, Op op, Diag diag, V alpha,
                const matrix::Dense<V>& A, matrix::Dense<V>& B, Backend backend)
{
    const char* where = solve ? "loom::blas::trsm" : "loom::blas::trmm";
    const auto route = triangular_route(where, side, A, B, backend);
    if (!route) return;
    const auto& exec = *A.executor();
    // Named members, not a structured binding: clang 14 (the fuzz build) cannot capture one
    // in the kernel's lambda.
    const auto left = detail::as_left(side, uplo, op, diag, view_of(A), view_of(B));
    const auto& T = left.first;
    const auto& X = left.second;
    if (solve) {
        if (!LOOM_TRY_VENDOR(*route, exec, cublas, openblas, trsm, side, uplo, op, diag, alpha,
                             A, B)) {
            LOOM_RUN_KERNEL(where, exec, trsm, T, alpha, X);
        }
    } else if (!LOOM_TRY_VENDOR(*route, exec, cublas, openblas, trmm, side, uplo, op, diag,
                                alpha, A, B)) {
        LOOM_RUN_KERNEL(where, exec, trmm, T, alpha, X);
    }
}

}  // namespace

template <typename V>
void gemv(Op op, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y, Backend backend)
{
    constexpr const char* where = "loom::blas::gemv";
    const dim2 a = op_size(op, A.size());
    if (x.cols() != 1 || y.cols() != 1) {
        throw DimensionMismatch(where, "x", x.size(), "y", y.size(),
                                "x and y must be single columns");
    }
    if (x.rows() != a.cols || y.rows() != a.rows) {
        throw DimensionMismatch(where, op_name("A", op), a, "x", x.size(),
                                "x needs as many rows as op(A) has columns, y as op(A) has rows");
    }
    check_output(where, y, "y", A, "A");
    check_output(where, y, "y", x, "x");
    if (y.rows() == 0) return;
    const auto& exec = *A.executor();
    const auto route = detail::choose_route(where, exec, backend, double(a.count()), detail::crossovers::gemv);
    const auto av = detail::apply_op(op, view_of(A));
    if (!LOOM_TRY_VENDOR(route, exec, cublas, openblas, gemv, op, alpha, A, x, beta, y)) {
        LOOM_RUN_KERNEL(where, exec, gemv, alpha, av, view_of(x), beta, view_of(y));
    }
}

template <typename V>
void gemm(Op op_a, Op op_b, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& B,
          V beta, matrix::Dense<V>& C, Backend backend)
{
    constexpr const char* where = "loom::blas::gemm";
    const dim2 a = op_size(op_a, A.size());
    const dim2 b = op_size(op_b, B.size());
    if (a.cols != b.rows) {
        throw DimensionMismatch(where, op_name("A", op_a), a, op_name("B", op_b), b,
                                "inner dimensions differ");
    }
    if (C.rows() != a.rows || C.cols() != b.cols) {
        throw DimensionMismatch(where, "C", C.size(), "op(A)*op(B)", dim2{a.rows, b.cols},
                                "C must have the shape of the product");
    }
    check_output(where, C, "C", A, "A");
    check_output(where, C, "C", B, "B");
    if (C.size().count() == 0) return;
    const auto& exec = *A.executor();
    const auto route =
        detail::choose_route(where, exec, backend, double(a.count()) * double(b.cols),
                             detail::crossovers::gemm);
    const auto av = detail::apply_op(op_a, view_of(A));
    const auto bv = detail::apply_op(op_b, view_of(B));
    if (!LOOM_TRY_VENDOR(route, exec, cublas, openblas, gemm, op_a, op_b, alpha, A, B, beta, C)) {
        if (C.cols() == 1) {
            // A matrix times one vector (Dense::apply to a vector): gemv reads op(A) once
            // without the packing a general product pays for.
            LOOM_RUN_KERNEL(where, exec, gemv, alpha, av, bv, beta, view_of(C));
        } else {
            LOOM_RUN_KERNEL(where, exec, gemm, alpha, av, bv, beta, view_of(C));
        }
    }
}

template <typename V>
void gemm(V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& B, V beta,
          matrix::Dense<V>& C, Backend backend)
{
    gemm(Op::none, Op::none, alpha, A, B, beta, C, backend);
}

template <typename V>
void trsm(Side side, Uplo uplo, Op op, Diag diag, V alpha, const matrix::Dense<V>& A,
          matrix::Dense<V>& B, Backend backend)
{
    triangular(true, side, uplo, op, diag, alpha, A, B, backend);
}

template <typename V>
void trmm(Side side, Uplo uplo, Op op, Diag diag, V alpha, const matrix::Dense<V>& A,
          matrix::Dense<V>& B, Backend backend)
{
    triangular(false, side, uplo, op, diag, alpha, A, B, backend);
}

template <typename V>
void gemm_dot(Op op_a, V alpha, const matrix::Dense<V>& A, const matrix::Dense<V>& B, V beta,
              matrix::Dense<V>& C, Backend backend)
{
    constexpr const char* where = "loom::blas::gemm_dot";
    if (op_a == Op::none) {
        throw BadInput(where, "op(A) must be transpose or conj_transpose (C = alpha A^T B + "
                              "beta C); use gemm for A*B");
    }
    if (A.rows() != B.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "B", B.size(),
                                "A and B must have the same number of rows");
    }
    if (C.rows() != A.cols() || C.cols() != B.cols()) {
        throw DimensionMismatch(where, "C", C.size(), op_name("A", op_a) + "*B",
                                dim2{A.cols(), B.cols()}, "C must have the shape of the product");
    }
    check_output(where, C, "C", A, "A");
    check_output(where, C, "C", B, "B");
    if (C.size().count() == 0) return;
    const auto& exec = *A.executor();
    // A small C stays native on the GPU (see crossovers::gemm_dot); a larger one is a gemm.
    const auto route = detail::choose_route(where, exec, backend, double(C.size().count()),
                                            detail::crossovers::gemm_dot);
    const auto at = detail::apply_op(op_a, view_of(A));
    if (!LOOM_TRY_VENDOR(route, exec, cublas, openblas, gemm, op_a, Op::none, alpha, A, B, beta,
                         C)) {
        LOOM_RUN_KERNEL(where, exec, gemm_dot, alpha, at, view_of(B), beta, view_of(C));
    }
}

#define LOOM_INSTANTIATE_LEVEL3(V)                                                             \
    template void gemv(Op, V, const matrix::Dense<V>&, const matrix::Dense<V>&, V,            \
                       matrix::Dense<V>&, Backend);                                            \
    template void gemm(Op, Op, V, const matrix::Dense<V>&, const matrix::Dense<V>&, V,        \
                       matrix::Dense<V>&, Backend);                                            \
    template void gemm(V, const matrix::Dense<V>&, const matrix::Dense<V>&, V,                \
                       matrix::Dense<V>&, Backend);                                            \
    template void trsm(Side, Uplo, Op, Diag, V, const matrix::Dense<V>&, matrix::Dense<V>&,   \
                       Backend);                                                               \
    template void trmm(Side, Uplo, Op, Diag, V, const matrix::Dense<V>&, matrix::Dense<V>&,   \
                       Backend);                                                               \
    template void gemm_dot(Op, V, const matrix::Dense<V>&, const matrix::Dense<V>&, V,        \
                           matrix::Dense<V>&, Backend);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_LEVEL3)

}  // namespace loom::blas
