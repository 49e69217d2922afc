// ParILUT / ParICT's pattern search in the executor's memory (OpenMP, CUDA) against the host
// search (the reference backend's): the budget and the diagonal, the same pattern where no two
// candidates tie, preconditioners as good, bad input.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/config.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/precond/ilu.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/sparse/ilu.hpp"
#include "support/executors.hpp"

#if LOOM_HAS_DOUBLE && LOOM_HAS_INT32

namespace {

using namespace loom;
using Csr = matrix::Csr<double, int32>;
using sparse::IluKind;
using sparse::IluOptions;

std::vector<std::shared_ptr<const Executor>> all_executors()
{
    auto executors = test::backends();
    executors.insert(executors.begin(), test::reference());
    return executors;
}

/// A 5-point grid of m x m unknowns with random weights (no two alike, so no candidates tie):
/// symmetric with a dominant diagonal (SPD) when `symmetric`, else with a random convection.
Csr random_grid(size_type m, bool symmetric, std::uint64_t seed = 5)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> weight(0.5, 1.5);
    const auto n = m * m;
    // w[r][d]: the weight of the edge from r to its neighbour in direction d (right, down).
    std::vector<std::array<double, 2>> w(n);
    for (auto& edge : w) edge = {weight(rng), weight(rng)};
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> values;
    for (size_type r = 0; r < n; ++r) {
        const auto i = r / m;
        const auto j = r % m;
        const auto skew = [&] { return symmetric ? 0.0 : 0.4 * (weight(rng) - 1); };
        const auto add = [&](size_type c, double v) {
            cols.push_back(static_cast<int32>(c));
            values.push_back(v);
        };
        if (i > 0) add(r - m, -w[r - m][1] + skew());
        if (j > 0) add(r - 1, -w[r - 1][0] + skew());
        add(r, 4.2 + 0.1 * weight(rng));
        if (j + 1 < m) add(r + 1, -w[r][0] + skew());
        if (i + 1 < m) add(r + m, -w[r][1] + skew());
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    return Csr::from_host(test::reference(), {n, n}, ptrs, cols, values);
}

struct Factors {
    Csr L, U;
};

Factors factor(const std::shared_ptr<const Executor>& exec, const Csr& A, const IluOptions& options)
{
    const Csr A_exec(exec, A);
    sparse::IluHandle<double, int32> handle(options);
    Factors f;
    sparse::ilu_symbolic(handle, A_exec, f.L, f.U);
    sparse::ilu_numeric(handle, A_exec, f.L, f.U);
    return f;
}

/// Whether every row of M holds its diagonal entry last (L) or first (U).
bool diagonal_in_every_row(const Csr& M, bool last)
{
    const auto ptrs = M.row_ptrs().to_host();
    const auto cols = M.col_idxs().to_host();
    for (size_type r = 0; r < M.rows(); ++r) {
        if (ptrs[r] == ptrs[r + 1]) return false;
        if (cols[last ? ptrs[r + 1] - 1 : ptrs[r]] != static_cast<int32>(r)) return false;
    }
    return true;
}

size_type lower_entries(const Csr& A)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    size_type count = 0;
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) count += cols[k] <= static_cast<int32>(r);
    }
    return count;
}

TEST(IluThreshold, PatternKeepsTheBudgetAndTheDiagonalOnEveryBackend)
{
    const auto A = random_grid(16, false);
    const auto S = random_grid(16, true);
    for (const auto& exec : all_executors()) {
        for (const double fill : {1.0, 2.0}) {
            const auto f = factor(exec, A, {.kind = IluKind::parilut, .fill_limit = fill});
            EXPECT_LE(f.L.nnz() + f.U.nnz() - A.rows(), fill * A.nnz()) << exec->name();
            EXPECT_TRUE(diagonal_in_every_row(f.L, true)) << exec->name();
            EXPECT_TRUE(diagonal_in_every_row(f.U, false)) << exec->name();
            const auto c = factor(exec, S, {.kind = IluKind::parict, .fill_limit = fill});
            EXPECT_LE(c.L.nnz(), fill * lower_entries(S)) << exec->name();
            EXPECT_TRUE(diagonal_in_every_row(c.L, true)) << exec->name();
            // Room for fill: the factors grow beyond A's pattern.
            if (fill > 1) EXPECT_GT(f.L.nnz() + f.U.nnz() - A.rows(), A.nnz()) << exec->name();
        }
    }
}

