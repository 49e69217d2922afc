// The SPD ISAI (factorized sparse approximate inverse, M = G^H G): G lower triangular on the
// pattern of tril(A)^k with G A G^H of unit diagonal on every backend, the exact inverse
// Cholesky factor when the pattern is full, a clear error for a matrix that is not positive
// definite, and as CG's preconditioner (from the builder and from JSON) an SPD operator that
// beats Jacobi on a stencil and on real SPD matrices.
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/config.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/io.hpp"
#include "loom/precond/isai.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/sparse/isai.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"

#if LOOM_HAS_DOUBLE && LOOM_HAS_INT32

namespace loom::test {
namespace {

using Csr = matrix::Csr<double, int32>;
using Dense = matrix::Dense<double>;
using sparse::IsaiKind;

/// The 2D 5-point Laplacian of an m x m grid with `shift` added to the diagonal (SPD).
Csr laplacian(size_type m, double shift)
{
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> values;
    const auto n = m * m;
    for (size_type r = 0; r < n; ++r) {
        const auto add = [&](size_type c, double v) {
            cols.push_back(static_cast<int32>(c));
            values.push_back(v);
        };
        if (r >= m) add(r - m, -1);
        if (r % m > 0) add(r - 1, -1);
        add(r, 4 + shift);
        if (r % m + 1 < m) add(r + 1, -1);
        if (r + m < n) add(r + m, -1);
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    return Csr::from_host(reference(), {n, n}, ptrs, cols, values);
}

/// Row-major dense copy of a host-readable Csr.
std::vector<double> dense_of(const Csr& A)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    std::vector<double> d(A.rows() * A.cols(), 0.0);
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) d[r * A.cols() + cols[k]] += values[k];
    }
    return d;
}

/// G A G^T, dense.
std::vector<double> congruence(const std::vector<double>& g, const std::vector<double>& a,
                               size_type n)
{
    std::vector<double> ga(n * n, 0.0), out(n * n, 0.0);
    for (size_type i = 0; i < n; ++i)
        for (size_type k = 0; k < n; ++k)
            for (size_type j = 0; j < n; ++j) ga[i * n + j] += g[i * n + k] * a[k * n + j];
    for (size_type i = 0; i < n; ++i)
        for (size_type k = 0; k < n; ++k)
            for (size_type j = 0; j < n; ++j) out[i * n + j] += ga[i * n + k] * g[j * n + k];
    return out;
}

TEST(IsaiSpd, FactorIsLowerOnTheTrianglesPowerPatternWithUnitCongruenceDiagonal)
{
    const auto A = laplacian(7, 0.1);
    const auto a = dense_of(A);
    const auto n = A.rows();
    for (const int power : {1, 2, 3}) {
        const auto expected = sparse::isai(A, {.kind = IsaiKind::spd, .power = power});
        const auto tril_power =
            sparse::isai(A, {.kind = IsaiKind::lower, .power = power});  // same pattern
        EXPECT_EQ(expected.row_ptrs().to_host(), tril_power.row_ptrs().to_host());
        EXPECT_EQ(expected.col_idxs().to_host(), tril_power.col_idxs().to_host());
        const auto g = dense_of(expected);
        const auto gag = congruence(g, a, n);
        for (size_type i = 0; i < n; ++i) {
            EXPECT_NEAR(gag[i * n + i], 1.0, 1e-12) << "power " << power << " row " << i;
            for (size_type j = i + 1; j < n; ++j) ASSERT_EQ(g[i * n + j], 0.0);
        }
        for (const auto& exec : backends()) {
            SCOPED_TRACE(exec->name() + " power " + std::to_string(power));
            const auto got = sparse::isai(Csr(exec, A), {.kind = IsaiKind::spd, .power = power});
            EXPECT_EQ(got.row_ptrs().to_host(), expected.row_ptrs().to_host());
            EXPECT_EQ(got.col_idxs().to_host(), expected.col_idxs().to_host());
            const auto gv = got.values().to_host();
            const auto ev = expected.values().to_host();
            for (std::size_t k = 0; k < ev.size(); ++k) EXPECT_NEAR(gv[k], ev[k], 1e-14);
        }
    }
}

