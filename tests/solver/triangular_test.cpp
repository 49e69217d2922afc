// LowerTrs / UpperTrs: exact solves of a triangular matrix, the triangle of a general one,
// alpha/beta applies, conj_transpose, errors, and Gauss-Seidel as a GMRES preconditioner.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/solver/triangular.hpp"
#include "loom/sparse/spmv.hpp"
#include "loom/sparse/triangle.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace {

using loom::blas::Uplo;
namespace matrix = loom::matrix;
namespace solver = loom::solver;
namespace sparse = loom::sparse;

/// || T x - b || / || b || for T the given triangle of A.
double residual(const matrix::Csr<double>& A, Uplo uplo, const matrix::Dense<double>& x,
                const matrix::Dense<double>& b)
{
    const auto ref = loom::test::reference();
    const auto T = sparse::triangle(matrix::Csr<double>(ref, A), uplo);
    matrix::Dense<double> Tx(ref, b.size());
    T.apply(matrix::Dense<double>(ref, x), Tx);
    const auto t = Tx.to_host();
    const auto e = matrix::Dense<double>(ref, b).to_host();
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        diff += (t[i] - e[i]) * (t[i] - e[i]);
        norm += e[i] * e[i];
    }
    return std::sqrt(diff / norm);
}

TEST(TriangularSolver, SolvesWithTheTriangleOfTheSystem)
{
    for (const auto& exec : loom::test::all_executors()) {
        const auto A = loom::test::grid_matrix<double>(exec, 12, 0.3);
        const auto b = loom::test::random_dense<double>(exec, {144, 2});
        matrix::Dense<double> x(exec, {144, 2});
        const auto lower = solver::LowerTrs<double>::build().on(exec)->generate(A);
        lower->apply(b, x);
        EXPECT_LT(residual(*A, Uplo::lower, x, b), 1e-13) << exec->name();
        const auto upper = solver::UpperTrs<double>::build().on(exec)->generate(A);
        upper->apply(b, x);
        EXPECT_LT(residual(*A, Uplo::upper, x, b), 1e-13) << exec->name();
        EXPECT_EQ(upper->matrix().nnz(), lower->matrix().nnz());
        EXPECT_EQ(lower->handle().levels(), 23);  // the anti-diagonals of a 12 x 12 grid

        // x = alpha L^-1 b + beta x.
        matrix::Dense<double> solved(exec, {144, 2});
        lower->apply(b, solved);
        matrix::Dense<double> y(exec, b);
        lower->apply(2.0, b, -1.0, y);
        const auto s = solved.to_host();
        const auto bb = b.to_host();
        std::vector<double> expected(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) expected[i] = 2 * s[i] - bb[i];
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected, 1e-13);
    }
}

TEST(TriangularSolver, UsesATriangleInPlaceAndCopiesAnyOtherMatrix)
{
    for (const auto& exec : loom::test::all_executors()) {
        const auto A = loom::test::grid_matrix<double>(exec, 12, 0.3);
        const auto L = std::make_shared<const matrix::Csr<double>>(sparse::triangle(*A, Uplo::lower));
        const auto b = loom::test::random_dense<double>(exec, {144, 1});
        matrix::Dense<double> x(exec, {144, 1});
        const auto lower = solver::LowerTrs<double>::build().on(exec)->generate(L);
        lower->apply(b, x);
        EXPECT_LT(residual(*A, Uplo::lower, x, b), 1e-13) << exec->name();
        // A factor in host memory is solved with in place (no copy of the triangle).
        EXPECT_EQ(&lower->matrix() == L.get(), exec->is_host()) << exec->name();
        // L holds more than the upper triangle (the diagonal): UpperTrs takes a copy of it.
        const auto upper = solver::UpperTrs<double>::build().on(exec)->generate(L);
        EXPECT_NE(&upper->matrix(), L.get()) << exec->name();
        EXPECT_EQ(upper->matrix().nnz(), 144) << exec->name();
        upper->apply(b, x);
        EXPECT_LT(residual(*L, Uplo::upper, x, b), 1e-13) << exec->name();
    }
}

