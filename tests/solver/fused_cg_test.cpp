// CG's fused steps (blas::cg_residual_step, cg_direction_step, conj_dot2) and its run-ahead
// iteration (solver/run_ahead.hpp): the steps equal the unfused kernels and decide as the
// solver does; a space that runs blocks of iterations ahead of the host gives bit for bit
// the iterates, histories and results of checking every iteration; OpenMP (and CUDA, on a
// device machine) take the reference's iteration counts.
#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/blas/vector.hpp"
#include "loom/log/loggers.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/solver/vector_space.hpp"
#include "solver/problems.hpp"
#include "solver/run_ahead.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace {

using namespace loom;
using V = double;
using Dense = matrix::Dense<V>;
using test::expect_same;
using test::row;
using test::Run;
using test::RunAheadMatrix;

// ---------------------------------------------------------------- the steps

/// Scalars of one step for k = 4 columns: column 0 runs normally, column 1 was stopped
/// (gate 0), column 2 has p^H A p = 0 (breakdown), column 3 converges (threshold above the
/// norm).
struct StepCase {
    explicit StepCase(std::shared_ptr<const Executor> exec)
        : gate(row(exec, {1, 0, 1, 1})),
          rho_old(row(exec, {2, 2, 2, 2})),
          pq(row(exec, {4, 4, 0, 4})),
          rr(row(exec, {0, 0, 0, 0})),
          threshold(row(exec, {-1, -1, -1, 1e300})),
          gate_new(row(exec, {7, 7, 7, 7}))
    {}
    blas::CgStepScalars<V> scalars()
    {
        blas::CgStepScalars<V> s;
        s.gate = &gate;
        s.rho_old = &rho_old;
        s.pq = &pq;
        s.rr = &rr;
        s.rho_new = &rr;
        s.threshold = &threshold;
        s.gate_new = &gate_new;
        return s;
    }
    Dense gate, rho_old, pq, rr, threshold, gate_new;
};

TEST(FusedCgSteps, EqualTheUnfusedKernelsAndDecideAsTheSolver)
{
    const auto ref = test::reference();
    for (const auto& exec : test::backends()) {
        if (exec->kind() == ExecKind::cuda) continue;  // CudaSteps below
        for (const size_type rows : {0, 1, 33, 3000}) {
            SCOPED_TRACE(exec->name() + ", " + std::to_string(rows) + " rows");
            const auto q0 = test::random_dense<V>(ref, {rows, 4}, 1);
            const auto r0 = test::random_dense<V>(ref, {rows, 4}, 2);
            const auto p0 = test::random_dense<V>(ref, {rows, 4}, 3);
            const auto x0 = test::random_dense<V>(ref, {rows, 4}, 4);
            StepCase c(exec);
            auto s = c.scalars();
            const Dense q(exec, q0);
            Dense r(exec, r0), p(exec, p0), x(exec, x0);
            blas::cg_residual_step(s, q, r);
            blas::cg_direction_step(s, r, p, x);

            // Unfused, on the reference: alpha = 1/2, 0 (stopped), 0 (breakdown), 1/2; the
            // stopped column is untouched; beta = rr / rho_old where the column goes on.
            Dense r_expected(ref, r0), p_expected(ref, p0), x_expected(ref, x0);
            const auto alpha = row(ref, {0.5, 0, 0, 0.5});
            const auto minus_alpha = row(ref, {-0.5, 0, 0, -0.5});
            blas::axpy(minus_alpha, Dense(ref, q0), r_expected);
            Dense rr(ref, {1, 4});
            blas::conj_dot(r_expected, r_expected, rr);
            LOOM_EXPECT_NEAR_VECTORS(c.rr.to_host(), rr.to_host(), 1e-12);
            const auto rr_host = c.rr.to_host();
            const bool runs = rows > 0;  // a zero residual norm stops column 0 too
            const auto beta = row(ref, {runs ? rr_host[0] / 2 : 0, 0, 0, 0});
            blas::axpy(alpha, Dense(ref, p0), x_expected);
            blas::axpby(row(ref, {1, 1, 1, 1}), r_expected, beta, p_expected);
            // Column 1 was stopped: p and x keep their values.
            auto p_keep = p_expected.column(1);
            blas::copy(Dense(ref, p0).column(1), p_keep);
            LOOM_EXPECT_NEAR_VECTORS(r.to_host(), r_expected.to_host(), 1e-14);
            LOOM_EXPECT_NEAR_VECTORS(x.to_host(), x_expected.to_host(), 1e-14);
            LOOM_EXPECT_NEAR_VECTORS(p.to_host(), p_expected.to_host(), 1e-12);
            EXPECT_EQ(c.gate_new.to_host(), (std::vector<V>{runs ? 1.0 : 0.0, 0, 0, 0}));
        }
    }
}

