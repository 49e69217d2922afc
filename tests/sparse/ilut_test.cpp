// ILUT(p, tau) (IluKind::ilut): exact small cases (the count and the tolerance rules, a
// replaced zero pivot), a dense ILUT written out here on a random matrix, the same factors on
// every executor, numeric reuse, bad input, and a real matrix ILU(0) cannot precondition.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/io.hpp"
#include "loom/precond/ilu.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/sparse/ilu.hpp"
#include "support/executors.hpp"
#include "support/shared_matrices.hpp"

namespace {

using namespace loom;
using Csr = matrix::Csr<double, int32>;
using Dense = std::vector<std::vector<double>>;
using sparse::IluKind;

Csr from_dense(const std::shared_ptr<const Executor>& exec, const Dense& a)
{
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> values;
    for (const auto& row : a) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (row[c] == 0) continue;
            cols.push_back(static_cast<int32>(c));
            values.push_back(row[c]);
        }
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    const auto n = static_cast<size_type>(a.size());
    return Csr::from_host(exec, dim2{n, n}, ptrs, cols, values);
}

Dense to_dense(const Csr& m)
{
    const auto ptrs = m.row_ptrs().to_host();
    const auto cols = m.col_idxs().to_host();
    const auto vals = m.values().to_host();
    Dense d(m.rows(), std::vector<double>(m.cols()));
    for (size_type r = 0; r < m.rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) d[r][cols[k]] += vals[k];
    }
    return d;
}

struct Factors {
    Csr L, U;
    size_type replaced = 0;
};

Factors ilut(const Csr& A, double fill_limit, double drop_tolerance)
{
    sparse::IluHandle<double> handle({.kind = IluKind::ilut, .fill_limit = fill_limit,
                                      .drop_tolerance = drop_tolerance});
    Factors f;
    sparse::ilu_symbolic(handle, A, f.L, f.U);
    sparse::ilu_numeric(handle, A, f.L, f.U);
    f.replaced = handle.replaced_pivots();
    EXPECT_EQ(handle.levels(), 0);
    return f;
}

void expect_dense_near(const Dense& got, const Dense& want, double tolerance = 1e-13)
{
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t r = 0; r < got.size(); ++r) {
        for (std::size_t c = 0; c < got.size(); ++c) {
            EXPECT_NEAR(got[r][c], want[r][c], tolerance) << "(" << r << ", " << c << ")";
        }
    }
}

/// ILUT written out on dense rows: an entry is present when it is not zero.
std::pair<Dense, Dense> dense_ilut(const Dense& a, std::size_t p, double tau)
{
    const auto n = a.size();
    Dense L(n, std::vector<double>(n)), U(n, std::vector<double>(n));
    const auto keep_largest = [&](std::vector<double>& w, std::size_t begin, std::size_t end,
                                  double drop) {
        std::vector<std::size_t> cols;
        for (auto j = begin; j < end; ++j) {
            if (w[j] != 0 && std::abs(w[j]) >= drop) cols.push_back(j);
        }
        std::stable_sort(cols.begin(), cols.end(),
                         [&](auto x, auto y) { return std::abs(w[x]) > std::abs(w[y]); });
        std::vector<double> kept(n);
        for (std::size_t q = 0; q < std::min(p, cols.size()); ++q) kept[cols[q]] = w[cols[q]];
        for (auto j = begin; j < end; ++j) w[j] = kept[j];
    };
    for (std::size_t i = 0; i < n; ++i) {
        auto w = a[i];
        double norm = 0, largest = 0;
        for (const double v : a[i]) {
            norm += v * v;
            largest = std::max(largest, std::abs(v));
        }
        norm = std::sqrt(norm);
        for (std::size_t k = 0; k < i; ++k) {
            if (w[k] == 0) continue;
            w[k] /= U[k][k];
            if (std::abs(w[k]) < tau * norm) {
                w[k] = 0;
                continue;
            }
            for (auto j = k + 1; j < n; ++j) w[j] -= w[k] * U[k][j];
        }
        keep_largest(w, 0, i, 0);
        keep_largest(w, i + 1, n, tau * norm);
        if (std::abs(w[i]) <= std::numeric_limits<double>::epsilon() * largest) {
            w[i] = std::sqrt(std::max(tau, 1e-12)) * norm;
        }
        for (std::size_t j = 0; j < i; ++j) L[i][j] = w[j];
        L[i][i] = 1;
        for (auto j = i; j < n; ++j) U[i][j] = w[j];
    }
    return {L, U};
}

