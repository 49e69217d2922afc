// precond::Ilu / precond::Ic with a reordering computed at generation (none, rcm, amd):
// preconditioned solves reach the same solution with each, on every backend; the JSON key
// "reordering"; bad combinations; iterations on real matrices for each reordering.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/config.hpp"
#include "loom/graph/amd.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/io.hpp"
#include "loom/precond/ilu.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solvers.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"

#if LOOM_HAS_DOUBLE && LOOM_HAS_INT32

namespace loom::test {
namespace {

using Csr = matrix::Csr<double, int32>;
using Dense = matrix::Dense<double>;
using precond::Reordering;

/// The reorderings this build can compute (amd needs SuiteSparse).
std::vector<Reordering> reorderings()
{
    std::vector<Reordering> result{Reordering::none, Reordering::rcm};
    if (graph::amd_available()) result.push_back(Reordering::amd);
    return result;
}

struct Solve {
    Dense x;
    size_type iterations;
    bool converged;
};

/// GMRES (or CG for IC) with the preconditioner to a relative residual of `tolerance` from
/// x = 0, the answer on the host.
template <typename Precond>
Solve solve(const std::shared_ptr<const Executor>& exec, const std::shared_ptr<const Csr>& A,
            typename Precond::Builder preconditioner, double tolerance)
{
    const auto b = test::random_dense<double>(test::reference(), {A->rows(), 1}, 5);
    const auto criteria = stop::max_iterations(3000) | stop::relative_residual(tolerance);
    const auto M = preconditioner.on(exec);
    std::shared_ptr<const solver::IterativeSolver<double>> solver;
    const auto system = std::make_shared<Csr>(exec, *A);
    if constexpr (std::is_same_v<Precond, precond::Ic<double>>) {
        solver = solver::Cg<double>::build()
                     .with_criteria(criteria)
                     .with_preconditioner(M)
                     .on(exec)
                     ->generate(system);
    } else {
        solver = solver::Gmres<double>::build()
                     .with_krylov_dim(100)
                     .with_criteria(criteria)
                     .with_preconditioner(M)
                     .on(exec)
                     ->generate(system);
    }
    Dense x(exec, b.size());
    x.fill(0.0);
    solver->apply(Dense(exec, b), x);
    Dense host(test::reference(), x);
    const bool converged =
        solver->result().converged() && test::true_relative_residual(*A, b, host) < 10 * tolerance;
    return {std::move(host), solver->result().iterations, converged};
}

template <typename Precond>
void expect_the_same_solution_with_each_reordering(const std::shared_ptr<const Csr>& A)
{
    // Every backend's answer with every reordering against the reference's without one.
    const auto natural = solve<Precond>(test::reference(), A, Precond::build(), 1e-11);
    ASSERT_TRUE(natural.converged);
    for (const auto& exec : test::all_executors()) {
        for (const auto reordering : reorderings()) {
            SCOPED_TRACE(std::string(names_of(reordering).to_string(reordering)) + " on " +
                         exec->name());
            const auto reordered =
                solve<Precond>(exec, A, Precond::build().with_reordering(reordering), 1e-11);
            EXPECT_TRUE(reordered.converged);
            EXPECT_LE(test::relative_error(reordered.x.to_host(), natural.x.to_host()), 1e-8);
        }
    }
}

TEST(IluReordering, GmresWithIluReachesTheSameSolutionWithEachReordering)
{
    expect_the_same_solution_with_each_reordering<precond::Ilu<double>>(
        test::grid_matrix<double>(test::reference(), 20, 0.3));
}

TEST(IluReordering, CgWithIcReachesTheSameSolutionWithEachReordering)
{
    expect_the_same_solution_with_each_reordering<precond::Ic<double>>(
        test::grid_matrix<double>(test::reference(), 20));
}

TEST(IluReordering, TheFactorsAreOfThePermutedSystem)
{
    // AMD and RCM renumber a grid; the natural order's L is the grid's lower triangle.
    const auto A = test::grid_matrix<double>(test::reference(), 12);
    const auto natural = precond::Ic<double>::build().on(test::reference())->generate(A);
    for (const auto reordering : reorderings()) {
        const auto M = precond::Ic<double>::build()
                           .with_reordering(reordering)
                           .on(test::reference())
                           ->generate(A);
        EXPECT_EQ(M->lower_factor().nnz(), natural->lower_factor().nnz());  // IC(0): A's pattern
        if (reordering == Reordering::none) {
            EXPECT_EQ(M->lower_factor().col_idxs().to_host(),
                      natural->lower_factor().col_idxs().to_host());
        } else {
            EXPECT_NE(M->lower_factor().col_idxs().to_host(),
                      natural->lower_factor().col_idxs().to_host());
        }
    }
}

TEST(IluReordering, RefusesAReorderingWithAPermutationAndAmdWithoutSuiteSparse)
{
    const auto A = test::grid_matrix<double>(test::reference(), 4);
    std::vector<int32> identity(A->rows());
    for (size_type i = 0; i < A->rows(); ++i) identity[i] = static_cast<int32>(i);
    EXPECT_THROW(precond::Ilu<double>::build()
                     .with_permutation(identity)
                     .with_reordering(Reordering::rcm)
                     .on(test::reference())
                     ->generate(A),
                 BadInput);
    if (!graph::amd_available()) {
        EXPECT_THROW(precond::Ilu<double>::build()
                         .with_reordering(Reordering::amd)
                         .on(test::reference())
                         ->generate(A),
                     NotCompiled);
    }
}

TEST(IluReordering, JsonConfigReadsIt)
{
    const auto exec = test::reference();
    const auto A = test::grid_matrix<double>(exec, 6, 0.2);
    for (const std::string type : {"ilu", "ic", "ilut", "parilu", "parict"}) {
        for (const auto reordering : reorderings()) {
            const std::string name = names_of(reordering).to_string(reordering);
            const auto config = R"({"solver": "gmres", "criteria": {"max_iters": 3},
                                    "preconditioner": {"type": ")" +
                                type + R"(", "reordering": ")" + name + R"("}})";
            const auto generated = solver::from_config<double>(config, exec)->generate(A);
            const auto* M = dynamic_cast<const solver::IterativeSolver<double>*>(generated.get())
                                ->preconditioner()
                                .get();
            const auto* ilu = dynamic_cast<const precond::Ilu<double>*>(M);
            const auto* ic = dynamic_cast<const precond::Ic<double>*>(M);
            ASSERT_TRUE(ilu || ic) << config;
            EXPECT_EQ(ilu ? ilu->parameters().reordering : ic->parameters().reordering, reordering)
                << config;
        }
    }
    EXPECT_THROW(
        solver::from_config<double>(
            R"({"solver": "gmres", "preconditioner": {"type": "ilu", "reordering": "nd"}})", exec),
        BadInput);
}

