#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/solver/operators.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/io.hpp"
#include "loom/solver/solvers.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


template <typename V>
class Solvers : public ::testing::Test {
protected:
    std::shared_ptr<const Executor> ref = test::reference();

    /// SPD/HPD for the CG family, nonsymmetric for the others.
    std::shared_ptr<matrix::Csr<V>> system_for(const std::string& name, size_type n = 12) const
    {
        return needs_spd(name) ? grid_matrix<V>(ref, n, 0.0, 0.2)
                               : grid_matrix<V>(ref, n, 0.5, 0.2);
    }

    std::shared_ptr<const stop::Criterion> criteria() const
    {
        return stop::max_iterations(2000) | stop::relative_residual(solve_tolerance<V>());
    }

    /// k random right-hand sides for A.
    matrix::Dense<V> rhs(const LinOp<V>& A, size_type k) const
    {
        return test::random_dense<V>(ref, {A.size().rows, k}, 3);
    }

    /// The zero initial guess for b.
    matrix::Dense<V> zero_guess(const matrix::Dense<V>& b) const
    {
        matrix::Dense<V> x(ref, b.size());
        x.fill(V{0});
        return x;
    }
};
TYPED_TEST_SUITE(Solvers, loom::test::ValueTypes);

TYPED_TEST(Solvers, EachConvergesToTheTolerance)
{
    using V = TypeParam;
    for (const auto& [name, make] : all_solvers<V>()) {
        SCOPED_TRACE(name);
        auto A = this->system_for(name);
        auto b = this->rhs(*A, 1);
        auto x = this->zero_guess(b);
        auto solver = make(this->ref, this->criteria())->generate(A);
        solver->apply(b, x);
        const auto& result =
            dynamic_cast<const solver::IterativeSolver<V>&>(*solver).result();
        EXPECT_TRUE(result.converged()) << result.message();
        EXPECT_GT(result.iterations, 0);
        EXPECT_LE(result.relative_residual_norm(), solve_tolerance<V>());
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    }
}

TYPED_TEST(Solvers, ColumnsOfOneSolveMatchSeparateSolves)
{
    using V = TypeParam;
    for (const auto& [name, make] : all_solvers<V>()) {
        SCOPED_TRACE(name);
        auto A = this->system_for(name, 8);
        const auto n = A->size().rows;
        auto b = test::random_dense<V>(this->ref, {n, 3}, 11);
        auto col2 = b.column(2);
        col2.fill(V{0});  // a zero right-hand side among others
        auto x = test::random_dense<V>(this->ref, {n, 3}, 12);
        const auto x0 = x;
        auto solver = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(
            make(this->ref, this->criteria())->generate(A));
        solver->apply(b, x);
        const auto together = solver->result();
        ASSERT_EQ(together.columns.size(), 3u);
        EXPECT_TRUE(together.converged()) << together.message();
        EXPECT_EQ(together.columns[2].iteration, 0);
        EXPECT_STREQ(together.columns[2].detail, "zero right-hand side");
        EXPECT_EQ(std::abs(x.at(0, 2)), 0.0);
        for (size_type j = 0; j < 2; ++j) {
            auto bj = matrix::Dense<V>(this->ref, b.column(j));
            auto xj = matrix::Dense<V>(this->ref, matrix::Dense<V>(x0).column(j));
            solver->apply(bj, xj);
            EXPECT_EQ(solver->result().columns[0].iteration, together.columns[j].iteration)
                << "column " << j;
            std::vector<V> joint;
            for (size_type i = 0; i < n; ++i) joint.push_back(x.at(i, j));
            LOOM_EXPECT_NEAR_VECTORS(joint, xj.to_host(), 1e3 * solve_tolerance<V>());
        }
    }
}

TYPED_TEST(Solvers, BackendsAgreeWithReference)
{
    using V = TypeParam;
    for (const auto& exec : test::backends()) {
        for (const auto& [name, make] : all_solvers<V>()) {
            SCOPED_TRACE(name + " on " + exec->name());
            auto A = this->system_for(name);
            auto b = test::random_dense<V>(this->ref, {A->size().rows, 2}, 5);
            matrix::Dense<V> x_ref(this->ref, b.size());
            x_ref.fill(V{0});
            auto ref_solver = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(
                make(this->ref, this->criteria())->generate(A));
            ref_solver->apply(b, x_ref);

            auto A_exec = std::make_shared<matrix::Csr<V>>(exec, *A);
            matrix::Dense<V> b_exec(exec, b);
            matrix::Dense<V> x_exec(exec, b.size());
            x_exec.fill(V{0});
            auto solver = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(
                make(exec, this->criteria())->generate(A_exec));
            solver->apply(b_exec, x_exec);

            ASSERT_TRUE(solver->result().converged()) << solver->result().message();
            for (size_type j = 0; j < 2; ++j) {
                const auto ref_iterations =
                    static_cast<double>(ref_solver->result().columns[j].iteration);
                // In single precision the summation order of the parallel reductions changes
                // the iterates enough for the erratic methods (CGS) to take a few more or less.
                const double allowed =
                    std::is_same_v<remove_complex_t<V>, float> ? 2 + 0.2 * ref_iterations : 1.0;
                EXPECT_NEAR(static_cast<double>(solver->result().columns[j].iteration),
                            ref_iterations, allowed);
            }
            EXPECT_LE(true_relative_residual(*A_exec, b_exec, x_exec),
                      20 * solve_tolerance<V>());
            LOOM_EXPECT_NEAR_VECTORS(x_exec.to_host(), x_ref.to_host(),
                                     1e3 * solve_tolerance<V>());
        }
    }
}