TEST(Ilut, KeepsThePLargestOfEachRowWithTheirExactValues)
{
    // p = ceil(0.5 * 7 / 6) = 1. Row 0 keeps u_01 (a tie with u_02: the smaller column);
    // row 2 eliminates by rows 0 and 1 (the fill (2, 1) = -0.5 / 1.5) and keeps l_20 only.
    const auto A = from_dense(test::reference(), {{2, 1, 1}, {1, 2, 0}, {1, 0, 2}});
    const auto f = ilut(A, 0.5, 0.0);
    expect_dense_near(to_dense(f.L), {{1, 0, 0}, {0.5, 1, 0}, {0.5, 0, 1}});
    expect_dense_near(to_dense(f.U), {{2, 1, 0}, {0, 1.5, 0}, {0, 0, 2}});
    EXPECT_EQ(f.L.nnz(), 5);
    EXPECT_EQ(f.U.nnz(), 4);
    EXPECT_EQ(f.replaced, 0);
}

TEST(Ilut, DropsMultipliersBelowTheToleranceBeforeUsingThem)
{
    // tau ||a_1|| = 0.3 sqrt(5) = 0.67 > l_10 = 0.5: rows 1 and 2 are not eliminated at all.
    const auto A = from_dense(test::reference(), {{2, 1, 1}, {1, 2, 0}, {1, 0, 2}});
    const auto f = ilut(A, 10.0, 0.3);
    expect_dense_near(to_dense(f.L), {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
    expect_dense_near(to_dense(f.U), {{2, 1, 1}, {0, 2, 0}, {0, 0, 2}});
}

TEST(Ilut, WithoutDroppingIsTheExactLu)
{
    const Dense a{{4, -1, 0, 2}, {1, 5, -2, 0}, {0, 3, 6, 1}, {2, 0, -1, 7}};
    const auto f = ilut(from_dense(test::reference(), a), 10.0, 0.0);
    const auto L = to_dense(f.L);
    const auto U = to_dense(f.U);
    Dense product(4, std::vector<double>(4));
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
            for (int k = 0; k < 4; ++k) product[i][j] += L[i][k] * U[k][j];
        }
    }
    expect_dense_near(product, a, 1e-12);
}

TEST(Ilut, ReplacesAZeroPivotAsEigenDoesAndSaysSo)
{
    // u_00 = 0 becomes sqrt(1e-12) ||a_0|| = 1e-6; then l_10 = 1e6 and u_11 = -1e6.
    const auto A = from_dense(test::reference(), {{0, 1}, {1, 0}});
    const auto f = ilut(A, 10.0, 0.0);
    EXPECT_EQ(f.replaced, 1);
    expect_dense_near(to_dense(f.L), {{1, 0}, {1e6, 1}}, 1e-6);
    expect_dense_near(to_dense(f.U), {{1e-6, 1}, {0, -1e6}}, 1e-6);
}

TEST(Ilut, MatchesADenseIlutOnARandomMatrixOnEveryExecutor)
{
    const std::size_t n = 40;
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> value(-1, 1);
    std::uniform_int_distribution<std::size_t> col(0, n - 1);
    Dense a(n, std::vector<double>(n));
    for (std::size_t r = 0; r < n; ++r) {
        for (int k = 0; k < 5; ++k) a[r][col(rng)] = value(rng);
        if (r % 7 != 3) a[r][r] = 2 + value(rng);  // some rows without a diagonal entry
    }
    // p = ceil(1.2 nnz / 2n) = 3 or 4: drops by count and by tolerance.
    const auto A = from_dense(test::reference(), a);
    const double fill_limit = 1.2;
    const auto p = static_cast<std::size_t>(std::ceil(fill_limit * A.nnz() / (2.0 * n)));
    const auto [L, U] = dense_ilut(a, p, 0.05);
    for (const auto& exec : test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto f = ilut(Csr(exec, A), fill_limit, 0.05);
        EXPECT_GT(f.replaced, 0);
        expect_dense_near(to_dense(Csr(test::reference(), f.L)), L, 1e-12);
        expect_dense_near(to_dense(Csr(test::reference(), f.U)), U, 1e-12);
    }
}

