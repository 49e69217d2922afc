// BiCGSTAB's fused steps (blas::bicgstab_direction_step, bicgstab_half_step,
// bicgstab_final_step) and its run-ahead iteration (solver/run_ahead.hpp): OpenMP's steps
// equal the reference's; a space that runs blocks of iterations ahead of the host gives bit
// for bit the iterates, histories, restarts and results of checking every iteration, also
// where a column restarts with a fresh shadow residual, breaks down or converges inside a
// block; OpenMP (and CUDA, on a device machine) take the reference's iteration counts.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/blas/vector.hpp"
#include "loom/log/loggers.hpp"
#include "loom/solver/solvers.hpp"
#include "solver/problems.hpp"
#include "solver/run_ahead.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace {

using namespace loom;
using V = double;
using Dense = matrix::Dense<V>;
using test::row;
using test::Run;

// ---------------------------------------------------------------- the steps

/// The scalars of an iteration for k = 5 columns: 0 goes on (beta = (3/2) (2/1) / (1/2) =
/// 6), 1 was stopped, 2 converged (threshold above its norm), 3 restarts (rho = 0), 4 has
/// r~^H A p = 0 in this iteration (stops before the half step).
struct StepCase {
    explicit StepCase(std::shared_ptr<const Executor> exec)
        : gate_prev(row(exec, {1, 0, 1, 1, 1})),
          rho_prev(row(exec, {3, 3, 3, 0, 3})),
          rr_prev(row(exec, {4, 4, 4, 4, 4})),
          rho_old_prev(row(exec, {2, 2, 2, 2, 2})),
          sigma_prev(row(exec, {1, 1, 1, 1, 1})),
          tt_prev(row(exec, {2, 2, 2, 2, 2})),
          ts_prev(row(exec, {1, 1, 1, 1, 1})),
          restarts_prev(row(exec, {0, 0, 0, 1, 0})),
          threshold(row(exec, {-1, -1, 3, -1, -1})),
          gate(row(exec, {7, 7, 7, 7, 7})),
          rho_old(row(exec, {7, 7, 7, 7, 7})),
          restarts(row(exec, {7, 7, 7, 7, 7})),
          sigma(row(exec, {4, 4, 4, 4, 0})),
          gate_half(row(exec, {7, 7, 7, 7, 7})),
          tt(row(exec, {2, 2, 2, 0, 2})),
          ts(row(exec, {1, 1, 1, 1, 1})),
          rho(row(exec, {7, 7, 7, 7, 7})),
          rr(row(exec, {7, 7, 7, 7, 7}))
    {}
    blas::BicgstabStepScalars<V> scalars()
    {
        blas::BicgstabStepScalars<V> s;
        s.max_restarts = 2;
        s.gate_prev = &gate_prev;
        s.rho_prev = &rho_prev;
        s.rr_prev = &rr_prev;
        s.rho_old_prev = &rho_old_prev;
        s.sigma_prev = &sigma_prev;
        s.tt_prev = &tt_prev;
        s.ts_prev = &ts_prev;
        s.restarts_prev = &restarts_prev;
        s.threshold = &threshold;
        s.gate = &gate;
        s.rho_old = &rho_old;
        s.restarts = &restarts;
        s.sigma = &sigma;
        s.gate_half = &gate_half;
        s.tt = &tt;
        s.ts = &ts;
        s.rho = &rho;
        s.rr = &rr;
        return s;
    }
    Dense gate_prev, rho_prev, rr_prev, rho_old_prev, sigma_prev, tt_prev, ts_prev, restarts_prev,
        threshold, gate, rho_old, restarts, sigma, gate_half, tt, ts, rho, rr;
};

/// The three steps of one iteration on exec, from the same start.
struct StepRun {
    std::vector<V> r, r_tld, p, x, gate, rho_old, restarts, gate_half, rho, rr;
};