TYPED_TEST(Solvers, StartFromTheInitialGuess)
{
    using V = TypeParam;
    auto A = this->system_for("cg");
    auto b = this->rhs(*A, 1);
    auto x = this->zero_guess(b);
    auto cg = solver::Cg<V>::build().with_criteria(this->criteria()).on(this->ref)->generate(A);
    cg->apply(b, x);
    const auto first = cg->result().iterations;
    cg->apply(b, x);  // already solved: converges at the initial check
    EXPECT_EQ(cg->result().iterations, 0);
    EXPECT_TRUE(cg->result().converged());

    auto zero_start = solver::Cg<V>::build()
                          .with_criteria(this->criteria())
                          .with_initial_guess(solver::InitialGuess::zero)
                          .on(this->ref)
                          ->generate(A);
    zero_start->apply(b, x);
    EXPECT_EQ(zero_start->result().iterations, first);
}

TYPED_TEST(Solvers, ZeroRightHandSideGivesZero)
{
    using V = TypeParam;
    for (const auto& [name, make] : all_solvers<V>()) {
        SCOPED_TRACE(name);
        auto A = this->system_for(name, 4);
        matrix::Dense<V> b(this->ref, {A->size().rows, 1});
        b.fill(V{0});
        auto x = test::random_dense<V>(this->ref, b.size(), 9);
        auto solver = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(
            make(this->ref, this->criteria())->generate(A));
        solver->apply(b, x);
        EXPECT_TRUE(solver->result().converged());
        EXPECT_EQ(solver->result().iterations, 0);
        for (const auto v : x.to_host()) EXPECT_EQ(v, V{0});
    }
}

TYPED_TEST(Solvers, BreakdownStopsWithAClearStatus)
{
    using V = TypeParam;
    // [[0, 1], [1, 0]] with b = e_1: p^H A p = 0 (CG, FCG, BiCG), r~^H A p = 0 (BiCGSTAB, CGS).
    auto A = std::make_shared<matrix::Csr<V>>(matrix::Csr<V>::from_host(
        this->ref, {2, 2}, {0, 1, 2}, {1, 0}, {V{1}, V{1}}));
    auto b = matrix::Dense<V>::from_host(this->ref, {2, 1}, {V{1}, V{0}});
    for (const auto& [name, make] : all_solvers<V>()) {
        SCOPED_TRACE(name);
        auto x = this->zero_guess(b);
        auto solver = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(
            make(this->ref, this->criteria())->generate(A));
        solver->apply(b, x);
        const auto& result = solver->result();
        for (const auto v : x.to_host()) EXPECT_TRUE(std::isfinite(std::abs(v)));
        if (name.find("gmres") != std::string::npos || name == "minres") {
            // A is symmetric: MINRES solves it.
            EXPECT_TRUE(result.converged()) << result.message();
            EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
        } else if (name == "idr") {  // its random shadow space spans R^2: it may just solve it
            EXPECT_TRUE(result.converged() || result.reason == stop::Reason::breakdown)
                << result.message();
        } else if (name != "ir") {  // IR's inner CG breaks down, so IR just stalls
            EXPECT_EQ(result.reason, stop::Reason::breakdown) << result.message();
            EXPECT_NE(std::string(result.detail), "");
            EXPECT_NE(result.message().find("breakdown"), std::string::npos);
        }
    }
}

TYPED_TEST(Solvers, NanStopsAndKeepsTheLastGoodIterate)
{
    using V = TypeParam;
    for (const auto& [name, make] : all_solvers<V>()) {
        SCOPED_TRACE(name);
        auto A = this->system_for(name, 4);
        // Poisons its results from the third application on: the solve must notice and
        // keep a finite x.
        auto calls = std::make_shared<int>(0);
        auto poisoned = std::make_shared<MatrixFree<V>>(
            this->ref, A->size(),
            [A, calls](const matrix::Dense<V>& in, matrix::Dense<V>& out) {
                A->apply(in, out);
                if (++*calls >= 3) out.fill(V{std::numeric_limits<double>::quiet_NaN()});
            },
            [A](const matrix::Dense<V>& in, matrix::Dense<V>& out) {
                loom::conj_transpose<V>(A)->apply(in, out);
            });
        auto b = this->rhs(*A, 2);
        auto x = this->zero_guess(b);
        auto solver = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(
            make(this->ref, this->criteria())->generate(poisoned));
        solver->apply(b, x);
        EXPECT_EQ(solver->result().reason, stop::Reason::not_finite)
            << solver->result().message();
        for (const auto v : x.to_host()) EXPECT_TRUE(std::isfinite(std::abs(v)));
    }
}