TEST(Ilut, NumericPhaseWithNewValuesKeepsThePatternAndItsDecisions)
{
    // Doubling A doubles U and keeps L: the decisions are relative to the rows' norms, so a
    // new symbolic phase of 2 A finds the same pattern and the same numbers.
    const auto A = from_dense(test::reference(),
                              {{4, 1, 0, 1}, {1, 4, 1, 0}, {0, 1, 4, 1}, {1, 0, 1, 4}});
    sparse::IluHandle<double> handle({.kind = IluKind::ilut, .fill_limit = 1.0});
    Csr L, U;
    sparse::ilu_symbolic(handle, A, L, U);
    const auto twice = [](Csr m) {
        auto values = m.values().to_host();
        for (auto& v : values) v *= 2;
        m.values() = Array<double>(m.executor(), values);
        return m;
    };
    const auto doubled = twice(A);
    sparse::ilu_numeric(handle, doubled, L, U);
    const auto fresh = ilut(doubled, 1.0, 0.0);
    expect_dense_near(to_dense(L), to_dense(fresh.L));
    expect_dense_near(to_dense(U), to_dense(fresh.U));
    EXPECT_EQ(L.nnz(), fresh.L.nnz());
}

TEST(Ilut, BadInputIsAClearErrorAndLeavesTheFactorsUntouched)
{
    const auto ref = test::reference();
    sparse::IluHandle<double> handle({.kind = IluKind::ilut});
    Csr L, U;
    const auto rect = Csr::from_host(ref, dim2{2, 3}, {0, 1, 2}, {0, 1}, {1.0, 1.0});
    EXPECT_THROW(sparse::ilu_symbolic(handle, rect, L, U), DimensionMismatch);
    EXPECT_FALSE(handle.analyzed());

    const auto A = from_dense(ref, {{2, 1}, {1, 2}});
    sparse::ilu_symbolic(handle, A, L, U);
    sparse::ilu_numeric(handle, A, L, U);
    const auto l_before = L.values().to_host();
    const auto u_before = U.values().to_host();
    auto broken = A;
    auto values = broken.values().to_host();
    values[3] = std::numeric_limits<double>::infinity();  // a_11: row 1's pivot
    broken.values() = Array<double>(ref, values);
    try {
        sparse::ilu_numeric(handle, broken, L, U);
        FAIL() << "an infinite pivot was accepted";
    } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
    }
    EXPECT_EQ(L.values().to_host(), l_before);
    EXPECT_EQ(U.values().to_host(), u_before);
    sparse::IluHandle<double> no_fill({.kind = IluKind::ilut, .fill_limit = 0});
    EXPECT_THROW(sparse::ilu_symbolic(no_fill, A, L, U), BadInput);
    EXPECT_EQ(L.values().to_host(), l_before);
}

TEST(Ilut, IsTheKindNamedIlutAndParilutKeepsItsName)
{
    EXPECT_EQ(sparse::parse_ilu_kind("ilut"), IluKind::ilut);
    EXPECT_EQ(sparse::parse_ilu_kind("parilut"), IluKind::parilut);
    EXPECT_STREQ(sparse::to_string(IluKind::ilut), "ilut");
    EXPECT_FALSE(sparse::is_cholesky(IluKind::ilut));
}

TEST(Ilut, PreconditionsBicgstabOnRdb968WhereIlu0Stalls)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRIX("rdb968");
    const auto exec = test::reference();
    const auto A = std::make_shared<const Csr>(
        matrix::read_csr<double, int32>(exec, test::shared_matrix_path("rdb968")));
    const auto solver = solver::Bicgstab<double>::build()
                            .with_criteria(stop::max_iterations(300) | stop::relative_residual(1e-8))
                            .with_preconditioner(
                                precond::Ilu<double>::build().with_kind(IluKind::ilut).on(exec))
                            .on(exec)
                            ->generate(A);
    matrix::Dense<double> b(exec, {A->rows(), 1});
    b.fill(1.0);
    matrix::Dense<double> x(exec, {A->rows(), 1});
    x.fill(0.0);
    solver->apply(b, x);
    EXPECT_TRUE(solver->result().converged()) << solver->result().iterations << " iterations";
}

}  // namespace
