// Triangular solvers: a triangular CSR matrix T as the LinOp x = T^-1 b, solved exactly by
// SpTRSV (loom/sparse/sptrsv.hpp), analysed once at generation.
//
//     auto lower = solver::LowerTrs<double>::build()
//                      .with_algorithm(sparse::SptrsvAlgorithm::level_set)
//                      .on(exec);
//     auto op = lower->generate(L);            // x = L^-1 b
//     auto gs = solver::Gmres<double>::build().with_preconditioner(lower)...on(exec);
//
// generate() takes the lower (upper) triangle of the system with its diagonal, so a
// triangular matrix is solved as it is and a general one becomes the Gauss-Seidel
// preconditioner (D + L)^-1 ((D + U)^-1). The operator holds that triangle and its analysis;
// conj_transpose() shares the triangle and solves with T^H.
#pragma once

#include <memory>

#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/solver/operators.hpp"
#include "loom/blas/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::solver {

struct TriangularSolverParameters {
    sparse::SptrsvAlgorithm algorithm = sparse::SptrsvAlgorithm::automatic;
    /// Take T's diagonal as all ones (stored diagonal entries are ignored).
    bool unit_diagonal = false;
};

template <typename V, typename I, blas::Uplo uplo>
class TriangularSolver final
    : public EnableGenerated<TriangularSolver<V, I, uplo>, V, TriangularSolverParameters>,
      public ConjTransposable<V> {
public:
    using index_type = I;
    using Parameters = TriangularSolverParameters;

    class Builder : public FactoryBuilder<Builder, Parameters, TriangularSolver> {
    public:
        Builder& with_algorithm(sparse::SptrsvAlgorithm algorithm)
        {
            return this->set(&Parameters::algorithm, algorithm);
        }
        Builder& with_unit_diagonal(bool unit = true)
        {
            return this->set(&Parameters::unit_diagonal, unit);
        }
    };

    /// Made by Factory::generate: the solver of `system`'s triangle, which must be a square
    /// matrix::Csr<V, I> (copied to exec when it lives elsewhere). BadInput when null,
    /// NotSupported naming the type of any other operator, DimensionMismatch when not square,
    /// NumericalError naming the row of a zero diagonal entry (non-unit diagonal).
    TriangularSolver(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
                     const Parameters& params);

    /// The triangle solved with.
    const matrix::Csr<V, I>& matrix() const noexcept { return *triangle_; }
    /// The analysis, for its queries (levels(), algorithm(), ...).
    const sparse::SptrsvHandle<V, I>& handle() const noexcept { return *handle_; }
    /// Whether this operator solves with T^H.
    bool is_conj_transposed() const noexcept { return conj_transposed_; }

    /// The solver of T^H, sharing the triangle.
    std::shared_ptr<const LinOp<V>> conj_transpose() const override;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const override;

private:
    TriangularSolver(const TriangularSolver& other, bool conj_transposed);
    /// A new analysis of the triangle for op none or conj_transpose.
    void analyse();

    std::shared_ptr<const matrix::Csr<V, I>> triangle_;
    std::shared_ptr<sparse::SptrsvHandle<V, I>> handle_;
    bool conj_transposed_ = false;
};

/// x = L^-1 b for the lower triangle L of the system (with its diagonal).
template <typename V, typename I = int32>
using LowerTrs = TriangularSolver<V, I, blas::Uplo::lower>;
/// x = U^-1 b for the upper triangle U of the system (with its diagonal).
template <typename V, typename I = int32>
using UpperTrs = TriangularSolver<V, I, blas::Uplo::upper>;

}  // namespace loom::solver

LOOM_PUBLIC_END