TYPED_TEST(Solvers, ThrowOnFailureRaises)
{
    using V = TypeParam;
    auto A = this->system_for("cg");
    auto b = this->rhs(*A, 1);
    auto x = this->zero_guess(b);
    auto cg = solver::Cg<V>::build()
                  .with_criteria(stop::max_iterations(2), stop::relative_residual(1e-12))
                  .with_throw_on_failure()
                  .on(this->ref)
                  ->generate(A);
    try {
        cg->apply(b, x);
        FAIL() << "no exception";
    } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("iteration limit"), std::string::npos) << e.what();
    }
    EXPECT_EQ(cg->result().reason, stop::Reason::iteration_limit);
    EXPECT_EQ(cg->result().iterations, 2);
}

TYPED_TEST(Solvers, BadInputIsRejected)
{
    using V = TypeParam;
    auto A = this->system_for("cg", 3);
    auto cg = solver::Cg<V>::build().with_criteria(this->criteria()).on(this->ref);
    auto rect = std::make_shared<matrix::Dense<V>>(this->ref, dim2{3, 4});
    EXPECT_THROW(cg->generate(rect), DimensionMismatch);
    EXPECT_THROW(cg->generate(nullptr), BadInput);
    EXPECT_THROW(solver::Cg<V>::build().on(this->ref)->generate(A), BadInput);  // no criteria
    EXPECT_THROW(solver::Cg<V>::build().with_criteria(this->criteria()).on(nullptr), BadInput);
    EXPECT_THROW(solver::Gmres<V>::build()
                     .with_criteria(this->criteria())
                     .with_krylov_dim(0)
                     .on(this->ref)
                     ->generate(A),
                 BadInput);
    auto small = std::make_shared<Identity<V>>(this->ref, 4);
    EXPECT_THROW(solver::Cg<V>::build()
                     .with_criteria(this->criteria())
                     .with_preconditioner(std::shared_ptr<const LinOp<V>>(small))
                     .on(this->ref)
                     ->generate(A),
                 DimensionMismatch);
    auto no_transpose = std::make_shared<MatrixFree<V>>(
        this->ref, A->size(),
        [A](const matrix::Dense<V>& in, matrix::Dense<V>& out) { A->apply(in, out); });
    EXPECT_THROW(solver::Bicg<V>::build()
                     .with_criteria(this->criteria())
                     .on(this->ref)
                     ->generate(no_transpose),
                 NotSupported);

    auto solver = cg->generate(A);
    matrix::Dense<V> b(this->ref, {9, 1});
    matrix::Dense<V> x(this->ref, {8, 1});
    b.fill(V{1});
    x.fill(V{7});
    EXPECT_THROW(solver->apply(b, x), DimensionMismatch);
    matrix::Dense<V> x2(this->ref, {9, 2});
    x2.fill(V{7});
    EXPECT_THROW(solver->apply(b, x2), DimensionMismatch);
    for (const auto v : x.to_host()) EXPECT_EQ(v, V{7});  // untouched
}

TYPED_TEST(Solvers, OneFactoryServesManyMatrices)
{
    using V = TypeParam;
    auto factory = solver::Bicgstab<V>::build().with_criteria(this->criteria()).on(this->ref);
    for (size_type n : {3, 7, 10}) {
        auto A = this->system_for("bicgstab", n);
        auto b = test::random_dense<V>(this->ref, {n * n, 1}, 1);
        auto x = this->zero_guess(b);
        auto solver = factory->generate(A);
        EXPECT_EQ(solver->system_matrix(), A);
        solver->apply(b, x);
        EXPECT_TRUE(solver->result().converged());
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    }
}

TYPED_TEST(Solvers, SolversPreconditionSolvers)
{
    using V = TypeParam;
    auto spd = this->system_for("cg");
    auto nonsym = this->system_for("gmres");
    auto b = test::random_dense<V>(this->ref, {spd->size().rows, 1}, 3);
    auto inner_cg = solver::Cg<V>::build()
                        .with_criteria(stop::max_iterations(4))
                        .with_initial_guess(solver::InitialGuess::zero)
                        .on(this->ref);
    // GMRES, BiCGSTAB and CGS need a fixed linear preconditioner: a fixed number of damped
    // Richardson steps from zero is a polynomial in A. (A Krylov solver as preconditioner
    // is nonlinear; only FCG and IR tolerate that.)
    auto polynomial = solver::Ir<V>::build()
                          .with_criteria(stop::max_iterations(3))
                          .with_relaxation_factor(V{0.2})
                          .with_initial_guess(solver::InitialGuess::zero)
                          .on(this->ref);
    auto inner_gmres = solver::Gmres<V>::build()
                           .with_criteria(stop::max_iterations(3))
                           .with_krylov_dim(3)
                           .with_initial_guess(solver::InitialGuess::zero)
                           .on(this->ref);
    struct Case {
        std::shared_ptr<const LinOpFactory<V>> outer;
        std::shared_ptr<const LinOp<V>> A;
    };
    auto crit = this->criteria();
    const std::vector<Case> cases{
        {solver::Fcg<V>::build().with_preconditioner(inner_cg).with_criteria(crit).on(this->ref), spd},
        {solver::Cg<V>::build().with_preconditioner(polynomial).with_criteria(crit).on(this->ref), spd},
        {solver::Gmres<V>::build().with_preconditioner(polynomial).with_criteria(crit).on(this->ref), nonsym},
        {solver::Bicgstab<V>::build().with_preconditioner(polynomial).with_criteria(crit).on(this->ref), nonsym},
        {solver::Cgs<V>::build().with_preconditioner(polynomial).with_criteria(crit).on(this->ref), nonsym},
        {solver::Ir<V>::build().with_solver(inner_gmres).with_criteria(crit).on(this->ref), nonsym},
    };
    for (const auto& c : cases) {
        auto x = this->zero_guess(b);
        auto solver = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(c.outer->generate(c.A));
        SCOPED_TRACE(solver->name());
        ASSERT_NE(solver->preconditioner(), nullptr);
        solver->apply(b, x);
        EXPECT_TRUE(solver->result().converged()) << solver->result().message();
        EXPECT_LE(true_relative_residual(*c.A, b, x), 20 * solve_tolerance<V>());
    }
}