TEST(IsaiSpd, FullPatternGivesTheInverseCholeskyFactor)
{
    // A tridiagonal SPD matrix: tril(A)^n is the whole lower triangle, so G = L^-1 with
    // A = L L^T and G A G^T = I to rounding, every entry.
    const size_type n = 33;
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> values;
    for (size_type r = 0; r < n; ++r) {
        for (const auto c : {r - 1, r, r + 1}) {
            if (c < 0 || c >= n) continue;
            cols.push_back(static_cast<int32>(c));
            values.push_back(c == r ? 2.5 + 0.01 * r : -1.0);
        }
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    const auto A = Csr::from_host(reference(), {n, n}, ptrs, cols, values);
    for (const auto& exec : all_executors()) {
        const auto G = sparse::isai(Csr(exec, A), {.kind = IsaiKind::spd, .power = int(n)});
        const auto gag = congruence(dense_of(Csr(reference(), G)), dense_of(A), n);
        for (size_type i = 0; i < n; ++i) {
            for (size_type j = 0; j < n; ++j) {
                ASSERT_NEAR(gag[i * n + j], i == j ? 1.0 : 0.0, 1e-12)
                    << exec->name() << " (" << i << ", " << j << ")";
            }
        }
    }
}

TEST(IsaiSpd, IndefiniteMatrixRaisesNamingTheRow)
{
    // Rows 0..2 positive, row 3 negative on the diagonal and decoupled: its row system gives
    // 1 / a_33 < 0.
    const auto A = Csr::from_host(reference(), {4, 4}, std::vector<int32>{0, 2, 4, 5, 6},
                                  std::vector<int32>{0, 1, 0, 1, 2, 3},
                                  std::vector<double>{2, -1, -1, 2, 1, -3});
    for (const auto& exec : all_executors()) {
        try {
            sparse::isai(Csr(exec, A), {.kind = IsaiKind::spd});
            ADD_FAILURE() << "no error on " << exec->name();
        } catch (const NumericalError& e) {
            EXPECT_NE(std::string(e.what()).find("row 3"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("positive definite"), std::string::npos)
                << e.what();
        }
    }
}

/// CG iterations to 1e-8 with M, and whether the true residual reached it.
size_type cg_iterations(const std::shared_ptr<const Executor>& exec, const Csr& A,
                        std::shared_ptr<const LinOpFactory<double>> M, bool& converged)
{
    const auto b = random_dense<double>(reference(), {A.rows(), 1}, 4);
    const auto solver = solver::Cg<double>::build()
                            .with_criteria(stop::max_iterations(5000) | stop::relative_residual(1e-8))
                            .with_preconditioner(M)
                            .on(exec)
                            ->generate(std::make_shared<Csr>(exec, A));
    Dense x(exec, b.size());
    x.fill(0.0);
    solver->apply(Dense(exec, b), x);
    converged = solver->result().converged() &&
                true_relative_residual(A, b, Dense(reference(), x)) < 1e-7;
    return solver->result().iterations;
}

TEST(IsaiSpd, PreconditionerIsSymmetricAndBeatsJacobiInCg)
{
    const auto A = laplacian(24, 0.0);
    for (const auto& exec : all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto M = precond::Isai<double>::build()
                           .with_kind(IsaiKind::spd)
                           .with_power(2)
                           .on(exec)
                           ->generate(std::make_shared<Csr>(exec, A));
        // u^T M v = v^T M u for random u, v.
        const auto u = random_dense<double>(reference(), {A.rows(), 1}, 5);
        const auto v = random_dense<double>(reference(), {A.rows(), 1}, 6);
        Dense mu(exec, u.size()), mv(exec, v.size());
        M->apply(Dense(exec, u), mu);
        M->apply(Dense(exec, v), mv);
        const auto mu_h = mu.to_host();
        const auto mv_h = mv.to_host();
        const auto u_h = u.to_host();
        const auto v_h = v.to_host();
        double v_mu = 0, u_mv = 0, u_mu = 0;
        for (size_type i = 0; i < A.rows(); ++i) {
            v_mu += v_h[i] * mu_h[i];
            u_mv += u_h[i] * mv_h[i];
            u_mu += u_h[i] * mu_h[i];
        }
        EXPECT_NEAR(v_mu, u_mv, 1e-12 * std::abs(v_mu));
        EXPECT_GT(u_mu, 0.0);
        // alpha M b + beta x through the scaled apply.
        Dense x(exec, Dense(exec, v));
        M->apply(2.0, Dense(exec, u), -1.0, x);
        const auto x_h = x.to_host();
        for (size_type i = 0; i < A.rows(); ++i) {
            EXPECT_NEAR(x_h[i], 2.0 * mu_h[i] - v_h[i], 1e-13 * (1 + std::abs(x_h[i])));
        }

        bool ok = false, jacobi_ok = false;
        const auto with_isai = cg_iterations(
            exec, A, precond::Isai<double>::build().with_kind(IsaiKind::spd).with_power(2).on(exec),
            ok);
        const auto with_jacobi = cg_iterations(
            exec, A, precond::Jacobi<double>::build().with_max_block_size(1).on(exec), jacobi_ok);
        EXPECT_TRUE(ok);
        EXPECT_TRUE(jacobi_ok);
        EXPECT_LT(with_isai, with_jacobi);
    }
}

TEST(IsaiSpd, FromJsonConfigOnRealSpdMatrices)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    for (const char* name : {"nos4", "bcsstk05"}) {
        if (!have_shared_matrix(name)) continue;
        const auto A = matrix::read_csr<double, int32>(reference(), shared_matrix_path(name));
        for (const auto& exec : all_executors()) {
            SCOPED_TRACE(std::string(name) + " on " + exec->name());
            const auto solver = solver::from_config<double>(
                R"({"solver": "cg", "criteria": {"max_iters": 5000, "relative_residual": 1e-8},
                    "preconditioner": {"type": "isai", "kind": "spd", "power": 2}})",
                exec)->generate(std::make_shared<Csr>(exec, A));
            const auto b = random_dense<double>(reference(), {A.rows(), 1}, 7);
            Dense x(exec, b.size());
            x.fill(0.0);
            solver->apply(Dense(exec, b), x);
            const auto& iterative = dynamic_cast<const solver::IterativeSolver<double>&>(*solver);
            EXPECT_TRUE(iterative.result().converged());
            EXPECT_LT(true_relative_residual(A, b, Dense(reference(), x)), 1e-7);
            bool jacobi_ok = false;
            const auto with_jacobi = cg_iterations(
                exec, A, precond::Jacobi<double>::build().with_max_block_size(1).on(exec),
                jacobi_ok);
            if (jacobi_ok) EXPECT_LT(iterative.result().iterations, with_jacobi);
        }
    }
}

}  // namespace
}  // namespace loom::test

#endif