StepRun run_steps(std::shared_ptr<const Executor> exec, size_type rows)
{
    const auto ref = test::reference();
    StepCase c(exec);
    auto s = c.scalars();
    Dense r(exec, test::random_dense<V>(ref, {rows, 5}, 1));
    Dense r_tld(exec, test::random_dense<V>(ref, {rows, 5}, 2));
    Dense p(exec, test::random_dense<V>(ref, {rows, 5}, 3));
    Dense x(exec, test::random_dense<V>(ref, {rows, 5}, 4));
    const Dense v(exec, test::random_dense<V>(ref, {rows, 5}, 5));
    const Dense t(exec, test::random_dense<V>(ref, {rows, 5}, 6));
    const Dense p_hat(exec, test::random_dense<V>(ref, {rows, 5}, 7));
    blas::bicgstab_direction_step(s, r, v, p, r_tld);
    blas::bicgstab_half_step(s, v, r);
    // Unpreconditioned: s_hat is r itself.
    blas::bicgstab_final_step(s, p_hat, r, t, r_tld, r, x);
    return {r.to_host(),      r_tld.to_host(),     p.to_host(),          x.to_host(),
            c.gate.to_host(), c.rho_old.to_host(), c.restarts.to_host(), c.gate_half.to_host(),
            c.rho.to_host(),  c.rr.to_host()};
}

TEST(FusedBicgstabSteps, DecideAsTheSolverAndAgreeOnTheHostBackends)
{
    for (const size_type rows : {0, 1, 40, 3000}) {
        SCOPED_TRACE(std::to_string(rows) + " rows");
        const auto expected = run_steps(test::reference(), rows);
        EXPECT_EQ(expected.gate, (std::vector<V>{1, 0, 0, 1, 1}));
        EXPECT_EQ(expected.rho_old, (std::vector<V>{3, 3, 3, 4, 3}));
        EXPECT_EQ(expected.restarts, (std::vector<V>{0, 0, 0, 2, 0}));
        EXPECT_EQ(expected.gate_half, (std::vector<V>{1, 0, 0, 1, 0}));
        if (rows > 0) {
            // Column 3 restarted before its half step: r~ = the r it started with, so
            // r~ differs from the final r; stopped columns keep r~.
            const auto start = test::random_dense<V>(test::reference(), {rows, 5}, 2).to_host();
            for (size_type i = 0; i < rows; ++i) {
                EXPECT_EQ(expected.r_tld[i * 5 + 1], start[i * 5 + 1]);
                EXPECT_EQ(expected.r_tld[i * 5 + 0], start[i * 5 + 0]);
            }
        }
        for (const auto& exec : test::backends()) {
            if (exec->kind() == ExecKind::reference) continue;
            if (exec->kind() == ExecKind::cuda) continue;  // CudaTakesTheReferenceIterations
            SCOPED_TRACE(exec->name());
            const auto actual = run_steps(exec, rows);
            // Updates are element-wise: bit for bit; the reductions sum in another order.
            EXPECT_EQ(actual.r, expected.r);
            EXPECT_EQ(actual.r_tld, expected.r_tld);
            EXPECT_EQ(actual.p, expected.p);
            EXPECT_EQ(actual.x, expected.x);
            EXPECT_EQ(actual.gate, expected.gate);
            EXPECT_EQ(actual.rho_old, expected.rho_old);
            EXPECT_EQ(actual.restarts, expected.restarts);
            EXPECT_EQ(actual.gate_half, expected.gate_half);
            LOOM_EXPECT_NEAR_VECTORS(actual.rho, expected.rho, 1e-12);
            LOOM_EXPECT_NEAR_VECTORS(actual.rr, expected.rr, 1e-12);
        }
    }
}