TYPED_TEST(Solvers, PreconditionerGivenAsAnOperator)
{
    using V = TypeParam;
    // M = diag(A)^-1 as a matrix-free operator: every method must accept it.
    for (const auto& [name, make] : all_solvers<V>()) {
        if (name == "ir") continue;  // IR's slot is its inner solver
        SCOPED_TRACE(name);
        auto A = this->system_for(name);
        const auto diag = static_cast<V>(4 + 2 * (is_complex_v<V> ? 0.2 : 0.0));
        auto jacobi = std::make_shared<MatrixFree<V>>(
            this->ref, A->size(),
            [diag](const matrix::Dense<V>& in, matrix::Dense<V>& out) {
                blas::axpby(V{1} / diag, in, V{0}, out);
            },
            [diag](const matrix::Dense<V>& in, matrix::Dense<V>& out) {
                blas::axpby(V{1} / loom::conj(diag), in, V{0}, out);
            });
        std::shared_ptr<const LinOpFactory<V>> plain = make(this->ref, this->criteria());
        // Rebuild the same solver with the preconditioner through the typed builders.
        std::shared_ptr<LinOp<V>> solver;
        auto crit = this->criteria();
        std::shared_ptr<const LinOp<V>> M = jacobi;
        if (name == "cg") solver = solver::Cg<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "fcg") solver = solver::Fcg<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "bicg") solver = solver::Bicg<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "bicgstab") solver = solver::Bicgstab<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "cgs") solver = solver::Cgs<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "cb-gmres") solver = solver::CbGmres<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "pipe-cg") solver = solver::PipeCg<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "chebyshev") solver = solver::Chebyshev<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name.starts_with("gmres")) solver = solver::Gmres<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "fgmres") solver = solver::Fgmres<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "gcr") solver = solver::Gcr<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "idr") solver = solver::Idr<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        if (name == "minres") solver = solver::Minres<V>::build().with_preconditioner(M).with_criteria(crit).on(this->ref)->generate(A);
        ASSERT_NE(solver, nullptr);
        auto b = this->rhs(*A, 1);
        auto x = this->zero_guess(b);
        solver->apply(b, x);
        const auto& it = dynamic_cast<const solver::IterativeSolver<V>&>(*solver);
        EXPECT_TRUE(it.result().converged()) << it.result().message();
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    }
}

TYPED_TEST(Solvers, ApplyWithAlphaAndBeta)
{
    using V = TypeParam;
    auto A = this->system_for("gmres");
    auto b = this->rhs(*A, 1);
    auto gmres = solver::Gmres<V>::build()
                     .with_criteria(this->criteria())
                     .with_initial_guess(solver::InitialGuess::zero)
                     .on(this->ref)
                     ->generate(A);
    matrix::Dense<V> solution(this->ref, b.size());
    gmres->apply(b, solution);
    auto x = test::random_dense<V>(this->ref, b.size(), 4);
    const auto x0 = x.to_host();
    gmres->apply(V{2}, b, V{0.5}, x);
    const auto s = solution.to_host();
    std::vector<V> expected(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) expected[i] = V{2} * s[i] + V{0.5} * x0[i];
    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected, 10 * solve_tolerance<V>());
}

TYPED_TEST(Solvers, GmresRestartsAndHandlesTinySystems)
{
    using V = TypeParam;
    auto A = this->system_for("gmres");
    auto b = this->rhs(*A, 2);
    for (auto method : {solver::Orthogonalization::modified, solver::Orthogonalization::classical}) {
        SCOPED_TRACE(solver::to_string(method));
        auto x = this->zero_guess(b);
        auto gmres = solver::Gmres<V>::build()
                         .with_criteria(this->criteria())
                         .with_krylov_dim(4)
                         .with_orthogonalization(method)
                         .on(this->ref)
                         ->generate(A);
        EXPECT_EQ(gmres->krylov_dim(), 4);
        gmres->apply(b, x);
        EXPECT_TRUE(gmres->result().converged()) << gmres->result().message();
        EXPECT_GT(gmres->result().iterations, 4);  // it had to restart
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    }
    // 1 x 1: the basis is clamped to the system size and the solve is exact.
    auto one = std::make_shared<matrix::Dense<V>>(
        matrix::Dense<V>::from_host(this->ref, {1, 1}, {V{4}}));
    auto gmres = solver::Gmres<V>::build().with_criteria(this->criteria()).on(this->ref)->generate(one);
    EXPECT_EQ(gmres->krylov_dim(), 1);
    auto b1 = matrix::Dense<V>::from_host(this->ref, {1, 1}, {V{2}});
    matrix::Dense<V> x1(this->ref, {1, 1});
    x1.fill(V{0});
    gmres->apply(b1, x1);
    EXPECT_TRUE(gmres->result().converged());
    EXPECT_NEAR(std::abs(x1.at(0, 0) - V{0.5}), 0.0, 1e-6);
}