TEST(IluThreshold, WithoutTiesTheBackendsFindTheHostSearchsPattern)
{
    const auto A = random_grid(16, false);
    const auto S = random_grid(16, true);
    const auto same_pattern = [](const Csr& x, const Csr& y) {
        return x.row_ptrs().to_host() == y.row_ptrs().to_host() &&
               x.col_idxs().to_host() == y.col_idxs().to_host();
    };
    for (const IluOptions& options :
         {IluOptions{.kind = IluKind::parilut, .fill_limit = 1.5},
          IluOptions{.kind = IluKind::parilut, .fill_limit = 3.0, .drop_tolerance = 0.01},
          IluOptions{.kind = IluKind::parict, .fill_limit = 1.5},
          IluOptions{.kind = IluKind::parict, .steps = 2, .fill_limit = 3.0}}) {
        const bool cholesky = sparse::is_cholesky(options.kind);
        const auto& M = cholesky ? S : A;
        const auto expected = factor(test::reference(), M, options);
        for (const auto& exec : test::backends()) {
            const auto f = factor(exec, M, options);
            EXPECT_TRUE(same_pattern(f.L, expected.L))
                << sparse::to_string(options.kind) << " on " << exec->name();
            if (!cholesky) {
                EXPECT_TRUE(same_pattern(f.U, expected.U))
                    << sparse::to_string(options.kind) << " on " << exec->name();
            }
        }
    }
}

TEST(IluThreshold, ManyCandidatesAndTiesGiveTheHostSearchsPatternOnOpenMp)
{
    // Over 64 Ki candidates, so OpenMP selects the k-th largest among the keys a sample
    // brackets; 3D Poisson's candidates tie in swarms, and OpenMP's sums are the reference's
    // (one merge per row, the same order), so the same entries tie and the same are kept.
    const auto poisson = matrix::poisson3d<double, int32>(test::reference(), 20);
    const auto grid = random_grid(100, false);
    const IluOptions options{.kind = IluKind::parilut, .steps = 2, .fill_limit = 2.0};
    for (const auto* A : {&poisson, &grid}) {
        const auto expected = factor(test::reference(), *A, options);
        for (const auto& exec : test::backends()) {
            if (exec->kind() != ExecKind::omp) continue;  // CUDA's sums may fuse multiply-adds
            const auto f = factor(exec, *A, options);
            EXPECT_EQ(f.L.col_idxs().to_host(), expected.L.col_idxs().to_host()) << A->rows();
            EXPECT_EQ(f.U.col_idxs().to_host(), expected.U.col_idxs().to_host()) << A->rows();
            EXPECT_EQ(f.U.row_ptrs().to_host(), expected.U.row_ptrs().to_host()) << A->rows();
        }
    }
}

/// A with its last row and column full (weights distinct, diagonal dominant): a row with more
/// lower entries than a warp has lanes, which CUDA's candidates merge on one lane.
Csr with_full_last_row(const Csr& A)
{
    const auto n = A.rows();
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    std::vector<int32> new_ptrs{0}, new_cols;
    std::vector<double> new_values;
    const auto last = static_cast<int32>(n - 1);
    for (size_type r = 0; r + 1 < n; ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (cols[k] == last) continue;
            new_cols.push_back(cols[k]);
            new_values.push_back(values[k]);
        }
        new_cols.push_back(last);
        new_values.push_back(-0.01 * (1 + 0.001 * static_cast<double>(r)));
        new_ptrs.push_back(static_cast<int32>(new_cols.size()));
    }
    for (int32 c = 0; c < last; ++c) {
        new_cols.push_back(c);
        new_values.push_back(-0.02 * (1 + 0.0007 * c));
    }
    new_cols.push_back(last);
    new_values.push_back(4.0 + 0.03 * static_cast<double>(n));
    new_ptrs.push_back(static_cast<int32>(new_cols.size()));
    return Csr::from_host(test::reference(), A.size(), new_ptrs, new_cols, new_values);
}

TEST(IluThreshold, AFullRowGivesTheHostSearchsPattern)
{
    const auto A = with_full_last_row(random_grid(8, false));
    const IluOptions options{.kind = IluKind::parilut, .fill_limit = 1.5};
    const auto expected = factor(test::reference(), A, options);
    for (const auto& exec : test::backends()) {
        const auto f = factor(exec, A, options);
        EXPECT_EQ(f.L.col_idxs().to_host(), expected.L.col_idxs().to_host()) << exec->name();
        EXPECT_EQ(f.U.col_idxs().to_host(), expected.U.col_idxs().to_host()) << exec->name();
        EXPECT_EQ(f.U.row_ptrs().to_host(), expected.U.row_ptrs().to_host()) << exec->name();
    }
}

