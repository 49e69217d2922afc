// precond::Ilu / precond::Ic: the builders, applies that invert the factors (checked by
// multiplying back), Jacobi-sweep triangular solves, and Krylov solvers preconditioned by them
// on real matrices, against Jacobi.
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/config.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/io.hpp"
#include "loom/precond/ilu.hpp"
#include "loom/precond/isai.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"

#if LOOM_HAS_DOUBLE && LOOM_HAS_INT32

namespace loom::test {
namespace {

using Csr = matrix::Csr<double, int32>;
using Dense = matrix::Dense<double>;
using sparse::IluKind;

/// A nonsymmetric (or symmetric) diagonally dominant matrix: a 2D 5-point stencil with a
/// convection term.
std::shared_ptr<const Csr> stencil(size_type m, double convection)
{
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> values;
    const auto n = m * m;
    for (size_type r = 0; r < n; ++r) {
        const auto i = r / m;
        const auto j = r % m;
        const auto add = [&](size_type c, double v) {
            cols.push_back(static_cast<int32>(c));
            values.push_back(v);
        };
        if (i > 0) add(r - m, -1 - convection);
        if (j > 0) add(r - 1, -1 - convection);
        add(r, 4.5);
        if (j + 1 < m) add(r + 1, -1 + convection);
        if (i + 1 < m) add(r + m, -1 + convection);
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    return std::make_shared<const Csr>(
        Csr::from_host(test::reference(), {n, n}, ptrs, cols, values));
}

TEST(IluPrecond, BuildersRejectBadParameters)
{
    const auto ref = test::reference();
    EXPECT_THROW(precond::Ilu<double>::build().with_kind(IluKind::ic0), BadInput);
    EXPECT_THROW(precond::Ic<double>::build().with_kind(IluKind::parilut), BadInput);
    EXPECT_THROW(precond::Ilu<double>::build().with_triangular_solve(
                     precond::TriangularSolve::jacobi, 0),
                 BadInput);
    EXPECT_THROW(precond::parse_triangular_solve("gauss"), BadInput);
    const auto factory = precond::Ilu<double>::build().on(ref);
    EXPECT_THROW(factory->generate(nullptr), BadInput);
    const auto rect = std::make_shared<Csr>(test::random_csr<double, int32>(ref, {.rows = 3, .cols = 4}));
    EXPECT_THROW(factory->generate(rect), DimensionMismatch);
}

TEST(IluPrecond, ApplyInvertsTheFactors)
{
    for (const bool ic : {false, true}) {
        const auto A = stencil(12, ic ? 0.0 : 0.3);
        const auto b = test::random_dense<double>(test::reference(), {A->rows(), 2});
        for (const auto& exec : loom::test::all_executors()) {
            std::shared_ptr<const LinOp<double>> M;
            const Csr* L;
            const Csr* U = nullptr;
            if (ic) {
                auto m = precond::Ic<double>::build().on(exec)->generate(A);
                L = &m->lower_factor();
                M = m;
            } else {
                auto m = precond::Ilu<double>::build().with_kind(IluKind::iluk).on(exec)->generate(A);
                L = &m->lower_factor();
                U = &m->upper_factor();
                M = m;
            }
            Dense x(exec, b.size());
            M->apply(Dense(exec, b), x);
            // L (U x) (L (L^H x) for IC) gives b back.
            const Csr LH = sparse::conj_transpose(*L);
            Dense y(exec, b.size());
            Dense z(exec, b.size());
            (U ? *U : LH).apply(x, y);
            L->apply(y, z);
            EXPECT_LE(test::relative_error(z.to_host(), b.to_host()), 1e-12)
                << (ic ? "ic" : "ilu") << " on " << exec->name();
        }
    }
}

TEST(IluPrecond, PermutationReordersTheSystem)
{
    // A tridiagonal in reverse order is tridiagonal again: its ILU(0) is its exact LU, so the
    // permuted preconditioner is A^-1.
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> values;
    const size_type n = 40;
    for (size_type i = 0; i < n; ++i) {
        if (i > 0) cols.push_back(static_cast<int32>(i - 1)), values.push_back(-1.0 - 0.01 * i);
        cols.push_back(static_cast<int32>(i)), values.push_back(4.0);
        if (i + 1 < n) cols.push_back(static_cast<int32>(i + 1)), values.push_back(-1.0);
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    const auto A = std::make_shared<const Csr>(
        Csr::from_host(test::reference(), {n, n}, ptrs, cols, values));
    std::vector<int32> reverse(n);
    for (size_type i = 0; i < n; ++i) reverse[i] = static_cast<int32>(n - 1 - i);
    const auto b = test::random_dense<double>(test::reference(), {n, 1});
    for (const auto& exec : loom::test::all_executors()) {
        const auto M = precond::Ilu<double>::build().with_permutation(reverse).on(exec)->generate(A);
        Dense x(exec, b.size());
        M->apply(Dense(exec, b), x);
        EXPECT_LE(test::true_relative_residual(*A, b, Dense(test::reference(), x)), 1e-13)
            << exec->name();
    }
    EXPECT_THROW(precond::Ilu<double>::build()
                     .with_permutation(std::vector<int32>(n, 0))
                     .on(test::reference())
                     ->generate(A),
                 BadInput);
}

TEST(IluPrecond, JacobiSweepsApproachTheExactSolve)
{
    const auto A = stencil(10, 0.2);
    const auto b = test::random_dense<double>(test::reference(), {A->rows(), 1});
    for (const auto& exec : loom::test::all_executors()) {
        const auto exact = precond::Ilu<double>::build().on(exec)->generate(A);
        Dense expected(exec, b.size());
        exact->apply(Dense(exec, b), expected);
        double previous = INFINITY;
        for (const int sweeps : {1, 3, 10, 40}) {
            const auto M = precond::Ilu<double>::build()
                               .with_triangular_solve(precond::TriangularSolve::jacobi, sweeps)
                               .on(exec)
                               ->generate(A);
            Dense x(exec, b.size());
            M->apply(Dense(exec, b), x);
            const auto error = test::relative_error(x.to_host(), expected.to_host());
            EXPECT_LT(error, previous) << sweeps << " on " << exec->name();
            previous = error;
        }
        EXPECT_LE(previous, 1e-10);
    }
}

/// Iterations a solver needs to a 1e-8 relative residual with preconditioner M (and whether
/// the true residual says it converged).
template <typename Solver>
size_type iterations(const std::shared_ptr<const Executor>& exec, const std::shared_ptr<const Csr>& A,
                     std::shared_ptr<const LinOpFactory<double>> M, Solver builder, bool& converged)
{
    const auto b = test::random_dense<double>(test::reference(), {A->rows(), 1}, 3);
    builder.with_criteria(stop::max_iterations(5000) | stop::relative_residual(1e-8));
    builder.with_preconditioner(M);
    converged = false;
    const auto make = [&] { return builder.on(exec)->generate(std::make_shared<Csr>(exec, *A)); };
    decltype(make()) solver;
    try {
        solver = make();
    } catch (const NumericalError&) {
        return 0;  // Jacobi of a zero diagonal entry (e05r0000)
    }
    Dense x(exec, b.size());
    x.fill(0.0);
    solver->apply(Dense(exec, b), x);
    converged = solver->result().converged() &&
                test::true_relative_residual(*A, b, Dense(test::reference(), x)) < 1e-7;
    return solver->result().iterations;
}

TEST(IluPrecond, KrylovSolversConvergeOnRealMatricesInFewerIterationsThanJacobi)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    struct Case {
        const char* name;
        bool spd;
    };
    for (const auto& [name, spd] : {Case{"sherman1", false}, Case{"e05r0000", false},
                                    Case{"nos4", true}, Case{"bcsstk05", true}}) {
        if (!test::have_shared_matrix(name)) continue;
        const auto A = std::make_shared<const Csr>(
            matrix::read_csr<double, int32>(test::reference(), test::shared_matrix_path(name)));
        for (const auto& exec : loom::test::all_executors()) {
            SCOPED_TRACE(std::string(name) + " on " + exec->name());
            const auto jacobi = precond::Jacobi<double>::build().with_max_block_size(1).on(exec);
            bool ok = false;
            bool jacobi_ok = false;
            if (spd) {
                const auto with_ic = iterations(exec, A, precond::Ic<double>::build().on(exec),
                                                solver::Cg<double>::build(), ok);
                const auto with_jacobi =
                    iterations(exec, A, jacobi, solver::Cg<double>::build(), jacobi_ok);
                EXPECT_TRUE(ok) << "CG + IC(0): " << with_ic;
                std::cout << name << " on " << exec->name() << ": CG + IC(0) " << with_ic
                          << ", CG + Jacobi " << with_jacobi << (jacobi_ok ? "" : " (failed)")
                          << " iterations\n";
                if (jacobi_ok) EXPECT_LT(2 * with_ic, with_jacobi);
                continue;
            }
            const auto ilu = precond::Ilu<double>::build().on(exec);
            for (const bool gmres : {true, false}) {
                const auto with_ilu =
                    gmres ? iterations(exec, A, ilu, solver::Gmres<double>::build().with_krylov_dim(100), ok)
                          : iterations(exec, A, ilu, solver::Bicgstab<double>::build(), ok);
                const auto with_jacobi =
                    gmres ? iterations(exec, A, jacobi, solver::Gmres<double>::build().with_krylov_dim(100),
                                       jacobi_ok)
                          : iterations(exec, A, jacobi, solver::Bicgstab<double>::build(), jacobi_ok);
                EXPECT_TRUE(ok) << (gmres ? "GMRES" : "BiCGSTAB") << " + ILU(0): " << with_ilu;
                std::cout << name << " on " << exec->name() << ": " << (gmres ? "GMRES" : "BiCGSTAB")
                          << " + ILU(0) " << with_ilu << ", + Jacobi " << with_jacobi
                          << (jacobi_ok ? "" : " (failed)") << " iterations\n";
                if (jacobi_ok) EXPECT_LT(2 * with_ilu, with_jacobi) << (gmres ? "GMRES" : "BiCGSTAB");
            }
        }
    }
}

TEST(IluPrecond, IsaiTriangularSolvesAndIsaiPreconditionGmres)
{
    const auto A = stencil(16, 0.3);
    for (const auto& exec : loom::test::all_executors()) {
        bool ok = false;
        const auto builder = [] { return solver::Gmres<double>::build().with_krylov_dim(50); };
        const auto exact = iterations(exec, A, precond::Ilu<double>::build().on(exec), builder(), ok);
        EXPECT_TRUE(ok);
        const auto with_isai = iterations(
            exec, A,
            precond::Ilu<double>::build()
                .with_triangular_solve(precond::TriangularSolve::isai)
                .on(exec),
            builder(), ok);
        EXPECT_TRUE(ok);
        const auto isai = iterations(exec, A, precond::Isai<double>::build().with_power(2).on(exec),
                                     builder(), ok);
        EXPECT_TRUE(ok);
        const auto jacobi = iterations(
            exec, A, precond::Jacobi<double>::build().with_max_block_size(1).on(exec), builder(), ok);
        EXPECT_LE(exact, with_isai) << exec->name();
        EXPECT_LT(with_isai, jacobi) << exec->name();
        EXPECT_LT(isai, jacobi) << exec->name();
    }
}

TEST(IluPrecond, JsonConfigNamesThem)
{
    const auto exec = test::reference();
    const auto A = stencil(8, 0.2);
    struct Case {
        const char* config;
        IluKind kind;
    };
    for (const auto& [config, kind] : {
             Case{R"({"solver": "gmres", "preconditioner": "ilu", "criteria": {"max_iters": 3}})",
                  IluKind::ilu0},
             Case{R"({"solver": "gmres", "preconditioner": "ilut", "criteria": {"max_iters": 3}})",
                  IluKind::ilut},
             Case{R"({"solver": "gmres", "preconditioner": "parilut", "criteria": {"max_iters": 3}})",
                  IluKind::parilut},
             Case{R"({"solver": "gmres", "preconditioner": "parilu", "criteria": {"max_iters": 3}})",
                  IluKind::parilu},
             Case{R"({"solver": "gmres", "criteria": {"max_iters": 3},
                      "preconditioner": {"type": "ilu", "level": 2, "triangular_solve": "jacobi",
                                         "triangular_sweeps": 4}})",
                  IluKind::iluk},
             Case{R"({"solver": "cg", "preconditioner": "ic", "criteria": {"max_iters": 3}})",
                  IluKind::ic0},
             Case{R"({"solver": "cg", "criteria": {"max_iters": 3},
                      "preconditioner": {"type": "parict", "fill_limit": 1.5, "sweeps": 2,
                                         "diagonal_shift": "on"}})",
                  IluKind::parict}}) {
        const auto generated = solver::from_config<double>(config, exec)->generate(A);
        const auto* iterative =
            dynamic_cast<const solver::IterativeSolver<double>*>(generated.get());
        ASSERT_NE(iterative, nullptr);
        const auto* M = iterative->preconditioner().get();
        const auto* ilu = dynamic_cast<const precond::Ilu<double>*>(M);
        const auto* ic = dynamic_cast<const precond::Ic<double>*>(M);
        ASSERT_TRUE(ilu || ic) << config;
        EXPECT_EQ(ilu ? ilu->parameters().factorization.kind : ic->parameters().factorization.kind,
                  kind)
            << config;
    }
    const auto stepped = solver::from_config<double>(
        R"({"solver": "gmres", "criteria": {"max_iters": 3},
            "preconditioner": {"type": "parilut", "steps": 2, "sweeps": 4}})",
        exec)->generate(A);
    const auto* with_steps = dynamic_cast<const precond::Ilu<double>*>(
        dynamic_cast<const solver::IterativeSolver<double>&>(*stepped).preconditioner().get());
    ASSERT_NE(with_steps, nullptr);
    EXPECT_EQ(with_steps->parameters().factorization.steps, 2);
    EXPECT_EQ(with_steps->parameters().factorization.sweeps, 4);
    const auto isai = solver::from_config<double>(
        R"({"solver": "gmres", "criteria": {"max_iters": 3},
            "preconditioner": {"type": "isai", "kind": "general", "power": 2}})",
        exec)->generate(A);
    const auto* with_isai = dynamic_cast<const solver::IterativeSolver<double>*>(isai.get());
    ASSERT_NE(with_isai, nullptr);
    const auto* M = dynamic_cast<const precond::Isai<double>*>(with_isai->preconditioner().get());
    ASSERT_NE(M, nullptr);
    EXPECT_EQ(M->parameters().isai.power, 2);
    EXPECT_THROW(solver::from_config<double>(
                     R"({"solver": "cg", "criteria": {"max_iters": 3},
                         "preconditioner": {"type": "ic", "fill": 2}})",
                     exec),
                 BadInput);
}

}  // namespace
}  // namespace loom::test

#endif
