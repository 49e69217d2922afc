// One OpenMP thread runs the IKJ factorization and SpTRSV in row order (no level schedule) and
// ends a factorization at its first bad pivot; ILU(0) of a matrix with sorted rows and every
// diagonal entry takes A's own pattern. The tests' OpenMP executor has the default threads,
// so these paths are checked here: the reference's factors and solutions, the same bad row.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/sparse/ilu.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "support/executors.hpp"

namespace {

using namespace loom;
using Csr = matrix::Csr<double, int32>;
using sparse::IluKind;

std::shared_ptr<const Executor> one_thread()
{
    return OmpExecutor::available() ? OmpExecutor::create(1) : nullptr;
}

/// n rows of `per_row` random entries and a diagonal `diagonal` times their sum, columns in
/// increasing order (`descending`: decreasing); `skip_diagonal_of` leaves that diagonal out.
Csr random_matrix(size_type n, int per_row, double diagonal, int32 skip_diagonal_of = -1,
                  bool descending = false)
{
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> value(-1, 1);
    std::uniform_int_distribution<int32> col(0, static_cast<int32>(n) - 1);
    std::vector<int32> ptrs{0}, cols;
    std::vector<double> vals;
    for (int32 r = 0; r < static_cast<int32>(n); ++r) {
        std::vector<double> row(n);
        double sum = 0;
        for (int k = 0; k < per_row; ++k) {
            const auto c = col(rng);
            row[c] = value(rng);
            sum += std::abs(row[c]);
        }
        row[r] = r == skip_diagonal_of ? 0 : diagonal * (sum + 1);
        for (int32 k = 0; k < static_cast<int32>(n); ++k) {
            const int32 c = descending ? static_cast<int32>(n) - 1 - k : k;
            if (row[c] == 0) continue;
            cols.push_back(c);
            vals.push_back(row[c]);
        }
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    return Csr::from_host(test::reference(), dim2{n, n}, ptrs, cols, vals);
}

struct Factors {
    Csr L, U;
    double shift = 0;
};

Factors factor(const Csr& A, const std::shared_ptr<const Executor>& exec, IluKind kind)
{
    sparse::IluHandle<double> handle({.kind = kind});
    Factors f;
    const Csr on_exec(exec, A);
    sparse::ilu_symbolic(handle, on_exec, f.L, f.U);
    sparse::ilu_numeric(handle, on_exec, f.L, f.U);
    f.shift = handle.shift();
    return f;
}

void expect_same_matrix(const Csr& got, const Csr& want)
{
    ASSERT_EQ(got.row_ptrs().to_host(), want.row_ptrs().to_host());
    ASSERT_EQ(got.col_idxs().to_host(), want.col_idxs().to_host());
    const auto g = got.values().to_host();
    const auto w = want.values().to_host();
    for (std::size_t k = 0; k < g.size(); ++k) {
        EXPECT_NEAR(g[k], w[k], 1e-13 * (1 + std::abs(w[k]))) << "entry " << k;
    }
}

TEST(IluOneThread, FactorsAreTheReferencesForShortAndLongRows)
{
    const auto exec = one_thread();
    if (!exec) GTEST_SKIP() << "no OpenMP";
    // Short rows (the merge walk), long rows (the dense work row), unsorted rows (not A's own
    // pattern: the executor's analysis).
    for (const auto& A : {matrix::poisson2d<double, int32>(test::reference(), 12),
                          random_matrix(60, 30, 1.0), random_matrix(60, 4, 1.0, -1, true)}) {
        for (const auto kind : {IluKind::ilu0, IluKind::iluk, IluKind::ic0}) {
            SCOPED_TRACE(sparse::to_string(kind));
            const auto want = factor(A, test::reference(), kind);
            const auto got = factor(A, exec, kind);
            expect_same_matrix(Csr(test::reference(), got.L), want.L);
            if (!sparse::is_cholesky(kind)) {
                expect_same_matrix(Csr(test::reference(), got.U), want.U);
            }
        }
    }
}

TEST(IluOneThread, TheFirstBadPivotEndsATryWithTheReferencesRowAndShift)
{
    const auto exec = one_thread();
    if (!exec) GTEST_SKIP() << "no OpenMP";
    // A weak diagonal: IC(0) needs shifts (each try ends at its first bad pivot), ILU(0)
    // without shifting names the reference's row.
    const auto A = random_matrix(50, 6, 0.05);
    const auto want = factor(A, test::reference(), IluKind::ic0);
    const auto got = factor(A, exec, IluKind::ic0);
    EXPECT_GT(want.shift, 0);
    EXPECT_EQ(got.shift, want.shift);
    expect_same_matrix(Csr(test::reference(), got.L), want.L);

    const auto singular = random_matrix(30, 3, 1.0, 11);  // a zero pivot in row 11
    const auto error = [&](const std::shared_ptr<const Executor>& executor) {
        try {
            factor(singular, executor, IluKind::ilu0);
        } catch (const NumericalError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const auto reference_error = error(test::reference());
    const auto one_thread_error = error(exec);
    EXPECT_NE(reference_error.find("row 11"), std::string::npos) << reference_error;
    EXPECT_EQ(one_thread_error, reference_error);
}

TEST(IluOneThread, TriangularSolvesAreTheReferences)
{
    const auto exec = one_thread();
    if (!exec) GTEST_SKIP() << "no OpenMP";
    const auto f = factor(random_matrix(80, 5, 1.0), test::reference(), IluKind::ilu0);
    std::vector<double> b_values(80 * 2);
    for (std::size_t k = 0; k < b_values.size(); ++k) b_values[k] = std::sin(1.0 + k);
    for (const bool upper : {false, true}) {
        for (const auto op : {blas::Op::none, blas::Op::transpose}) {
            for (const size_type columns : {1, 2}) {
                SCOPED_TRACE(std::string(upper ? "U" : "L") + " op " +
                             std::to_string(static_cast<int>(op)) + ", " +
                             std::to_string(columns) + " columns");
                const sparse::SptrsvOptions options{
                    .uplo = upper ? blas::Uplo::upper : blas::Uplo::lower,
                    .diag = upper ? blas::Diag::non_unit : blas::Diag::unit,
                    .op = op};
                const auto& T = upper ? f.U : f.L;
                const std::vector<double> b_host(b_values.begin(),
                                                 b_values.begin() + 80 * columns);
                std::vector<std::vector<double>> answers;
                for (const auto& executor : {test::reference(), exec}) {
                    const auto b = matrix::Dense<double>::from_host(executor, dim2{80, columns},
                                                                    b_host);
                    matrix::Dense<double> x(executor, dim2{80, columns});
                    sparse::sptrsv(Csr(executor, T), b, x, options);
                    answers.push_back(x.to_host());
                }
                for (std::size_t k = 0; k < answers[0].size(); ++k) {
                    EXPECT_NEAR(answers[1][k], answers[0][k], 1e-12 * (1 + std::abs(answers[0][k])));
                }
            }
        }
    }
}

}  // namespace