/// Row r holding r % 37 lower neighbours r - 1, r - 2, ... (as many as there are) and their
/// mirrors, random weights, a dominant diagonal: every lower count from 0 to 36, so CUDA's
/// merge takes its group of lanes (up to 14 lower entries with 16 lanes), a whole warp (up to
/// 30) and one lane (more) for rows of one warp.
Csr every_lower_count(size_type n)
{
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> weight(0.1, 1.0);
    std::vector<std::vector<std::pair<int32, double>>> rows(n);
    for (size_type r = 0; r < n; ++r) {
        const auto lower = std::min<size_type>(r, r % 37);
        for (size_type d = 1; d <= lower; ++d) {
            const auto c = r - d;
            const double w = -weight(rng);
            rows[r].emplace_back(static_cast<int32>(c), w);
            rows[c].emplace_back(static_cast<int32>(r), w * weight(rng));
        }
    }
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> values;
    for (size_type r = 0; r < n; ++r) {
        double off = 0;
        for (const auto& [c, v] : rows[r]) off += std::abs(v);
        rows[r].emplace_back(static_cast<int32>(r), off + 1 + weight(rng));
        std::sort(rows[r].begin(), rows[r].end());
        for (const auto& [c, v] : rows[r]) {
            cols.push_back(c);
            values.push_back(v);
        }
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    return Csr::from_host(test::reference(), {n, n}, ptrs, cols, values);
}

TEST(IluThreshold, RowsOfEveryLowerCountGiveTheHostSearchsPattern)
{
    const auto A = every_lower_count(150);
    const IluOptions options{.kind = IluKind::parilut, .fill_limit = 1.5};
    const auto expected = factor(test::reference(), A, options);
    for (const auto& exec : test::backends()) {
        const auto f = factor(exec, A, options);
        EXPECT_EQ(f.L.col_idxs().to_host(), expected.L.col_idxs().to_host()) << exec->name();
        EXPECT_EQ(f.U.col_idxs().to_host(), expected.U.col_idxs().to_host()) << exec->name();
        EXPECT_EQ(f.U.row_ptrs().to_host(), expected.U.row_ptrs().to_host()) << exec->name();
    }
}

/// A with every row stored backwards and its first entry split into two halves (a duplicate).
Csr reversed_with_duplicates(const Csr& A)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    std::vector<int32> new_ptrs{0}, new_cols;
    std::vector<double> new_values;
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = ptrs[r + 1] - 1; k >= ptrs[r]; --k) {
            const bool split = k == ptrs[r];
            for (int copy = 0; copy < (split ? 2 : 1); ++copy) {
                new_cols.push_back(cols[k]);
                new_values.push_back(split ? values[k] / 2 : values[k]);
            }
        }
        new_ptrs.push_back(static_cast<int32>(new_cols.size()));
    }
    return Csr::from_host(test::reference(), A.size(), new_ptrs, new_cols, new_values);
}

TEST(IluThreshold, UnsortedRowsAndDuplicatesGiveTheSamePattern)
{
    for (const auto kind : {IluKind::parilut, IluKind::parict}) {
        // The budget counts A's stored entries, duplicates included: the same A for all.
        const auto A = reversed_with_duplicates(random_grid(12, sparse::is_cholesky(kind)));
        const IluOptions options{.kind = kind, .fill_limit = 1.5};
        const auto expected = factor(test::reference(), A, options);
        for (const auto& exec : test::backends()) {
            const auto f = factor(exec, A, options);
            EXPECT_EQ(f.L.col_idxs().to_host(), expected.L.col_idxs().to_host())
                << sparse::to_string(kind) << " on " << exec->name();
            EXPECT_EQ(f.L.row_ptrs().to_host(), expected.L.row_ptrs().to_host())
                << sparse::to_string(kind) << " on " << exec->name();
        }
    }
}

