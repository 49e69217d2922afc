// LowerTrs / UpperTrs (include/loom/solver/triangular.hpp).
#include "loom/solver/triangular.hpp"

#include <string>
#include <typeinfo>

#include "base/instantiate.hpp"
#include "log/demangle.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/triangle.hpp"

namespace loom::solver {

template <typename V, typename I, blas::Uplo uplo>
auto TriangularSolver<V, I, uplo>::Builder::with_algorithm(sparse::SptrsvAlgorithm algorithm)
    -> Builder&
{
    params_.algorithm = algorithm;
    return *this;
}

template <typename V, typename I, blas::Uplo uplo>
auto TriangularSolver<V, I, uplo>::Builder::with_unit_diagonal(bool unit) -> Builder&
{
    params_.unit_diagonal = unit;
    return *this;
}

template <typename V, typename I, blas::Uplo uplo>
auto TriangularSolver<V, I, uplo>::Builder::on(std::shared_ptr<const Executor> exec) const
    -> std::shared_ptr<const Factory>
{
    return std::make_shared<const Factory>(std::move(exec), params_);
}

template <typename V, typename I, blas::Uplo uplo>
TriangularSolver<V, I, uplo>::Factory::Factory(std::shared_ptr<const Executor> exec,
                                               Parameters params)
    : LinOpFactory<V>(std::move(exec)), params_(params)
{}

template <typename V, typename I, blas::Uplo uplo>
auto TriangularSolver<V, I, uplo>::Factory::generate(std::shared_ptr<const LinOp<V>> system) const
    -> std::shared_ptr<TriangularSolver>
{
    const char* where = uplo == blas::Uplo::lower ? "loom::solver::LowerTrs::Factory::generate"
                                                  : "loom::solver::UpperTrs::Factory::generate";
    if (!system) throw BadInput(where, "the system matrix is null");
    const auto* csr = dynamic_cast<const matrix::Csr<V, I>*>(system.get());
    if (csr == nullptr) {
        const auto& op = *system;
        throw NotSupported(where, std::string("a triangular solver needs a matrix::Csr<") +
                                      type_name<V>() + ", " + type_name<I>() +
                                      "> system matrix; got " + detail::demangle(typeid(op)));
    }
    if (csr->rows() != csr->cols()) {
        throw DimensionMismatch(where, "the system matrix is " + to_string(csr->size()) +
                                           "; a triangular solve needs a square one");
    }
    return std::make_shared<TriangularSolver>(this->executor(), *csr, params_);
}

template <typename V, typename I, blas::Uplo uplo>
std::shared_ptr<LinOp<V>> TriangularSolver<V, I, uplo>::Factory::generate_impl(
    std::shared_ptr<const LinOp<V>> system) const
{
    return generate(std::move(system));
}

template <typename V, typename I, blas::Uplo uplo>
TriangularSolver<V, I, uplo>::TriangularSolver(std::shared_ptr<const Executor> exec,
                                               const matrix::Csr<V, I>& A, const Parameters& params)
    : LinOp<V>(exec, A.size()), params_(params)
{
    const auto on_exec = A.executor()->same_memory_as(*exec)
                             ? sparse::triangle(A, uplo)
                             : sparse::triangle(matrix::Csr<V, I>(exec, A), uplo);
    triangle_ = std::make_shared<const matrix::Csr<V, I>>(std::move(on_exec));
    analyse();
}

template <typename V, typename I, blas::Uplo uplo>
TriangularSolver<V, I, uplo>::TriangularSolver(const TriangularSolver& other, bool conj_transposed)
    : LinOp<V>(other.executor(), other.size()),
      params_(other.params_),
      triangle_(other.triangle_),
      conj_transposed_(conj_transposed)
{
    analyse();
}

template <typename V, typename I, blas::Uplo uplo>
void TriangularSolver<V, I, uplo>::analyse()
{
    handle_ = std::make_shared<sparse::SptrsvHandle<V, I>>(sparse::SptrsvOptions{
        .algorithm = params_.algorithm,
        .uplo = uplo,
        .diag = params_.unit_diagonal ? blas::Diag::unit : blas::Diag::non_unit,
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
    matrix::Dense<V> solution(this->executor(), x.size());
    sparse::sptrsv_solve(*handle_, *triangle_, b, solution);
    blas::axpby(alpha, solution, beta, x);
}

#define LOOM_INSTANTIATE_TRIANGULAR_SOLVER(V, I)              \
    template class TriangularSolver<V, I, blas::Uplo::lower>; \
    template class TriangularSolver<V, I, blas::Uplo::upper>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_TRIANGULAR_SOLVER)

}  // namespace loom::solver