TEST(IluReordering, IterationsOnRealMatrices)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    // e05r0000 has zeros on its diagonal: a symmetric reordering keeps them there, where
    // ILU(0) meets them before any fill, so the diagonal shift is on for all.
    for (const std::string name : {"sherman5", "e05r0000", "sherman1"}) {
        if (!test::have_shared_matrix(name)) continue;
        const auto A = std::make_shared<const Csr>(
            matrix::read_csr<double, int32>(test::reference(), test::shared_matrix_path(name)));
        const auto exec = test::backends().empty() ? test::reference() : test::backends()[0];
        std::cout << name << ", GMRES(100) + ILU(0) (diagonal shift on) to 1e-8 on " << exec->name()
                  << ":";
        for (const auto reordering : reorderings()) {
            const auto result =
                solve<precond::Ilu<double>>(exec, A,
                                            precond::Ilu<double>::build()
                                                .with_diagonal_shift(sparse::DiagonalShift::on)
                                                .with_reordering(reordering),
                                            1e-8);
            const std::string reordering_name = names_of(reordering).to_string(reordering);
            std::cout << ' ' << reordering_name << ' ' << result.iterations
                      << (result.converged ? "" : " (failed)");
            EXPECT_TRUE(result.converged) << name << " " << reordering_name;
        }
        std::cout << " iterations\n";
    }
}

}  // namespace
}  // namespace loom::test

#endif