TYPED_TEST(Solvers, ShadowSolversRestartOnARhoBreakdown)
{
    using V = TypeParam;
    // Lower triangular with b = e_1: r~ = r_0 = e_1, and the first entry of r_1 (of BiCG's
    // shadow r2_1) is exactly zero, so rho = r~^H r_1 = 0 at iteration 1 while r_1 != 0.
    auto A = std::make_shared<matrix::Csr<V>>(matrix::Csr<V>::from_host(
        this->ref, {3, 3}, {0, 1, 3, 6}, {0, 0, 1, 0, 1, 2},
        {V{1}, V{1}, V{2}, V{1}, V{1}, V{3}}));
    // Column 0 breaks down; column 1 (b = A * 1) runs on its own.
    auto b = matrix::Dense<V>::from_host(this->ref, {3, 2},
                                         {V{1}, V{1}, V{0}, V{3}, V{0}, V{5}});
    auto crit = this->criteria();
    auto make = [&](const std::string& name,
                    size_type restarts) -> std::shared_ptr<solver::IterativeSolver<V>> {
        if (name == "bicg") return solver::Bicg<V>::build().with_criteria(crit).with_max_restarts(restarts).on(this->ref)->generate(A);
        if (name == "bicgstab") return solver::Bicgstab<V>::build().with_criteria(crit).with_max_restarts(restarts).on(this->ref)->generate(A);
        return solver::Cgs<V>::build().with_criteria(crit).with_max_restarts(restarts).on(this->ref)->generate(A);
    };
    for (const std::string name : {"bicg", "bicgstab", "cgs"}) {
        SCOPED_TRACE(name);
        auto x = this->zero_guess(b);
        auto solver = make(name, solver::ShadowParameters<V>::default_max_restarts);
        solver->apply(b, x);
        const auto& result = solver->result();
        EXPECT_TRUE(result.converged()) << result.message();
        ASSERT_EQ(result.restarts.size(), 2u);
        EXPECT_GE(result.restarts[0], 1);
        EXPECT_LE(result.restarts[0], solver::ShadowParameters<V>::default_max_restarts);
        EXPECT_NE(result.message().find("restart"), std::string::npos) << result.message();
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());

        // Without restarts the same column stops at iteration 1, x the last good iterate.
        auto b0 = matrix::Dense<V>(this->ref, b.column(0));
        matrix::Dense<V> x0(this->ref, b0.size());
        x0.fill(V{0});
        auto strict = make(name, 0);
        strict->apply(b0, x0);
        EXPECT_EQ(strict->result().reason, stop::Reason::breakdown) << strict->result().message();
        EXPECT_STREQ(strict->result().detail, "rho");
        EXPECT_EQ(strict->result().columns[0].iteration, 1);
        EXPECT_EQ(strict->result().restarts[0], 0);
        for (const auto v : x0.to_host()) EXPECT_TRUE(std::isfinite(std::abs(v)));
    }
}

TYPED_TEST(Solvers, MinresSolvesSymmetricIndefiniteSystems)
{
    using V = TypeParam;
    // Tridiagonal, 1 off the diagonal, diagonal +-4 alternating: Hermitian, indefinite,
    // well conditioned. CG is not applicable; MINRES must converge, also preconditioned by
    // an SPD M (here |diag(A)|^-1 = I / 4, scaled).
    const size_type n = 60;
    std::vector<int32> rows{0};
    std::vector<int32> cols;
    std::vector<V> vals;
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = std::max<size_type>(i - 1, 0); j <= std::min(i + 1, n - 1); ++j) {
            cols.push_back(static_cast<int32>(j));
            vals.push_back(i == j ? V(i % 2 == 0 ? 4 : -4) : V{1});
        }
        rows.push_back(static_cast<int32>(cols.size()));
    }
    auto A = std::make_shared<matrix::Csr<V>>(
        matrix::Csr<V>::from_host(this->ref, {n, n}, rows, cols, vals));
    auto b = test::random_dense<V>(this->ref, {n, 2}, 7);
    auto M = std::make_shared<Identity<V>>(this->ref, n);
    for (const bool preconditioned : {false, true}) {
        SCOPED_TRACE(preconditioned ? "preconditioned" : "plain");
        auto builder = solver::Minres<V>::build().with_criteria(this->criteria());
        if (preconditioned) builder.with_preconditioner(std::shared_ptr<const LinOp<V>>(M));
        auto minres = builder.on(this->ref)->generate(A);
        auto x = this->zero_guess(b);
        minres->apply(b, x);
        EXPECT_TRUE(minres->result().converged()) << minres->result().message();
        EXPECT_LT(minres->result().iterations, n);
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    }
    // An indefinite preconditioner is refused by the recurrence, not silently used.
    auto negative = std::make_shared<MatrixFree<V>>(
        this->ref, A->size(),
        [](const matrix::Dense<V>& in, matrix::Dense<V>& out) { blas::axpby(V{-1}, in, V{0}, out); });
    auto bad = solver::Minres<V>::build()
                   .with_criteria(this->criteria())
                   .with_preconditioner(std::shared_ptr<const LinOp<V>>(negative))
                   .on(this->ref)
                   ->generate(A);
    auto x = this->zero_guess(b);
    bad->apply(b, x);
    EXPECT_EQ(bad->result().reason, stop::Reason::breakdown) << bad->result().message();
    EXPECT_STREQ(bad->result().detail, "r^H M r");
    for (const auto v : x.to_host()) EXPECT_EQ(v, V{0});
}

