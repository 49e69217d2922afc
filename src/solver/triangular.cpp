// LowerTrs / UpperTrs (include/loom/solver/triangular.hpp).
#include "loom/solver/triangular.hpp"

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/triangle.hpp"
#include "precond/system_matrix.hpp"
#include "solver/scaled_apply.hpp"

namespace loom::solver {
namespace {

/// Whether A, in host memory, stores only entries of the `uplo` triangle (and the diagonal).
template <typename V, typename I>
bool holds_only_triangle(const matrix::Csr<V, I>& A, blas::Uplo uplo)
{
    if (!A.executor()->is_host()) return false;
    const I* ptrs = A.row_ptrs().const_data();
    const I* cols = A.col_idxs().const_data();
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (uplo == blas::Uplo::lower ? cols[k] > r : cols[k] < r) return false;
        }
    }
    return true;
}

}  // namespace

template <typename V, typename I, blas::Uplo uplo>
TriangularSolver<V, I, uplo>::TriangularSolver(std::shared_ptr<const Executor> exec,
                                               std::shared_ptr<const LinOp<V>> system,
                                               const Parameters& params)
    : EnableGenerated<TriangularSolver, V, Parameters>(exec, {}, params)
{
    const auto A = precond::detail::square_csr_system<V, I>(
        uplo == blas::Uplo::lower ? "loom::solver::LowerTrs" : "loom::solver::UpperTrs", system,
        exec);
    this->set_size(A->size());
    // A factor (ILU's L and U, as every preconditioner passes) is used in place: copying the
    // triangle (sparse::triangle, then from_host's validation) was ~15% of an ILU(0)
    // preconditioner's setup on one thread (perf, add32). A is const and shared, as the system
    // matrix of any solver.
    triangle_ = holds_only_triangle(*A, uplo)
                    ? A
                    : std::make_shared<const matrix::Csr<V, I>>(sparse::triangle(*A, uplo));
    analyse();
}

template <typename V, typename I, blas::Uplo uplo>
TriangularSolver<V, I, uplo>::TriangularSolver(const TriangularSolver& other, bool conj_transposed)
    : EnableGenerated<TriangularSolver, V, Parameters>(other.executor(), other.size(),
                                                       other.parameters()),
      triangle_(other.triangle_),
      conj_transposed_(conj_transposed)
{
    analyse();
}

template <typename V, typename I, blas::Uplo uplo>
void TriangularSolver<V, I, uplo>::analyse()
{
    handle_ = std::make_shared<sparse::SptrsvHandle<V, I>>(sparse::SptrsvOptions{
        .algorithm = this->parameters().algorithm,
        .uplo = uplo,
        .diag = this->parameters().unit_diagonal ? blas::Diag::unit : blas::Diag::non_unit,
        .op = conj_transposed_ ? blas::Op::conj_transpose : blas::Op::none});
    sparse::sptrsv_symbolic(*handle_, *triangle_);
}

template <typename V, typename I, blas::Uplo uplo>
std::shared_ptr<const LinOp<V>> TriangularSolver<V, I, uplo>::conj_transpose() const
{
    return std::shared_ptr<const TriangularSolver>(new TriangularSolver(*this, !conj_transposed_));
}

template <typename V, typename I, blas::Uplo uplo>
void TriangularSolver<V, I, uplo>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    sparse::sptrsv_solve(*handle_, *triangle_, b, x);
}

template <typename V, typename I, blas::Uplo uplo>
void TriangularSolver<V, I, uplo>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                                              matrix::Dense<V>& x) const
{
    loom::detail::scaled_apply(this->executor(), alpha, b, beta, x,
                               [this](const auto& in, auto& out) { apply_impl(in, out); });
}

#define LOOM_INSTANTIATE_TRIANGULAR_SOLVER(V, I)              \
    template class TriangularSolver<V, I, blas::Uplo::lower>; \
    template class TriangularSolver<V, I, blas::Uplo::upper>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_TRIANGULAR_SOLVER)

}  // namespace loom::solver
