// GMRES's run-ahead Arnoldi steps (solver/run_ahead.hpp): blas::normalize forms the new
// basis vector on the executor; a space that runs blocks of steps ahead of the host gives
// bit for bit the iterates, histories and results of checking every step for GMRES, FGMRES
// and CB-GMRES, also where a column converges, breaks down or a cycle ends inside a block;
// OpenMP (and CUDA, on a device machine) take the reference's iteration counts.
#include <cmath>
#include <limits>
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
using test::Run;

TEST(Normalize, ScalesByTheInverseNormOrZero)
{
    const auto ref = test::reference();
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<V> squares{4, 0, -1, inf, nan, 2};
    for (const auto& exec : test::backends()) {
        for (const size_type rows : {0, 1, 50, 3000}) {
            SCOPED_TRACE(exec->name() + ", " + std::to_string(rows) + " rows");
            const auto x0 = test::random_dense<V>(ref, {rows, 6}, 3).to_host();
            Dense x = Dense::from_host(exec, {rows, 6}, x0);
            blas::normalize(Dense::from_host(exec, {1, 6}, squares), x);
            const auto got = x.to_host();
            const std::vector<V> inverse{0.5, 0, 0, 0, 0, 1 / std::sqrt(2.0)};
            for (size_type i = 0; i < rows; ++i) {
                for (size_type j = 0; j < 6; ++j) {
                    EXPECT_EQ(got[i * 6 + j], x0[i * 6 + j] * inverse[j]) << i << ", " << j;
                }
            }
        }
    }
}

TEST(Normalize, BadInputRaisesAndLeavesDataUntouched)
{
    const auto ref = test::reference();
    auto x = test::random_dense<V>(ref, {5, 3}, 1);
    const auto before = x.to_host();
    EXPECT_THROW(blas::normalize(Dense::from_host(ref, {1, 2}, {1.0, 1.0}), x), DimensionMismatch);
    EXPECT_EQ(x.to_host(), before);
}

enum class Kind { gmres, fgmres, cb_gmres };

std::string name_of(Kind kind)
{
    return kind == Kind::gmres ? "gmres" : kind == Kind::fgmres ? "fgmres" : "cb-gmres";
}

Run solve(Kind kind, size_type m, solver::Orthogonalization method,
          std::shared_ptr<const LinOp<V>> A, std::shared_ptr<const LinOp<V>> M,
          std::shared_ptr<const stop::Criterion> criteria, const Dense& b, const Dense& x0)
{
    std::shared_ptr<solver::IterativeSolver<V>> s;
    auto configure = [&](auto builder) {
        return builder.with_criteria(criteria)
            .with_preconditioner(M)
            .with_krylov_dim(m)
            .with_orthogonalization(method)
            .on(b.executor())
            ->generate(A);
    };
    if (kind == Kind::gmres) s = configure(solver::Gmres<V>::build());
    if (kind == Kind::fgmres) s = configure(solver::Fgmres<V>::build());
    if (kind == Kind::cb_gmres) s = configure(solver::CbGmres<V>::build());
    return test::run(*s, b, x0);
}

test::Solve gmres(Kind kind, size_type m, solver::Orthogonalization method)
{
    return [=](auto A, auto M, auto criteria, const Dense& b, const Dense& x0) {
        return solve(kind, m, method, A, M, criteria, b, x0);
    };
}

TEST(RunAheadGmres, GivesTheIteratesOfCheckingEveryStep)
{
    const auto ref = test::reference();
    const auto csr = test::grid_matrix<V>(ref, 8, 0.3);
    const auto n = csr->size().rows;
    auto b = test::staggered_rhs(ref, n);
    auto x0 = test::random_dense<V>(ref, {n, 3}, 8);
    const std::shared_ptr<const stop::Criterion> criteria[] = {
        stop::max_iterations(150) | stop::relative_residual(1e-10),
        stop::max_iterations(45),
        // Not decided on the executor: the host looks at every step.
        stop::time_limit(std::chrono::hours(1)) | stop::relative_residual(1e-8),
    };
    for (const auto kind : {Kind::gmres, Kind::fgmres, Kind::cb_gmres}) {
        for (const auto method :
             {solver::Orthogonalization::modified, solver::Orthogonalization::classical}) {
            // A cycle shorter than a block and one longer.
            for (const size_type m : {6, 40}) {
                const bool jacobi = m == 6;
                const std::shared_ptr<const LinOp<V>> M =
                    jacobi ? test::inverse_diagonal(*csr) : nullptr;
                for (const auto& c : criteria) {
                    for (const size_type k : {1, 3}) {
                        SCOPED_TRACE(name_of(kind) + ", " + solver::to_string(method) + ", m " +
                                     std::to_string(m) + ", " + c->description() + ", " +
                                     std::to_string(k) + " rhs");
                        test::expect_ahead_as_plain(gmres(kind, m, method), csr, M, c, b, x0, k);
                    }
                }
            }
        }
    }
}

TEST(RunAheadGmres, TheSolutionInsideABlockAsCheckingEveryStep)
{
    // Three distinct eigenvalues: the Krylov space holds the solution after three steps
    // (||w|| = 0 but for rounding), inside the first block of 32; the steps after it work
    // on a residual of rounding errors.
    const auto ref = test::reference();
    const size_type n = 12;
    std::vector<int32> ptrs{0}, cols;
    std::vector<V> vals;
    for (size_type i = 0; i < n; ++i) {
        cols.push_back(static_cast<int32>(i));
        vals.push_back(V(1 + i % 3));
        ptrs.push_back(static_cast<int32>(cols.size()));
    }
    const auto A =
        std::make_shared<matrix::Csr<V>>(matrix::Csr<V>::from_host(ref, {n, n}, ptrs, cols, vals));
    auto b = test::random_dense<V>(ref, {n, 2}, 4);
    auto x0 = Dense(ref, {n, 2});
    x0.fill(V{0});
    const auto criteria = stop::max_iterations(40);
    for (const size_type k : {1, 2}) {
        const auto plain =
            test::expect_ahead_as_plain(gmres(Kind::gmres, 20, solver::Orthogonalization::modified),
                                        A, nullptr, criteria, b, x0, k);
        ASSERT_GT(plain.history.size(), 3u);
        for (size_type j = 0; j < k; ++j) {
            EXPECT_LT(plain.history[3][j], 1e-12 * plain.history[0][j]) << j;
            EXPECT_GT(plain.history[2][j], 1e-6 * plain.history[0][j]) << j;
        }
    }
}

/// exec's GMRES takes the reference's iterations per column on the same system.
void expect_reference_iterations(std::shared_ptr<const Executor> exec,
                                 solver::Orthogonalization method)
{
    SCOPED_TRACE(solver::to_string(method));
    test::expect_reference_iterations(exec, test::grid_matrix<V>(test::reference(), 16, 0.3),
                                      gmres(Kind::gmres, 30, method));
}

TEST(RunAheadGmres, OmpTakesTheReferenceIterations)
{
    if (!OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    for (const auto method :
         {solver::Orthogonalization::modified, solver::Orthogonalization::classical}) {
        expect_reference_iterations(OmpExecutor::create(), method);
        expect_reference_iterations(OmpExecutor::create(3), method);
    }
}

TEST(RunAheadGmres, CudaTakesTheReferenceIterations)
{
    LOOM_CUDA_OR_SKIP(cuda);
    for (const auto method :
         {solver::Orthogonalization::modified, solver::Orthogonalization::classical}) {
        expect_reference_iterations(cuda, method);
    }
}

}  // namespace