TYPED_TEST(Solvers, FlexibleSolversTakeAChangingPreconditioner)
{
    using V = TypeParam;
    auto A = this->system_for("gmres");
    auto b = this->rhs(*A, 2);
    auto crit = this->criteria();
    // A few GMRES steps are a different (nonlinear) operator at every apply.
    auto inner = solver::Gmres<V>::build()
                     .with_criteria(stop::max_iterations(3))
                     .with_krylov_dim(3)
                     .with_initial_guess(solver::InitialGuess::zero)
                     .on(this->ref);
    std::vector<std::shared_ptr<solver::IterativeSolver<V>>> flexible{
        solver::Fgmres<V>::build().with_preconditioner(inner).with_criteria(crit).with_krylov_dim(5).on(this->ref)->generate(A),
        solver::Gcr<V>::build().with_preconditioner(inner).with_criteria(crit).with_krylov_dim(5).on(this->ref)->generate(A)};
    for (const auto& solver : flexible) {
        SCOPED_TRACE(solver->name());
        auto x = this->zero_guess(b);
        solver->apply(b, x);
        EXPECT_TRUE(solver->result().converged()) << solver->result().message();
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    }
    // With a fixed preconditioner FGMRES is GMRES: the same iterations, the same x.
    auto M = test::inverse_diagonal(*A);
    auto gmres = solver::Gmres<V>::build().with_preconditioner(std::shared_ptr<const LinOp<V>>(M)).with_criteria(crit).with_krylov_dim(7).on(this->ref)->generate(A);
    auto fgmres = solver::Fgmres<V>::build().with_preconditioner(std::shared_ptr<const LinOp<V>>(M)).with_criteria(crit).with_krylov_dim(7).on(this->ref)->generate(A);
    matrix::Dense<V> xg(this->ref, b.size());
    matrix::Dense<V> xf(this->ref, b.size());
    xg.fill(V{0});
    xf.fill(V{0});
    gmres->apply(b, xg);
    fgmres->apply(b, xf);
    EXPECT_EQ(gmres->result().iterations, fgmres->result().iterations);
    LOOM_EXPECT_NEAR_VECTORS(xf.to_host(), xg.to_host(), 1e2 * solve_tolerance<V>());
    EXPECT_THROW(solver::Gcr<V>::build().with_criteria(crit).with_krylov_dim(0).on(this->ref)->generate(A), BadInput);
    EXPECT_THROW(solver::Fgmres<V>::build().with_criteria(crit).with_krylov_dim(0).on(this->ref)->generate(A), BadInput);
    EXPECT_THROW(solver::Idr<V>::build().with_criteria(crit).with_subspace_dim(0).on(this->ref)->generate(A), BadInput);
}

TYPED_TEST(Solvers, IdrIsReproducibleForEachShadowDimension)
{
    using V = TypeParam;
    auto A = this->system_for("idr");
    auto b = this->rhs(*A, 2);
    for (size_type dim : {1, 2, 4}) {
        SCOPED_TRACE(dim);
        auto factory = solver::Idr<V>::build()
                           .with_criteria(this->criteria())
                           .with_subspace_dim(dim)
                           .on(this->ref);
        auto idr = factory->generate(A);
        EXPECT_EQ(idr->subspace_dim(), dim);
        matrix::Dense<V> x1(this->ref, b.size());
        matrix::Dense<V> x2(this->ref, b.size());
        x1.fill(V{0});
        x2.fill(V{0});
        idr->apply(b, x1);
        EXPECT_TRUE(idr->result().converged()) << idr->result().message();
        EXPECT_LE(true_relative_residual(*A, b, x1), 20 * solve_tolerance<V>());
        const auto iterations = idr->result().iterations;
        factory->generate(A)->apply(b, x2);  // the same seed: the same shadow space
        EXPECT_EQ(x1.to_host(), x2.to_host());
        EXPECT_GT(iterations, 0);
    }
}

