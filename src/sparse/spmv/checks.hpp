// The argument checks that every SpMV entry point shares (CSR, COO, ELL, SELL-P, Stencil):
// shapes, executors, overlap of x and y, and the products that need no kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::sparse::spmv_checks {

inline bool transposes(Mode mode)
{
    return mode == Mode::transpose || mode == Mode::conj_transpose;
}

inline std::string executor_name(const std::shared_ptr<const Executor>& exec)
{
    return exec ? exec->name() : "none";
}

/// Whether a and b share an element. Blocks with one stride (views into one matrix, such as
/// two columns of a Krylov basis) are compared exactly; others by the memory they span.
template <typename V>
bool overlap(const matrix::Dense<V>& a, const matrix::Dense<V>& b)
{
    if (a.size().count() == 0 || b.size().count() == 0) return false;
    const auto a_begin = reinterpret_cast<std::uintptr_t>(a.data());
    const auto b_begin = reinterpret_cast<std::uintptr_t>(b.data());
    const auto a_end = a_begin + a.values().size() * sizeof(V);
    const auto b_end = b_begin + b.values().size() * sizeof(V);
    if (a_begin >= b_end || b_begin >= a_end) return false;
    const auto bytes = static_cast<std::intptr_t>(b_begin - a_begin);
    if (a.stride() != b.stride() || bytes % static_cast<std::intptr_t>(sizeof(V)) != 0) {
        return true;
    }
    // b(i, j) is a(i + row_shift, column_shift + j), or, where column_shift + j passes the
    // stride, a(i + row_shift + 1, column_shift + j - stride).
    const size_type stride = a.stride();
    const size_type offset = bytes / static_cast<std::intptr_t>(sizeof(V));
    const size_type row_shift = offset >= 0 ? offset / stride : -((-offset + stride - 1) / stride);
    const size_type column_shift = offset - row_shift * stride;
    const auto rows_meet = [&](size_type shift) {
        return shift < a.rows() && shift + b.rows() > 0;
    };
    return (column_shift < a.cols() && rows_meet(row_shift)) ||
           (column_shift + b.cols() > stride && rows_meet(row_shift + 1));
}

/// Shapes fit op(A), A, x and y share an executor, and y does not overlap x.
template <typename V, typename Matrix>
void check_spmv(const char* where, Mode mode, const Matrix& A, const matrix::Dense<V>& x,
                const matrix::Dense<V>& y)
{
    const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
    const std::string op_name = std::string("op(A) with mode ") + to_string(mode);
    if (x.rows() != op.cols) {
        throw DimensionMismatch(where, op_name, op, "x", x.size(),
                                "x needs one row per column of op(A)");
    }
    if (y.rows() != op.rows) {
        throw DimensionMismatch(where, op_name, op, "y", y.size(),
                                "y needs one row per row of op(A)");
    }
    if (x.cols() != y.cols()) {
        throw DimensionMismatch(where, "x", x.size(), "y", y.size(),
                                "x and y need the same number of columns");
    }
    const auto& exec = A.executor();
    for (const auto* operand : {&x.executor(), &y.executor()}) {
        if (!exec || !*operand || !exec->same_memory_as(**operand)) {
            throw BadInput(where, "A, x and y must live in one executor's memory (A is on " +
                                           executor_name(exec) + ", x on " +
                                           executor_name(x.executor()) + ", y on " +
                                           executor_name(y.executor()) + ")");
        }
    }
    if (overlap(x, y)) {
        throw BadInput(where, "y shares elements with x; the result needs its own storage");
    }
}

/// True when the product is trivial and y has been handled without a kernel: nothing to
/// compute (no rows or columns), or alpha == 0 so that y = beta * y (x and A are not read).
template <typename V>
bool handled_trivially(V alpha, V beta, matrix::Dense<V>& y)
{
    if (y.rows() == 0 || y.cols() == 0) return true;
    if (alpha != V{0}) return false;
    if (beta == V{0}) {
        blas::fill(y, V{0});
    } else if (beta != V{1}) {
        blas::scal(beta, y);
    }
    return true;
}

}  // namespace loom::sparse::spmv_checks