/// GMRES iterations to 1e-8 with preconditioner M.
size_type gmres_iterations(const std::shared_ptr<const Executor>& exec, const Csr& A,
                           std::shared_ptr<const LinOpFactory<double>> M)
{
    const auto solver = solver::Gmres<double>::build()
                            .with_krylov_dim(50)
                            .with_criteria(stop::max_iterations(500) | stop::relative_residual(1e-8))
                            .with_preconditioner(std::move(M))
                            .on(exec)
                            ->generate(std::make_shared<Csr>(exec, A));
    matrix::Dense<double> b(exec, {A.rows(), 1});
    matrix::Dense<double> x(exec, {A.rows(), 1});
    b.fill(1.0);
    x.fill(0.0);
    solver->apply(b, x);
    EXPECT_TRUE(solver->result().converged()) << exec->name();
    return solver->result().iterations;
}

/// GMRES iterations with ParILUT on a nonsymmetric and ParICT on an SPD problem.
std::pair<size_type, size_type> threshold_iterations(const std::shared_ptr<const Executor>& exec,
                                                     const Csr& A, const Csr& S)
{
    return {gmres_iterations(exec, A,
                             precond::Ilu<double>::build()
                                 .with_kind(IluKind::parilut)
                                 .with_fill_limit(2.0)
                                 .on(exec)),
            gmres_iterations(exec, S,
                             precond::Ic<double>::build()
                                 .with_kind(IluKind::parict)
                                 .with_fill_limit(2.0)
                                 .on(exec))};
}

TEST(IluThreshold, PreconditionsGmresAsWellAsTheHostSearch)
{
    const auto A = random_grid(20, false);
    const auto S = random_grid(20, true);
    const auto [ilut, ict] = threshold_iterations(test::reference(), A, S);
    for (const auto& exec : test::backends()) {
        const auto [backend_ilut, backend_ict] = threshold_iterations(exec, A, S);
        EXPECT_NEAR(static_cast<double>(backend_ilut), static_cast<double>(ilut), 3)
            << exec->name();
        EXPECT_NEAR(static_cast<double>(backend_ict), static_cast<double>(ict), 3) << exec->name();
    }
}

TEST(IluThreshold, BadInputLeavesTheFactorsUntouched)
{
    const auto A = random_grid(6, false);
    for (const auto& exec : all_executors()) {
        const Csr A_exec(exec, A);
        auto f = factor(exec, A, {.kind = IluKind::parilut});
        const auto l_before = f.L.values().to_host();
        const auto u_before = f.U.values().to_host();
        sparse::IluHandle<double, int32> bad_fill({.kind = IluKind::parilut, .fill_limit = 0});
        EXPECT_THROW(sparse::ilu_symbolic(bad_fill, A_exec, f.L, f.U), BadInput);
        sparse::IluHandle<double, int32> bad_drop({.kind = IluKind::parict, .drop_tolerance = -1});
        EXPECT_THROW(sparse::ilu_symbolic(bad_drop, A_exec, f.L, f.U), BadInput);
        const Csr rectangular(exec, dim2{A.rows(), A.rows() + 1});
        sparse::IluHandle<double, int32> handle({.kind = IluKind::parilut});
        EXPECT_THROW(sparse::ilu_symbolic(handle, rectangular, f.L, f.U), DimensionMismatch);
        EXPECT_EQ(f.L.values().to_host(), l_before) << exec->name();
        EXPECT_EQ(f.U.values().to_host(), u_before) << exec->name();
    }
}

// 3D Poisson is full of ties: the device's sums can keep another of two equal candidates than
// the host's, so the device search is judged by the budget and its preconditioner's quality.
TEST(IluThresholdCuda, PoissonWithTiesKeepsTheBudgetAndTheQuality)
{
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A = matrix::poisson3d<double, int32>(test::reference(), 14);
    const auto f = factor(cuda, A, {.kind = IluKind::parilut, .fill_limit = 2.0});
    EXPECT_LE(f.L.nnz() + f.U.nnz() - A.rows(), 2.0 * A.nnz());
    EXPECT_TRUE(diagonal_in_every_row(f.L, true));
    EXPECT_TRUE(diagonal_in_every_row(f.U, false));
    const auto on = [&](const std::shared_ptr<const Executor>& exec) {
        return gmres_iterations(exec, A,
                                precond::Ilu<double>::build()
                                    .with_kind(IluKind::parilut)
                                    .with_fill_limit(2.0)
                                    .on(exec));
    };
    const auto expected = static_cast<double>(on(test::reference()));
    EXPECT_NEAR(static_cast<double>(on(cuda)), expected, std::max(3.0, 0.1 * expected));
}

}  // namespace

#endif