TYPED_TEST(Solvers, EmptySystemsAndNoColumns)
{
    using V = TypeParam;
    auto empty = std::make_shared<matrix::Dense<V>>(this->ref, dim2{0, 0});
    auto cg = solver::Cg<V>::build().with_criteria(this->criteria()).on(this->ref);
    matrix::Dense<V> b(this->ref, {0, 1});
    matrix::Dense<V> x(this->ref, {0, 1});
    auto solver = cg->generate(empty);
    solver->apply(b, x);
    EXPECT_TRUE(solver->result().converged());
    auto A = this->system_for("cg", 3);
    matrix::Dense<V> b0(this->ref, {9, 0});
    matrix::Dense<V> x0(this->ref, {9, 0});
    auto s2 = cg->generate(A);
    s2->apply(b0, x0);
    EXPECT_TRUE(s2->result().converged());
    EXPECT_EQ(s2->result().iterations, 0);
}

// ------------------------------------------------------------ shared matrices (double)

std::shared_ptr<matrix::Csr<double>> shared_matrix(const std::string& name)
{
    return std::make_shared<matrix::Csr<double>>(
        matrix::read_csr<double>(test::reference(), test::shared_matrix_path(name)));
}

struct SharedCase {
    std::string matrix;
    std::string solver;
    double tolerance;
    size_type max_iterations;
    bool jacobi = false;
    /// Backends may differ from the reference by this many iterations, plus this fraction
    /// of the reference's count. BiCGSTAB's residual is far from monotone, and the step at
    /// which it first dips below the tolerance moves with rounding: on sherman5 with Jacobi,
    /// 300 right-hand sides b = A * 1 perturbed by 4e-16 (relative, entrywise) took 100 to
    /// 124 iterations on the reference (114 unperturbed), every one converging with a true
    /// residual below the tolerance. A backend that sums its reductions in another order
    /// (CUDA) is such a perturbation, so a slack of 3 iterations was not a sound expectation.
    double iteration_slack = 1;
    double relative_iteration_slack = 0;
};

class SharedMatrices : public ::testing::TestWithParam<SharedCase> {};

/// The solver among Solvers whose solver_name is `name` (default parameters, preconditioned
/// by M when not null), generated on op's executor for op; null when none is so named.
template <typename... Solvers>
std::shared_ptr<solver::IterativeSolver<double>> generate_named(
    const std::string& name, std::shared_ptr<const LinOp<double>> M,
    std::shared_ptr<const stop::Criterion> criteria, std::shared_ptr<const LinOp<double>> op)
{
    std::shared_ptr<solver::IterativeSolver<double>> generated;
    const auto generate = [&](auto builder) {
        return builder.with_preconditioner(M).with_criteria(criteria).on(op->executor())->generate(
            op);
    };
    ((name == Solvers::solver_name ? (generated = generate(Solvers::build()), true) : false) ||
     ...);
    return generated;
}

