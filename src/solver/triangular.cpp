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
    triangle_ = std::make_shared<const matrix::Csr<V, I>>(sparse::triangle(*A, uplo));
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
