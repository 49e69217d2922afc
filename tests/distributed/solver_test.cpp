// The Krylov solvers, unchanged, on distributed systems: the same iterations and solution as on
// one process (up to the order of the reductions), preconditioners built on each rank's block.
#include <gtest/gtest.h>

#include "loom/matrix/generate.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/fcg.hpp"
#include "loom/solver/solver.hpp"
#include "loom/stop/criterion.hpp"
#include "distributed/support.hpp"

namespace loom::test {
namespace {

struct Outcome {
    std::vector<V> x;  ///< the whole solution (on rank 0 when distributed)
    size_type iterations = 0;
    bool converged = false;
};

/// Solves A x = b, b = A * (1, 2, 3, ...) / n, x0 = 0, with the solver a JSON config names.
Outcome solve(const std::string& config, std::shared_ptr<const LinOp<V>> A,
              const solver::VectorSpace<V>& space, const matrix::Dense<V>& b)
{
    const auto exec = A->executor();
    const auto op = solver::from_config<V, I>(config, exec)->generate(A);
    auto x = space.create(b.cols());
    space.fill(x, V{0});
    op->apply(b, x);
    const auto& s = dynamic_cast<const solver::IterativeSolver<V>&>(*op);
    Outcome out;
    out.iterations = s.result().iterations;
    out.converged = s.result().converged();
    if (const auto* dist = dynamic_cast<const distributed::VectorSpace<V>*>(&space)) {
        out.x = dist->gather(x).to_host();
    } else {
        out.x = x.to_host();
    }
    return out;
}

/// A nonsymmetric perturbation of the 2D Poisson matrix for the solvers that allow one.
matrix::Csr<V, I> convection(size_type n)
{
    auto A = matrix::poisson2d<V, I>(reference(), n);
    for (size_type i = 0; i < A.rows(); ++i) {
        for (auto k = A.row_ptrs()[i]; k < A.row_ptrs()[i + 1]; ++k) {
            if (A.col_idxs()[k] == i + 1) A.values()[k] += 0.3;
        }
    }
    return A;
}

void expect_same_solve(const std::string& config, const matrix::Csr<V, I>& A, bool equal_iterations,
                       std::shared_ptr<const Executor> exec = OmpExecutor::create(1),
                       const distributed::MatrixOptions& options = {})
{
    const auto global = std::make_shared<const matrix::Csr<V, I>>(exec, A);
    std::vector<V> ramp(static_cast<std::size_t>(A.rows()));
    for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = V(i + 1) / V(ramp.size());
    const auto u = matrix::Dense<V>::from_host(exec, {A.rows(), 1}, ramp);
    matrix::Dense<V> b(exec, {A.rows(), 1});
    global->apply(u, b);
    const solver::VectorSpace<V> plain(exec, A.rows());
    const auto expected = solve(config, global, plain, b);
    ASSERT_TRUE(expected.converged) << config;

    for (const auto& [name, partition] : awkward_partitions(A.rows())) {
        SCOPED_TRACE(config + ", " + name);
        if (std::getenv("LOOM_TEST_TRACE")) std::fprintf(stderr, "%d: %s %s\n", world().rank(), config.c_str(), name.c_str());
        const auto dA = DMatrix::from_global(exec, world(), partition, A, options);
        const auto b_local = dA->space().local_part(b);
        const auto got = solve(config, dA, dA->space(), b_local);
        EXPECT_TRUE(got.converged);
        if (equal_iterations) {
            EXPECT_NEAR(double(got.iterations), double(expected.iterations), 1.0);
        }
        if (world().rank() == 0) LOOM_EXPECT_NEAR_VECTORS(got.x, expected.x, 1e-6);
    }
}

std::string config_of(const std::string& solver, const std::string& precond,
                      const std::string& extra = "")
{
    return R"({"solver": ")" + solver + R"(", "preconditioner": )" + precond + extra +
           R"(, "criteria": {"max_iters": 400, "relative_residual": 1e-10}})";
}

TEST(DistributedSolvers, SymmetricSolversMatchOneProcess)
{
    const auto A = matrix::poisson2d<V, I>(reference(), 12);
    for (const auto* name : {"cg", "fcg", "minres", "pipe-cg", "chebyshev"}) {
        expect_same_solve(config_of(name, R"("none")"), A, true);
    }
    // Scalar Jacobi on the local blocks is the global Jacobi: the same iterations.
    expect_same_solve(config_of("cg", R"("jacobi")"), A, true);
}

TEST(DistributedSolvers, NonsymmetricSolversMatchOneProcess)
{
    const auto A = convection(10);
    for (const auto* name : {"bicgstab", "cgs", "bicg", "gcr"}) {
        expect_same_solve(config_of(name, R"("jacobi")"), A, true);
    }
    for (const auto* name : {"gmres", "fgmres", "cb-gmres"}) {
        expect_same_solve(config_of(name, R"("jacobi")", R"(, "krylov_dim": 20)"), A, true);
    }
    // IDR's random shadow space is the same vector for any partition.
    expect_same_solve(config_of("idr", R"("none")", R"(, "subspace_dim": 3)"), A, true);
}

TEST(DistributedSolvers, BlockPreconditionersConverge)
{
    // ILU on each rank's block (block Jacobi / additive Schwarz): not the one-process ILU, so
    // only the solution is compared.
    const auto A = convection(10);
    expect_same_solve(config_of("gmres", R"("ilu")"), A, false);
    expect_same_solve(config_of("bicgstab", R"({"type": "block-jacobi", "max_block_size": 4})"),
                      A, false);
    // A nested solver as preconditioner runs distributed itself.
    expect_same_solve(
        config_of("fgmres",
                  R"({"solver": "cg", "criteria": {"max_iters": 3}})"),
        matrix::poisson2d<V, I>(reference(), 12), false);
}

TEST(DistributedSolvers, EveryBlockFormatAndHaloPathGivesTheSameSolve)
{
    // The SpMV in the format asked; the preconditioner (ILU here) on the Csr local block.
    const auto exec = OmpExecutor::create(1);
    const auto A = convection(8);
    for (const auto& [how, options] : matrix_options()) {
        SCOPED_TRACE(how);
        expect_same_solve(config_of("bicgstab", R"("jacobi")"), A, true, exec, options);
    }
    expect_same_solve(config_of("gmres", R"("ilu")"), A, false, exec,
                      {.format = distributed::BlockFormat::ell});
}

TEST(DistributedSolvers, OnTheGpuMatchOneProcess)
{
    // Ranks share device 0 here; the halo goes through MPI as it is (CUDA-aware or staged).
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A = convection(16);
    expect_same_solve(config_of("cg", R"("jacobi")"), matrix::poisson2d<V, I>(reference(), 16),
                      true, cuda);
    expect_same_solve(config_of("gmres", R"("jacobi")", R"(, "krylov_dim": 20)"), A, true, cuda);
    expect_same_solve(config_of("bicgstab", R"("ilu")"), A, false, cuda);
    // The blocks in SELL-P on the device, the halo staged (or handed to CUDA-aware MPI).
    expect_same_solve(config_of("cg", R"("jacobi")"), matrix::poisson2d<V, I>(reference(), 16),
                      true, cuda, {.format = distributed::BlockFormat::sellp});
}

TEST(DistributedSolvers, BlockJacobiWithALocalSolver)
{
    const auto exec = OmpExecutor::create(1);
    const auto A = matrix::poisson2d<V, I>(reference(), 12);
    const auto dA = DMatrix::from_global(
        exec, world(), distributed::Partition::contiguous(A.rows(), world().size()), A);
    // Each rank solves its block with a few CG steps: a nonlinear preconditioner, so FCG.
    const auto local = solver::from_config<V, I>(
        R"({"solver": "cg", "criteria": {"max_iters": 5}, "preconditioner": "jacobi",
            "initial_guess": "zero"})",
        exec);
    const auto op = solver::Fcg<V>::build()
                        .with_criteria(stop::max_iterations(300), stop::relative_residual(1e-10))
                        .with_preconditioner(distributed::block_jacobi<V, I>(local))
                        .on(exec)
                        ->generate(dA);
    auto b = dA->space().create(1);
    dA->space().fill(b, V{1});
    auto x = dA->space().create(1);
    dA->space().fill(x, V{0});
    op->apply(b, x);
    const auto& s = dynamic_cast<const solver::IterativeSolver<V>&>(*op);
    EXPECT_TRUE(s.result().converged()) << s.result().message();
    // The true residual, recomputed with the distributed product.
    auto r = dA->space().create(1);
    dA->space().copy(b, r);
    dA->apply(V{-1}, x, V{1}, r);
    auto norms = dA->space().create_scalars(2);
    auto rr = norms.columns(0, 1);
    auto bb = norms.columns(1, 1);
    dA->space().conj_dot(r, r, rr);
    dA->space().conj_dot(b, b, bb);
    dA->space().finish_reductions(norms);
    const auto values = norms.to_host();
    EXPECT_LT(std::sqrt(values[0] / values[1]), 1e-9);
    const auto plain = std::make_shared<const matrix::Csr<V, I>>(exec, A);
    const auto jacobi = distributed::block_jacobi<V, I>(local);
    EXPECT_THROW(jacobi->generate(plain), BadInput);
}

}  // namespace
}  // namespace loom::test