TEST_P(SharedMatrices, ConvergeToTheTrueResidual)
{
    const auto& c = GetParam();
    LOOM_SKIP_WITHOUT_SHARED_MATRIX(c.matrix);
    auto A = shared_matrix(c.matrix);
    auto ref = test::reference();
    const auto n = A->size().rows;
    const auto b = test::image_of_ones(*A);
    std::vector<std::shared_ptr<const LinOp<double>>> executors_A{A};
    for (const auto& exec : test::backends()) {
        executors_A.push_back(std::make_shared<matrix::Csr<double>>(exec, *A));
    }
    size_type ref_iterations = -1;
    for (const auto& op : executors_A) {
        SCOPED_TRACE(op->executor()->name());
        const auto exec = op->executor();
        std::shared_ptr<const LinOp<double>> M;
        if (c.jacobi) M = test::inverse_diagonal(dynamic_cast<const matrix::Csr<double>&>(*op));
        const auto crit =
            stop::max_iterations(c.max_iterations) | stop::relative_residual(c.tolerance);
        auto s = generate_named<solver::Cg<double>, solver::Fcg<double>, solver::Bicgstab<double>,
                                solver::Cgs<double>, solver::Bicg<double>, solver::Idr<double>,
                                solver::Gcr<double>, solver::Fgmres<double>,
                                solver::Minres<double>, solver::Gmres<double>>(c.solver, M,
                                                                               crit, op);
        ASSERT_NE(s, nullptr) << "no solver named " << c.solver;
        matrix::Dense<double> bb(exec, b);
        matrix::Dense<double> x(exec, {n, 1});
        x.fill(0.0);
        s->apply(bb, x);
        EXPECT_TRUE(s->result().converged()) << s->result().message();
        EXPECT_LE(true_relative_residual(*op, bb, x), 10 * c.tolerance);
        if (ref_iterations < 0) {
            ref_iterations = s->result().iterations;
        } else {
            EXPECT_NEAR(static_cast<double>(s->result().iterations),
                        static_cast<double>(ref_iterations),
                        c.iteration_slack + c.relative_iteration_slack * ref_iterations);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Solvers, SharedMatrices,
    ::testing::Values(SharedCase{"nos4", "cg", 1e-10, 1000},
                      SharedCase{"nos4", "fcg", 1e-10, 1000},
                      SharedCase{"bcsstk01", "cg", 1e-8, 1000, true},
                      SharedCase{"lund_a", "cg", 1e-8, 1000, true},
                      SharedCase{"sherman5", "bicgstab", 1e-6, 1000, true, 1, 0.2},
                      SharedCase{"sherman5", "gmres", 1e-6, 1000, true},
                      SharedCase{"add32", "bicgstab", 1e-8, 1000},
                      SharedCase{"add32", "gmres", 1e-8, 1000},
                      SharedCase{"add32", "cgs", 1e-8, 1000, true},
                      SharedCase{"add32", "bicg", 1e-8, 1000, true},
                      SharedCase{"sherman5", "idr", 1e-6, 1000, true, 1, 0.2},
                      SharedCase{"sherman5", "gcr", 1e-6, 1000, true},
                      SharedCase{"sherman5", "fgmres", 1e-6, 1000, true},
                      SharedCase{"add32", "idr", 1e-8, 1000, true, 1, 0.2},
                      SharedCase{"nos4", "minres", 1e-10, 1000},
                      SharedCase{"bcsstk01", "minres", 1e-8, 1000, true}),
    [](const auto& info) { return info.param.matrix + "_" + info.param.solver; });

// BiCGSTAB + Jacobi, b = A * 1, to 1e-8, on the real nonsymmetric systems Jacobi applies
// to (add32, mcfe, rdb968, sherman5, tomography): only rdb968 meets rho = r~^H r = 0 (at
// iteration 1178, relative residual 0.62, BiCGSTAB having stalled). With restarts it goes
// on past that point (it does not converge there either: Jacobi is too weak for rdb968).
TEST(ShadowRestartMatrices, BicgstabJacobiRestartsOnRdb968)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRIX("rdb968");
    auto A = shared_matrix("rdb968");
    auto ref = test::reference();
    const auto n = A->size().rows;
    const auto b = test::image_of_ones(*A);
    std::shared_ptr<const LinOp<double>> M = test::inverse_diagonal(*A);
    const auto crit = stop::max_iterations(2000) | stop::relative_residual(1e-8);
    auto solve = [&](size_type restarts) {
        auto bicgstab = solver::Bicgstab<double>::build()
                            .with_preconditioner(M)
                            .with_criteria(crit)
                            .with_max_restarts(restarts)
                            .on(ref)
                            ->generate(A);
        matrix::Dense<double> x(ref, {n, 1});
        x.fill(0.0);
        bicgstab->apply(b, x);
        for (const auto v : x.to_host()) EXPECT_TRUE(std::isfinite(v));
        return bicgstab->result();
    };
    const auto strict = solve(0);
    EXPECT_EQ(strict.reason, stop::Reason::breakdown) << strict.message();
    EXPECT_STREQ(strict.detail, "rho");
    const auto restarted = solve(solver::ShadowParameters<double>::default_max_restarts);
    EXPECT_GE(restarted.restarts[0], 1) << restarted.message();
    EXPECT_GT(restarted.iterations, strict.iterations) << restarted.message();
}

// GMRES(30) + Jacobi, b = A * 1, to 1e-8 on ex5 (27 rows): modified Gram-Schmidt takes 25
// iterations; one pass of classical Gram-Schmidt lost orthogonality there and took 185. The
// classical default's second pass (where the first cancels more than 99% of ||w||) keeps it
// at modified's count, on every executor (a device always runs the second pass).
TEST(GmresOrthogonalization, ClassicalKeepsModifiedsIterationsWhereOnePassLosesOrthogonality)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRIX("ex5");
    auto A = shared_matrix("ex5");
    const auto n = A->size().rows;
    const auto b = test::image_of_ones(*A);
    auto iterations = [&](std::shared_ptr<const Executor> exec, solver::Orthogonalization method) {
        auto A_exec = std::make_shared<matrix::Csr<double>>(exec, *A);
        std::shared_ptr<const LinOp<double>> M = test::inverse_diagonal(*A_exec);
        auto gmres = solver::Gmres<double>::build()
                         .with_preconditioner(M)
                         .with_criteria(stop::max_iterations(1000) | stop::relative_residual(1e-8))
                         .with_krylov_dim(30)
                         .with_orthogonalization(method)
                         .on(exec)
                         ->generate(A_exec);
        matrix::Dense<double> b_exec(exec, b);
        matrix::Dense<double> x(exec, {n, 1});
        x.fill(0.0);
        gmres->apply(b_exec, x);
        EXPECT_TRUE(gmres->result().converged()) << gmres->result().message();
        EXPECT_LE(true_relative_residual(*A_exec, b_exec, x), 2e-8);
        return gmres->result().iterations;
    };
    EXPECT_EQ(solver::GmresParameters<double>{}.orthogonalization,
              solver::Orthogonalization::classical);
    const auto modified = iterations(test::reference(), solver::Orthogonalization::modified);
    EXPECT_LE(modified, 30);
    for (const auto& exec : test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto classical = iterations(exec, solver::Orthogonalization::classical);
        EXPECT_LE(classical, modified + 2);
    }
}

}  // namespace
}  // namespace loom::test