TEST(FusedBicgstabSteps, TheStepsAreTheTextbookUpdates)
{
    const auto ref = test::reference();
    const size_type rows = 7;
    const auto r0 = test::random_dense<V>(ref, {rows, 5}, 1).to_host();
    const auto p0 = test::random_dense<V>(ref, {rows, 5}, 3).to_host();
    const auto x0 = test::random_dense<V>(ref, {rows, 5}, 4).to_host();
    const auto v = test::random_dense<V>(ref, {rows, 5}, 5).to_host();
    const auto t = test::random_dense<V>(ref, {rows, 5}, 6).to_host();
    const auto p_hat = test::random_dense<V>(ref, {rows, 5}, 7).to_host();
    const auto got = run_steps(ref, rows);
    for (size_type i = 0; i < rows; ++i) {
        const auto at = [&](size_type j) { return i * 5 + j; };
        // Column 0: beta = 6, omega_prev = 1/2; alpha = 3/4; omega = 1/2.
        const V p = r0[at(0)] + 6.0 * (p0[at(0)] + -0.5 * v[at(0)]);
        EXPECT_EQ(got.p[at(0)], p);
        const V s = r0[at(0)] + -0.75 * v[at(0)];
        EXPECT_EQ(got.x[at(0)], (x0[at(0)] + 0.75 * p_hat[at(0)]) + 0.5 * s);
        EXPECT_EQ(got.r[at(0)], s + -0.5 * t[at(0)]);
        // Columns 1, 2 and 4 stopped before the half step: untouched.
        for (const size_type j : {1, 2, 4}) {
            EXPECT_EQ(got.r[at(j)], r0[at(j)]);
            EXPECT_EQ(got.x[at(j)], x0[at(j)]);
        }
        EXPECT_EQ(got.p[at(1)], p0[at(1)]);
        EXPECT_EQ(got.p[at(2)], p0[at(2)]);
        // Column 3 restarted: p = r~ = r; alpha = 4/4; t^H t = 0 keeps the half step.
        EXPECT_EQ(got.p[at(3)], r0[at(3)]);
        EXPECT_EQ(got.r_tld[at(3)], r0[at(3)]);
        EXPECT_EQ(got.r[at(3)], r0[at(3)] + -1.0 * v[at(3)]);
        EXPECT_EQ(got.x[at(3)], x0[at(3)] + 1.0 * p_hat[at(3)]);
    }
}

TEST(FusedBicgstabSteps, BadInputRaisesAndLeavesDataUntouched)
{
    const auto ref = test::reference();
    StepCase c(ref);
    auto s = c.scalars();
    const auto v = test::random_dense<V>(ref, {5, 5}, 1);
    auto r = test::random_dense<V>(ref, {5, 5}, 2);
    auto p = test::random_dense<V>(ref, {5, 5}, 3);
    auto r_tld = test::random_dense<V>(ref, {5, 5}, 4);
    const auto before = r.to_host();
    const auto p_before = p.to_host();
    auto wrong = row(ref, {1, 2});
    s.rho_prev = &wrong;
    EXPECT_THROW(blas::bicgstab_direction_step(s, r, v, p, r_tld), DimensionMismatch);
    s = c.scalars();
    s.sigma = nullptr;
    EXPECT_THROW(blas::bicgstab_half_step(s, v, r), BadInput);
    auto short_r = test::random_dense<V>(ref, {4, 5}, 2);
    EXPECT_THROW(blas::bicgstab_final_step(c.scalars(), v, v, v, r_tld, short_r, p),
                 DimensionMismatch);
    EXPECT_EQ(r.to_host(), before);
    EXPECT_EQ(p.to_host(), p_before);
    EXPECT_EQ(c.gate.to_host(), (std::vector<V>{7, 7, 7, 7, 7}));
}

// ---------------------------------------------------------------- running ahead

Run solve(std::shared_ptr<const LinOp<V>> A, std::shared_ptr<const LinOp<V>> M,
          std::shared_ptr<const stop::Criterion> criteria, const Dense& b, const Dense& x0,
          size_type max_restarts = solver::ShadowParameters<V>::default_max_restarts)
{
    return test::run(*solver::Bicgstab<V>::build()
                          .with_criteria(criteria)
                          .with_preconditioner(M)
                          .with_max_restarts(max_restarts)
                          .on(b.executor())
                          ->generate(A),
                     b, x0);
}

test::Solve bicgstab(size_type max_restarts = solver::ShadowParameters<V>::default_max_restarts)
{
    return [max_restarts](auto A, auto M, auto criteria, const Dense& b, const Dense& x0) {
        return solve(A, M, criteria, b, x0, max_restarts);
    };
}

TEST(FusedBicgstab, RunningAheadGivesTheIteratesOfCheckingEveryIteration)
{
    const auto ref = test::reference();
    const auto csr = test::grid_matrix<V>(ref, 10, 0.3);
    auto b = test::staggered_rhs(ref, csr->size().rows);
    auto x0 = test::random_dense<V>(ref, {csr->size().rows, 3}, 8);
    for (const bool jacobi : {false, true}) {
        const std::shared_ptr<const LinOp<V>> M = jacobi ? test::inverse_diagonal(*csr) : nullptr;
        for (const auto& c : test::run_ahead_criteria()) {
            for (const size_type k : {1, 3}) {
                SCOPED_TRACE(std::string(jacobi ? "jacobi, " : "") + c->description() + ", " +
                             std::to_string(k) + " rhs");
                test::expect_ahead_as_plain(bicgstab(), csr, M, c, b, x0, k);
            }
        }
    }
}

