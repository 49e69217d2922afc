// Multicolor Gauss-Seidel: the checked entry point of the sweep kernels. The orders come
// from the caller (precond::GaussSeidel colors the graph), so sparse needs no graph kernel.
#include "loom/sparse/gauss_seidel.hpp"

#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "sparse/gauss_seidel/kernels.hpp"

namespace loom::sparse {
namespace {

template <typename V, typename I>
void check_square(const char* where, const matrix::Csr<V, I>& A)
{
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(
            where, "A is " + loom::to_string(A.size()) + "; Gauss-Seidel needs a square matrix");
    }
    if (!A.executor()) throw BadInput(where, "A has no executor");
}

}  // namespace

template <typename V, typename I>
void gauss_seidel_sweep(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal,
                        const SweepOrder<I>& order, SweepDirection direction, V omega,
                        const matrix::Dense<V>& b, matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::sparse::gauss_seidel_sweep";
    check_square(where, A);
    const auto n = A.rows();
    const auto clusters = order.is_point() ? n : order.cluster_ptrs.size() - 1;
    if (inverse_diagonal.size() != n || order.rows.size() != n ||
        (!order.is_point() && order.cluster_ptrs.size() == 0) ||
        (order.num_colors() > 0 ? order.color_ptrs.back() != clusters : n != 0)) {
        throw BadInput(where, "the inverse diagonal or the sweep order does not belong to the " +
                                  std::to_string(n) + "-row matrix");
    }
    if (b.rows() != n || x.rows() != n || b.cols() != x.cols()) {
        throw DimensionMismatch(
            where, "b", b.size(), "x", x.size(),
            "b and x need A's " + std::to_string(n) + " rows and the same number of columns");
    }
    const auto& exec = A.executor();
    for (const auto* other :
         {&inverse_diagonal.executor(), &order.rows.executor(), &b.executor(), &x.executor()}) {
        if (!*other || !exec->same_memory_as(**other)) {
            throw BadInput(where,
                           "A, the inverse diagonal, the order, b and x must live in "
                           "one executor's memory");
        }
    }
    if (n == 0 || b.cols() == 0) return;
    LOOM_RUN_KERNEL(where, *exec, gauss_seidel_sweep, A, inverse_diagonal, order, direction, omega,
                    b, x);
}

#define LOOM_INSTANTIATE_GAUSS_SEIDEL(V, I)                                                       \
    template void gauss_seidel_sweep(const matrix::Csr<V, I>&, const Array<V>&,                   \
                                     const SweepOrder<I>&, SweepDirection, V,                     \
                                     const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GAUSS_SEIDEL)

}  // namespace loom::sparse