TEST(FusedCgSteps, ConjDot2IsTwoDots)
{
    const auto ref = test::reference();
    for (const auto& exec : test::backends()) {
        for (const size_type rows : {0, 1, 31, 2000}) {
            for (const size_type k : {1, 3}) {
                const Dense a(exec, test::random_dense<V>(ref, {rows, k}, 5));
                const Dense b(exec, test::random_dense<V>(ref, {rows, k}, 6));
                Dense out1(exec, {1, k}), out2(exec, {1, k}), d1(exec, {1, k}), d2(exec, {1, k});
                blas::conj_dot2(a, b, out1, a, a, out2);
                blas::conj_dot(a, b, d1);
                blas::conj_dot(a, a, d2);
                LOOM_EXPECT_NEAR_VECTORS(out1.to_host(), d1.to_host(), 1e-12);
                LOOM_EXPECT_NEAR_VECTORS(out2.to_host(), d2.to_host(), 1e-12);
            }
        }
    }
}

TEST(FusedCgSteps, BadInputRaisesAndLeavesDataUntouched)
{
    const auto ref = test::reference();
    StepCase c(ref);
    auto s = c.scalars();
    const auto q = test::random_dense<V>(ref, {5, 4}, 1);
    auto r = test::random_dense<V>(ref, {5, 4}, 2);
    const auto before = r.to_host();
    auto wrong = row(ref, {1, 2});
    s.pq = &wrong;
    EXPECT_THROW(blas::cg_residual_step(s, q, r), DimensionMismatch);
    s = c.scalars();
    s.threshold = nullptr;
    auto p = test::random_dense<V>(ref, {5, 4}, 3);
    EXPECT_THROW(blas::cg_direction_step(s, q, p, r), BadInput);
    auto short_r = test::random_dense<V>(ref, {4, 4}, 2);
    EXPECT_THROW(blas::cg_residual_step(c.scalars(), q, short_r), DimensionMismatch);
    EXPECT_EQ(r.to_host(), before);
}

// ---------------------------------------------------------------- running ahead

Run solve(bool flexible, std::shared_ptr<const LinOp<V>> A, std::shared_ptr<const LinOp<V>> M,
          std::shared_ptr<const stop::Criterion> criteria, const Dense& b, const Dense& x0)
{
    const auto configured = [&](auto builder) {
        return test::run(
            *builder.with_criteria(criteria).with_preconditioner(M).on(b.executor())->generate(A),
            b, x0);
    };
    return flexible ? configured(solver::Fcg<V>::build()) : configured(solver::Cg<V>::build());
}

test::Solve cg(bool flexible)
{
    return [flexible](auto A, auto M, auto criteria, const Dense& b, const Dense& x0) {
        return solve(flexible, A, M, criteria, b, x0);
    };
}

TEST(FusedCg, RunningAheadGivesTheIteratesOfCheckingEveryIteration)
{
    const auto ref = test::reference();
    const auto csr = test::grid_matrix<V>(ref, 12);
    auto b = test::staggered_rhs(ref, csr->size().rows);
    auto x0 = test::random_dense<V>(ref, {csr->size().rows, 3}, 8);
    for (const bool flexible : {false, true}) {
        for (const bool jacobi : {false, true}) {
            const std::shared_ptr<const LinOp<V>> M =
                jacobi ? test::inverse_diagonal(*csr) : nullptr;
            for (const auto& c : test::run_ahead_criteria()) {
                for (const size_type k : {1, 3}) {
                    SCOPED_TRACE(std::string(flexible ? "fcg" : "cg") +
                                 (jacobi ? " + jacobi, " : ", ") + c->description() + ", " +
                                 std::to_string(k) + " rhs");
                    test::expect_ahead_as_plain(cg(flexible), csr, M, c, b, x0, k);
                }
            }
        }
    }
}

TEST(FusedCg, BreakdownInsideABlockKeepsTheLastIterate)
{
    // A = diag(1, -1), b = (1, 1): p^H A p = 0 at the first iteration.
    const auto ref = test::reference();
    const auto A = std::make_shared<matrix::Csr<V>>(
        matrix::Csr<V>::from_host(ref, {2, 2}, {0, 1, 2}, {0, 1}, {1.0, -1.0}));
    const auto b = Dense::from_host(ref, {2, 1}, {1.0, 1.0});
    const auto x0 = Dense::from_host(ref, {2, 1}, {0.0, 0.0});
    const auto criteria = stop::max_iterations(50);
    const auto ahead = solve(false, std::make_shared<RunAheadMatrix>(A), nullptr, criteria, b, x0);
    const auto plain = solve(false, A, nullptr, criteria, b, x0);
    expect_same(ahead, plain);
    EXPECT_EQ(plain.result.reason, stop::Reason::breakdown);
    EXPECT_EQ(plain.x, (std::vector<V>{0.0, 0.0}));
}

/// exec's CG takes the reference's iterations per column on the same system.
void expect_reference_iterations(std::shared_ptr<const Executor> exec)
{
    test::expect_reference_iterations(exec, test::grid_matrix<V>(test::reference(), 20), cg(false));
}

TEST(FusedCg, OmpTakesTheReferenceIterations)
{
    if (!OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    expect_reference_iterations(OmpExecutor::create());
}

TEST(FusedCg, CudaTakesTheReferenceIterations)
{
    LOOM_CUDA_OR_SKIP(cuda);
    expect_reference_iterations(cuda);
}

}  // namespace