/// blockdiag(T, grid): T lower triangular such that with b = e_1 rho = r~^H r is exactly
/// zero after iteration 1 (solver_test's ShadowSolversRestartOnARhoBreakdown); a right-hand
/// side on the grid part runs for many iterations.
std::shared_ptr<matrix::Csr<V>> restart_matrix(std::shared_ptr<const Executor> exec)
{
    const auto grid = test::grid_matrix<V>(test::reference(), 6, 0.2);
    std::vector<int32> ptrs{0, 1, 3, 6};
    std::vector<int32> cols{0, 0, 1, 0, 1, 2};
    std::vector<V> vals{1, 1, 2, 1, 1, 3};
    for (size_type i = 0; i < grid->size().rows; ++i) {
        for (auto e = grid->row_ptrs()[i]; e < grid->row_ptrs()[i + 1]; ++e) {
            cols.push_back(grid->col_idxs()[e] + 3);
            vals.push_back(grid->values()[e]);
        }
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    const auto n = grid->size().rows + 3;
    return std::make_shared<matrix::Csr<V>>(
        matrix::Csr<V>::from_host(std::move(exec), {n, n}, ptrs, cols, vals));
}

TEST(FusedBicgstab, RestartAndBreakdownInsideABlockAsCheckingEveryIteration)
{
    const auto ref = test::reference();
    const auto A = restart_matrix(ref);
    const auto n = A->size().rows;
    std::vector<V> values(static_cast<std::size_t>(n * 2), V{0});
    values[0] = 1;  // column 0: e_1, restarts at the start of iteration 2
    for (size_type i = 3; i < n; ++i) values[i * 2 + 1] = V(i % 5) - 2;
    auto b = Dense::from_host(ref, {n, 2}, values);
    auto x0 = Dense(ref, {n, 2});
    x0.fill(V{0});
    // Without a residual threshold the first block is 32 iterations long.
    const std::shared_ptr<const stop::Criterion> criteria[] = {
        stop::max_iterations(40), stop::max_iterations(60) | stop::relative_residual(1e-12)};
    for (const auto& c : criteria) {
        for (const size_type restarts : {size_type{0}, size_type{3}}) {
            for (const size_type k : {1, 2}) {
                SCOPED_TRACE(c->description() + ", " + std::to_string(restarts) + " restarts, " +
                             std::to_string(k) + " rhs");
                const auto plain =
                    test::expect_ahead_as_plain(bicgstab(restarts), A, nullptr, c, b, x0, k);
                if (restarts == 0) {
                    EXPECT_EQ(plain.result.columns[0].reason, stop::Reason::breakdown);
                    EXPECT_EQ(plain.result.columns[0].iteration, 1);
                } else {
                    EXPECT_GE(plain.result.restarts[0], 1);
                }
                if (k == 2) EXPECT_GT(plain.result.columns[1].iteration, 2);
            }
        }
    }
}

/// exec's BiCGSTAB takes the reference's iterations per column on the same system.
void expect_reference_iterations(std::shared_ptr<const Executor> exec)
{
    test::expect_reference_iterations(exec, test::grid_matrix<V>(test::reference(), 16, 0.3),
                                      bicgstab());
}

TEST(FusedBicgstab, OmpTakesTheReferenceIterations)
{
    if (!OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    expect_reference_iterations(OmpExecutor::create());
}

TEST(FusedBicgstab, CudaTakesTheReferenceIterations)
{
    LOOM_CUDA_OR_SKIP(cuda);
    expect_reference_iterations(cuda);
    // The steps on the device equal the reference's.
    const auto expected = run_steps(test::reference(), 3000);
    const auto actual = run_steps(cuda, 3000);
    EXPECT_EQ(actual.gate, expected.gate);
    EXPECT_EQ(actual.restarts, expected.restarts);
    EXPECT_EQ(actual.gate_half, expected.gate_half);
    LOOM_EXPECT_NEAR_VECTORS(actual.x, expected.x, 1e-12);
    LOOM_EXPECT_NEAR_VECTORS(actual.rr, expected.rr, 1e-10);
}

}  // namespace