TEST(TriangularSolver, ConjTransposeSolvesWithTheTransposedTriangle)
{
    for (const auto& exec : loom::test::all_executors()) {
        const auto A = loom::test::grid_matrix<double>(exec, 10, 0.4);
        const auto lower = solver::LowerTrs<double>::build().on(exec)->generate(A);
        const auto lower_h = lower->conj_transpose();
        const auto b = loom::test::random_dense<double>(exec, {100, 1});
        matrix::Dense<double> x(exec, {100, 1});
        lower_h->apply(b, x);
        // L^T x = b: check with the transposed triangle through SpMV.
        const auto ref = loom::test::reference();
        const auto L = sparse::triangle(matrix::Csr<double>(ref, *A), Uplo::lower);
        matrix::Dense<double> Ltx(ref, {100, 1});
        sparse::spmv(sparse::Mode::transpose, 1.0, L, matrix::Dense<double>(ref, x), 0.0, Ltx);
        LOOM_EXPECT_NEAR_VECTORS(Ltx.to_host(), b.to_host(), 1e-13);
    }
}

TEST(TriangularSolver, UnitDiagonalAndErrors)
{
    const auto exec = loom::test::reference();
    const auto A = loom::test::grid_matrix<double>(exec, 6);
    const auto unit = solver::LowerTrs<double>::build().with_unit_diagonal().on(exec);
    EXPECT_TRUE(unit->parameters().unit_diagonal);
    const auto op = unit->generate(A);
    EXPECT_EQ(op->handle().options().diag, loom::blas::Diag::unit);

    const auto factory = solver::UpperTrs<double>::build().on(exec);
    EXPECT_THROW(factory->generate(nullptr), loom::BadInput);
    const auto rect = std::make_shared<matrix::Csr<double>>(
        matrix::Csr<double>::from_host(exec, {2, 3}, {0, 1, 2}, {0, 1}, {1.0, 1.0}));
    EXPECT_THROW(factory->generate(rect), loom::DimensionMismatch);
    const auto dense = std::make_shared<matrix::Dense<double>>(exec, loom::dim2{2, 2});
    EXPECT_THROW(factory->generate(dense), loom::NotSupported);
    const auto zero = std::make_shared<matrix::Csr<double>>(
        matrix::Csr<double>::from_host(exec, {2, 2}, {0, 1, 2}, {0, 1}, {1.0, 0.0}));
    EXPECT_THROW(factory->generate(zero), loom::NumericalError);
    const auto sync_free = solver::LowerTrs<double>::build()
                               .with_algorithm(sparse::SptrsvAlgorithm::sync_free)
                               .on(exec);
    EXPECT_THROW(sync_free->generate(A), loom::NotSupported);
}

TEST(TriangularSolver, GaussSeidelPreconditionsGmres)
{
    for (const auto& exec : loom::test::all_executors()) {
        const auto A = loom::test::grid_matrix<double>(exec, 16, 0.5);
        const auto b = loom::test::random_dense<double>(exec, {256, 1});
        const auto iterations = [&](std::shared_ptr<const loom::LinOpFactory<double>> precond) {
            auto builder = solver::Gmres<double>::build().with_criteria(
                loom::stop::max_iterations(500) | loom::stop::relative_residual(1e-10));
            if (precond) builder.with_preconditioner(precond);
            const auto gmres = builder.on(exec)->generate(A);
            matrix::Dense<double> x(exec, {256, 1});
            x.fill(0.0);
            gmres->apply(b, x);
            EXPECT_TRUE(gmres->result().converged()) << exec->name();
            return gmres->result().iterations;
        };
        EXPECT_LT(iterations(solver::LowerTrs<double>::build().on(exec)), iterations(nullptr));
    }
}

TEST(TriangularSolver, JsonConfigNamesThem)
{
    const auto exec = loom::test::reference();
    const auto A = loom::test::grid_matrix<double>(exec, 8, 0.5);
    const auto b = loom::test::random_dense<double>(exec, {64, 1});
    for (const auto* config :
         {R"({"solver": "gmres", "preconditioner": "upper_trs", "criteria": {"max_iters": 3}})",
          R"({"solver": "gmres", "criteria": {"max_iters": 3},
              "preconditioner": {"type": "upper_trs", "algorithm": "level_set"}})"}) {
        const auto gmres = solver::from_config<double>(config, exec)->generate(A);
        const auto* iterative = dynamic_cast<const solver::IterativeSolver<double>*>(gmres.get());
        ASSERT_NE(iterative, nullptr);
        const auto* upper =
            dynamic_cast<const solver::UpperTrs<double>*>(iterative->preconditioner().get());
        ASSERT_NE(upper, nullptr) << config;
    }
    EXPECT_THROW(solver::from_config<double>(
                     R"({"solver": "cg", "criteria": {"max_iters": 3},
                         "preconditioner": {"type": "lower_trs", "algorithm": "magic"}})",
                     exec),
                 loom::BadInput);
}

}  // namespace
