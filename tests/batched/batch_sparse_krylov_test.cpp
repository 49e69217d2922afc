// Batched Krylov solves: every method, preconditioner and side on every executor, each system's
// true residual checked with the reference SpMV; per-system convergence at very different
// iteration counts; breakdowns reported per system; 100 000 tiny systems; the handle reused;
// the team-level routines in a user's kernel; bad input.
#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "batched/batch_sparse_support.hpp"
#include "loom/base/error.hpp"
#include "loom/batched/sparse/krylov.hpp"
#include "loom/batched/sparse/spmv.hpp"
#include "loom/launch/team.hpp"
#include "support/types.hpp"

namespace {

using loom::dim2;
using loom::size_type;
namespace matrix = loom::matrix;
namespace batched = loom::batched;
using batched::BatchPrecond;
using batched::KrylovMethod;
using batched::KrylovStatus;
using namespace loom::test::bsparse;

template <typename VI>
class BatchSparseKrylov : public ::testing::Test {};
TYPED_TEST_SUITE(BatchSparseKrylov, loom::test::ValueIndexTypes);

template <typename V>
double solve_tolerance()
{
    return std::max(1e-10, loom::test::tolerance<V>());
}

template <typename V>
constexpr bool is_single = std::is_same_v<loom::remove_complex_t<V>, float>;

/// The relative tolerance the solves ask for: what the value type can reach.
template <typename V>
double solver_rtol()
{
    return is_single<V> ? 1e-5 : 1e-10;
}

/// ||b - A x|| / ||b|| of one system by the reference SpMV.
template <typename V, typename I>
double relative_residual(const matrix::Csr<V, I>& A, const std::vector<V>& b, const std::vector<V>& x)
{
    const auto r = reference_spmv(A, V(-1), x, V(1), b);
    double rn = 0, bn = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        rn += std::norm(std::complex<double>(r[i]));
        bn += std::norm(std::complex<double>(b[i]));
    }
    return bn == 0 ? std::sqrt(rn) : std::sqrt(rn / bn);
}

/// Nonsymmetric diagonally dominant matrices of varied sizes and patterns (empty off-diagonal
/// rows included), for the methods that need no symmetry.
template <typename V, typename I>
std::vector<matrix::Csr<V, I>> nonsymmetric_matrices(std::shared_ptr<const loom::Executor> exec)
{
    std::vector<matrix::Csr<V, I>> list;
    std::uint64_t seed = 40;
    for (const size_type n : {0, 1, 2, 17, 33, 64, 100}) {
        const auto R = loom::test::random_csr<V, I>(loom::test::reference(), {n, n, 3, false, true, false, seed++});
        auto ptrs = R.row_ptrs().to_host();
        auto cols = R.col_idxs().to_host();
        auto values = R.values().to_host();
        // Add a diagonal larger than the row's off-diagonal sum (diagonal entries dropped first).
        std::vector<I> out_ptrs{0};
        std::vector<I> out_cols;
        std::vector<V> out_values;
        for (size_type r = 0; r < n; ++r) {
            double sum = 0;
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                if (cols[k] == r) continue;
                out_cols.push_back(cols[k]);
                out_values.push_back(values[k]);
                sum += std::abs(std::complex<double>(values[k]));
            }
            out_cols.push_back(static_cast<I>(r));
            out_values.push_back(V(2 * sum + 1 + r % 5));
            out_ptrs.push_back(static_cast<I>(out_cols.size()));
        }
        list.push_back(matrix::Csr<V, I>::from_host(exec, {n, n}, out_ptrs, out_cols, out_values));
    }
    return list;
}

struct Setup {
    KrylovMethod method;
    BatchPrecond precond;
    bool right;
    bool modified_gs;
};

TYPED_TEST(BatchSparseKrylov, EveryMethodPreconditionerAndSideOnAHeterogeneousBatch)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    const auto list = nonsymmetric_matrices<V, I>(ref);
    std::vector<Setup> setups;
    for (auto precond : {BatchPrecond::none, BatchPrecond::jacobi, BatchPrecond::block_jacobi}) {
        for (bool right : {false, true}) {
            setups.push_back({KrylovMethod::bicgstab, precond, right, true});
            setups.push_back({KrylovMethod::gmres, precond, right, true});
            setups.push_back({KrylovMethod::gmres, precond, right, false});
            if (precond != BatchPrecond::none) setups.push_back({KrylovMethod::richardson, precond, right, true});
        }
    }
    for (const auto& exec : all_executors()) {
        const matrix::HeteroBatch<V, I> A(exec, list, {matrix::BatchFormat::csr, matrix::BatchFormat::coo,
                                                       matrix::BatchFormat::ell, matrix::BatchFormat::hybrid,
                                                       matrix::BatchFormat::csr, matrix::BatchFormat::ell,
                                                       matrix::BatchFormat::hybrid});
        const auto bs = random_values<V>(A.total_rows(), 21);
        for (const auto& setup : setups) {
            batched::KrylovOptions options;
            options.method = setup.method;
            options.precond = setup.precond;
            options.right = setup.right;
            options.modified_gs = setup.modified_gs;
            options.restart = 8;  // restarts happen on the larger systems
            options.block_size = 3;
            options.rtol = is_single<V> ? 1e-5 : 1e-11;
            options.max_iterations = 500;
            batched::KrylovHandle<V> handle(exec, options);
            const loom::Array<V> b(exec, bs);
            loom::Array<V> x(exec, std::vector<V>(bs.size(), V(0)));
            batched::solve(handle, A, b, x);
            const auto xs = x.to_host();
            const auto statuses = handle.statuses();
            const auto residuals = handle.residuals();
            const std::string what = exec->name() + std::string(" ") + names_of(setup.method).to_string(setup.method) +
                                     " " + names_of(setup.precond).to_string(setup.precond) +
                                     (setup.right ? " right" : " left") + (setup.modified_gs ? "" : " cgs");
            ASSERT_EQ(handle.batch_count(), A.batch_count());
            for (size_type e = 0; e < A.batch_count(); ++e) {
                const auto& L = A.layout(e);
                ASSERT_EQ(statuses[e], KrylovStatus::converged) << what << " batch entry " << e;
                const std::vector<V> be(bs.begin() + L.y_offset, bs.begin() + L.y_offset + L.rows);
                const std::vector<V> xe(xs.begin() + L.x_offset, xs.begin() + L.x_offset + L.cols);
                // Left preconditioning stops on M^-1 r: allow the preconditioner's scaling.
                EXPECT_LE(relative_residual(list[e], be, xe), 100 * options.rtol)
                    << what << " batch entry " << e;
                double bn = 0;
                for (const auto& v : be) bn += std::norm(std::complex<double>(v));
                EXPECT_NEAR(residuals[e], relative_residual(list[e], be, xe) * std::sqrt(bn),
                            (is_single<V> ? 1e-4 : 1e-8) * (1 + std::sqrt(bn)))
                    << what << " batch entry " << e;
            }
        }
    }
}

TYPED_TEST(BatchSparseKrylov, CgJacobiOnPoissonBlocksConvergesPerSystem)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    constexpr size_type count = 12;
    const auto host = matrix::poisson_batch<V, I>(ref, count, 4, 4, 3, 7);
    const auto bs = random_values<V>(count * host.rows(), 8);
    std::vector<std::vector<int>> iterations;
    for (const auto& exec : all_executors()) {
        for (const bool ell : {false, true}) {
            const matrix::BatchCsr<V, I> A(exec, host.batch_count(), host.size(),
                                           loom::Array<I>(exec, host.row_ptrs()),
                                           loom::Array<I>(exec, host.col_idxs()),
                                           loom::Array<V>(exec, host.values()));
            batched::KrylovHandle<V> handle(exec, {.method = KrylovMethod::cg, .precond = BatchPrecond::jacobi,
                                                   .rtol = solver_rtol<V>()});
            const auto b = matrix::BatchDense<V>::from_host(exec, count, {host.rows(), 1}, bs);
            matrix::BatchDense<V> x(exec, count, {host.rows(), 1});
            x.fill(V(0));
            if (ell) {
                batched::solve(handle, matrix::BatchEll<V, I>(A), b, x);
            } else {
                batched::solve(handle, A, b, x);
            }
            const auto xs = x.to_host();
            const auto statuses = handle.statuses();
            for (size_type e = 0; e < count; ++e) {
                ASSERT_EQ(statuses[e], KrylovStatus::converged) << exec->name() << " " << e;
                const size_type n = host.rows();
                EXPECT_LE(relative_residual(host.item(e), std::vector<V>(bs.begin() + e * n, bs.begin() + (e + 1) * n),
                                            std::vector<V>(xs.begin() + e * n, xs.begin() + (e + 1) * n)),
                          10 * solve_tolerance<V>());
            }
            iterations.push_back(handle.iterations());
        }
    }
    // Every executor iterates alike (up to rounding: within a few iterations).
    for (const auto& its : iterations) {
        for (size_type e = 0; e < count; ++e) {
            EXPECT_LE(std::abs(its[e] - iterations[0][e]), is_single<V> ? 5 : 2) << e;
        }
    }
}

TYPED_TEST(BatchSparseKrylov, SystemsConvergeAtVeryDifferentIterations)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    // A diagonal system (one iteration with Jacobi), a Poisson block, a badly scaled one.
    const auto poisson = matrix::poisson_batch<V, I>(ref, 1, 6, 6, 6, 3).item(0);
    const size_type n = poisson.rows();
    std::vector<I> ptrs(n + 1), cols(n);
    std::vector<V> diag(n);
    for (size_type i = 0; i < n; ++i) {
        ptrs[i + 1] = static_cast<I>(i + 1);
        cols[i] = static_cast<I>(i);
        diag[i] = V(1 + i % 9);
    }
    const auto D = matrix::Csr<V, I>::from_host(ref, {n, n}, ptrs, cols, diag);
    auto shifted_values = poisson.values().to_host();
    for (auto& v : shifted_values) v *= V(1e3);
    const matrix::Csr<V, I> P2(ref, {n, n}, loom::Array<I>(ref, poisson.row_ptrs()),
                               loom::Array<I>(ref, poisson.col_idxs()), loom::Array<V>(ref, shifted_values));
    const std::vector<matrix::Csr<V, I>> list{D, poisson, P2};
    for (const auto& exec : all_executors()) {
        const matrix::HeteroBatch<V, I> A(exec, list);
        batched::KrylovHandle<V> handle(
            exec, {.method = KrylovMethod::cg, .precond = BatchPrecond::jacobi, .rtol = solver_rtol<V>()});
        const loom::Array<V> b(exec, std::vector<V>(3 * n, V(1)));
        loom::Array<V> x(exec, std::vector<V>(3 * n, V(0)));
        batched::solve(handle, A, b, x);
        const auto its = handle.iterations();
        for (auto status : handle.statuses()) EXPECT_EQ(status, KrylovStatus::converged);
        EXPECT_EQ(its[0], 1) << exec->name();
        EXPECT_GT(its[1], 10) << exec->name();
    }
}

TYPED_TEST(BatchSparseKrylov, BreakdownsAreReportedPerSystem)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    // 0: indefinite diag(1, -1) for CG; 1: SPD; 2: a zero diagonal for Jacobi; 3: singular block.
    const std::vector<matrix::Csr<V, I>> list{
        matrix::Csr<V, I>::from_host(ref, {2, 2}, {0, 1, 2}, {0, 1}, {V(1), V(-1)}),
        matrix::Csr<V, I>::from_host(ref, {2, 2}, {0, 2, 4}, {0, 1, 0, 1}, {V(4), V(1), V(1), V(3)}),
        matrix::Csr<V, I>::from_host(ref, {2, 2}, {0, 1, 2}, {1, 0}, {V(1), V(1)}),
    };
    for (const auto& exec : all_executors()) {
        const matrix::HeteroBatch<V, I> A(exec, list);
        const std::vector<V> ones(6, V(1));
        for (auto precond : {BatchPrecond::none, BatchPrecond::jacobi}) {
            batched::KrylovHandle<V> handle(exec, {.method = KrylovMethod::cg, .precond = precond,
                                                   .rtol = solver_rtol<V>()});
            const loom::Array<V> b(exec, ones);
            loom::Array<V> x(exec, std::vector<V>(6, V(0)));
            ASSERT_NO_THROW(batched::solve(handle, A, b, x));
            const auto statuses = handle.statuses();
            EXPECT_EQ(statuses[0], KrylovStatus::breakdown) << exec->name();
            EXPECT_EQ(statuses[1], KrylovStatus::converged) << exec->name();
            if (precond == BatchPrecond::jacobi) {
                EXPECT_EQ(statuses[2], KrylovStatus::breakdown) << exec->name();
                // Jacobi's setup failed: that x is left as it came.
                EXPECT_EQ(x.to_host()[4], V(0));
            }
            EXPECT_EQ(handle.not_converged().front(), 0);
        }
        // Block Jacobi on a singular 2 x 2 block ([[0, 1], [0, 1]] style: entry 2 is fine).
        const auto S = matrix::Csr<V, I>::from_host(ref, {2, 2}, {0, 2, 4}, {0, 1, 0, 1},
                                                    {V(1), V(1), V(1), V(1)});
        const matrix::HeteroBatch<V, I> B(exec, {S, list[2]});
        batched::KrylovHandle<V> handle(exec, {.method = KrylovMethod::gmres,
                                               .precond = BatchPrecond::block_jacobi,
                                               .rtol = solver_rtol<V>(), .block_size = 2});
        const loom::Array<V> b(exec, std::vector<V>(4, V(1)));
        loom::Array<V> x(exec, std::vector<V>(4, V(0)));
        batched::solve(handle, B, b, x);
        EXPECT_EQ(handle.statuses()[0], KrylovStatus::breakdown) << exec->name();
        EXPECT_EQ(handle.statuses()[1], KrylovStatus::converged) << exec->name();
    }
}

TYPED_TEST(BatchSparseKrylov, RunsOutOfIterations)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto exec = loom::test::backends().front();
    const auto A = matrix::poisson_batch<V, I>(exec, 3, 5, 5, 5, 2);
    for (auto method : {KrylovMethod::cg, KrylovMethod::bicgstab, KrylovMethod::gmres, KrylovMethod::richardson}) {
        batched::KrylovHandle<V> handle(exec, {.method = method, .max_iterations = 2});
        const auto b = matrix::BatchDense<V>::from_host(exec, 3, {125, 1}, std::vector<V>(375, V(1)));
        matrix::BatchDense<V> x(exec, 3, {125, 1});
        x.fill(V(0));
        batched::solve(handle, A, b, x);
        for (size_type e = 0; e < 3; ++e) {
            EXPECT_EQ(handle.statuses()[e], KrylovStatus::max_iterations) << e;
            EXPECT_EQ(handle.iterations()[e], 2) << e;
        }
    }
}

TYPED_TEST(BatchSparseKrylov, HundredThousandTinySystemsAndAReusedHandle)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto exec = loom::test::backends().front();
    constexpr size_type count = 100000;
    // [[s + 2, 1], [1, 2]] x = (1, 1): SPD for s >= 0.
    std::vector<V> values;
    for (size_type b = 0; b < count; ++b) values.insert(values.end(), {V(b % 5 + 2), V(1), V(1), V(2)});
    const auto pattern = matrix::Csr<V, I>::from_host(exec, {2, 2}, {0, 2, 4}, {0, 1, 0, 1},
                                                      {V(1), V(0), V(0), V(1)});
    const auto A = matrix::BatchCsr<V, I>::with_values(exec, pattern, count, loom::Array<V>(exec, values));
    batched::KrylovHandle<V> handle(exec, {.precond = BatchPrecond::none, .rtol = solver_rtol<V>()});
    for (const size_type used : {count, size_type{10}}) {
        const auto sub = matrix::BatchCsr<V, I>::with_values(
            exec, pattern, used, loom::Array<V>(exec, std::vector<V>(values.begin(), values.begin() + 4 * used)));
        const auto b = matrix::BatchDense<V>::from_host(exec, used, {2, 1}, std::vector<V>(2 * used, V(1)));
        matrix::BatchDense<V> x(exec, used, {2, 1});
        x.fill(V(0));
        batched::solve(handle, used == count ? A : sub, b, x);
        ASSERT_EQ(handle.batch_count(), used);
        const auto xs = x.to_host();
        const auto iterations = handle.iterations();
        for (size_type e = 0; e < used; ++e) {
            const double s = e % 5 + 2;
            // (s x0 + x1, x0 + 2 x1) = (1, 1): x0 = 1 / (2 s - 1), x1 = (s - 1) / (2 s - 1).
            const double tol = 10 * solver_rtol<V>();
            ASSERT_NEAR(std::real(std::complex<double>(xs[2 * e])), 1 / (2 * s - 1), tol) << e;
            ASSERT_NEAR(std::real(std::complex<double>(xs[2 * e + 1])), (s - 1) / (2 * s - 1), tol) << e;
            ASSERT_LE(iterations[e], 2);
        }
    }
}

// 512-row systems (the benchmark's size: on CUDA a team of several warps, the state in shared
// memory) with CG, BiCGSTAB and GMRES and every preconditioner, GMRES(40), whose state does not fit the
// team's scratch and stays in the handle's workspace; 40-row systems run in small teams that
// share a CUDA block. Every executor against the reference SpMV.
TEST(BatchSparseKrylovSizes, EveryMethodAndPreconditionerOnSharedPatternBlocks)
{
    using V = double;
    using I = loom::int32;
    const auto ref = loom::test::reference();
    struct Shape {
        size_type nx, ny, nz, count;
    };
    for (const auto& [nx, ny, nz, count] : {Shape{8, 8, 8, 3}, Shape{4, 5, 2, 37}}) {
        const auto host = matrix::poisson_batch<V, I>(ref, count, nx, ny, nz, 9);
        const size_type n = host.rows();
        const auto bs = random_values<V>(count * n, 4);
        for (const auto& exec : all_executors()) {
            const matrix::BatchCsr<V, I> A(exec, count, host.size(), loom::Array<I>(exec, host.row_ptrs()),
                                           loom::Array<I>(exec, host.col_idxs()),
                                           loom::Array<V>(exec, host.values()));
            // (Richardson would take thousands of iterations on these blocks: the heterogeneous
            // test runs it on diagonally dominant systems.)
            for (const auto method : {KrylovMethod::cg, KrylovMethod::bicgstab, KrylovMethod::gmres}) {
                for (const auto precond : {BatchPrecond::none, BatchPrecond::jacobi, BatchPrecond::block_jacobi}) {
                    batched::KrylovOptions options{.method = method, .precond = precond, .max_iterations = 3000,
                                                   .rtol = 1e-10, .restart = method == KrylovMethod::gmres ? 40 : 30};
                    batched::KrylovHandle<V> handle(exec, options);
                    const auto b = matrix::BatchDense<V>::from_host(exec, count, {n, 1}, bs);
                    matrix::BatchDense<V> x(exec, count, {n, 1});
                    x.fill(V(0));
                    batched::solve(handle, A, b, x);
                    const auto xs = x.to_host();
                    const auto statuses = handle.statuses();
                    const std::string what = exec->name() + std::string(" n ") + std::to_string(n) + " " +
                                             names_of(method).to_string(method) + " " +
                                             names_of(precond).to_string(precond);
                    for (size_type e = 0; e < count; ++e) {
                        ASSERT_EQ(statuses[e], KrylovStatus::converged) << what << " batch entry " << e;
                        EXPECT_LE(relative_residual(host.item(e), std::vector<V>(bs.begin() + e * n, bs.begin() + (e + 1) * n),
                                                    std::vector<V>(xs.begin() + e * n, xs.begin() + (e + 1) * n)),
                                  1e-8)
                            << what << " batch entry " << e;
                    }
                }
            }
        }
    }
}

/// A user's kernel running the team-level CG with Jacobi on its own batch.
template <typename ModeT, typename T, typename I>
struct UserCg {
    batched::CsrView<T, I> pattern;
    size_type nnz;
    const T* values;
    const T* b;
    T* x;
    T* work;
    batched::KrylovOutcome* outcomes;

    template <typename Member>
    void operator()(const Member& member) const
    {
        const size_type e = member.league_rank();
        auto A = pattern;
        A.values = values + e * nnz;
        const int n = A.rows();
        T* w = work + e * (n + batched::krylov_workspace(KrylovMethod::cg, n, 0));
        const batched::VectorView<const T> be(b + e * n, n);
        const batched::VectorView<T> xe(x + e * n, n);
        batched::KrylovSettings settings;
        settings.rtol = solver_rtol<T>();
        if constexpr (std::is_same_v<ModeT, batched::Mode::Serial>) {
            batched::JacobiSetup<ModeT>::invoke(A, w);
            outcomes[e] = batched::Cg<ModeT>::invoke(A, batched::JacobiPrec<T>{w}, be, xe, w + n, settings);
        } else {
            batched::JacobiSetup<ModeT>::invoke(member, A, w);
            outcomes[e] = batched::Cg<ModeT>::invoke(member, A, batched::JacobiPrec<T>{w}, be, xe, w + n,
                                                     settings);
        }
    }
};

template <typename ModeT, typename V, typename I>
void check_team_cg()
{
    const auto exec = loom::test::backends().front();
    constexpr size_type count = 4;
    const auto A = matrix::poisson_batch<V, I>(exec, count, 3, 3, 3, 5);
    const size_type n = A.rows();
    const auto bs = random_values<V>(count * n, 2);
    const loom::Array<V> b(exec, bs);
    loom::Array<V> x(exec, std::vector<V>(count * n, V(0)));
    loom::Array<V> work(exec, count * (n + batched::krylov_workspace(KrylovMethod::cg, n, 0)));
    std::vector<batched::KrylovOutcome> outcomes(count);
    const batched::CsrView<V, I> pattern{static_cast<int>(n), static_cast<int>(n), A.row_ptrs().data(),
                                         A.col_idxs().data(), nullptr};
    loom::launch::team_parallel_for(*exec, {count, 1, 1},
                                    UserCg<ModeT, V, I>{pattern, A.nnz(), A.values().data(), b.data(),
                                                        x.data(), work.data(), outcomes.data()});
    const auto xs = x.to_host();
    for (size_type e = 0; e < count; ++e) {
        EXPECT_EQ(outcomes[e].status, KrylovStatus::converged);
        EXPECT_LE(relative_residual(A.item(e), std::vector<V>(bs.begin() + e * n, bs.begin() + (e + 1) * n),
                                    std::vector<V>(xs.begin() + e * n, xs.begin() + (e + 1) * n)),
                  10 * solve_tolerance<V>());
    }
}

TYPED_TEST(BatchSparseKrylov, TeamLevelSolverInAUserKernel)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    check_team_cg<batched::Mode::Serial, V, I>();
    check_team_cg<batched::Mode::Team, V, I>();
    check_team_cg<batched::Mode::TeamVector, V, I>();
}

TYPED_TEST(BatchSparseKrylov, BadInput)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    const auto A = matrix::poisson_batch<V, I>(ref, 3, 2, 2, 2, 1);
    const auto b = matrix::BatchDense<V>::from_host(ref, 3, {8, 1}, std::vector<V>(24, V(1)));
    auto x = matrix::BatchDense<V>::from_host(ref, 3, {8, 1}, std::vector<V>(24, V(5)));
    auto expect_untouched = [&] { EXPECT_EQ(x.to_host(), std::vector<V>(24, V(5))); };
    {
        batched::KrylovHandle<V> handle(ref, {.precond = BatchPrecond::block_jacobi, .block_size = 17});
        EXPECT_THROW(batched::solve(handle, A, b, x), loom::BadInput);
        expect_untouched();
    }
    {
        batched::KrylovHandle<V> handle(ref, {.restart = 0});
        EXPECT_THROW(batched::solve(handle, A, b, x), loom::BadInput);
    }
    batched::KrylovHandle<V> handle(ref);
    const auto short_b = matrix::BatchDense<V>::from_host(ref, 2, {8, 1}, std::vector<V>(16, V(1)));
    EXPECT_THROW(batched::solve(handle, A, short_b, x), loom::DimensionMismatch);
    expect_untouched();
    // A heterogeneous batch: a non-square entry, and an x too short for entry 1.
    const std::vector<matrix::Csr<V, I>> list{A.item(0), A.item(1)};
    const matrix::HeteroBatch<V, I> H(ref, list);
    const loom::Array<V> hb(ref, std::vector<V>(16, V(1)));
    loom::Array<V> hx(ref, std::vector<V>(15, V(5)));
    try {
        batched::solve(handle, H, hb, hx);
        FAIL() << "no error for a short x";
    } catch (const loom::DimensionMismatch& error) {
        EXPECT_NE(std::string(error.what()).find("batch entry 1"), std::string::npos) << error.what();
    }
    EXPECT_EQ(hx.to_host(), std::vector<V>(15, V(5)));
    const auto R = loom::test::random_csr<V, I>(ref, {3, 4, 2, false, true, false, 1});
    const matrix::HeteroBatch<V, I> NS(ref, {A.item(0), R});
    loom::Array<V> nx(ref, std::vector<V>(12, V(0)));
    const loom::Array<V> nb(ref, std::vector<V>(11, V(1)));
    try {
        batched::solve(handle, NS, nb, nx);
        FAIL() << "no error for a rectangular entry";
    } catch (const loom::BadInput& error) {
        EXPECT_NE(std::string(error.what()).find("batch entry 1"), std::string::npos) << error.what();
    }
}

}  // namespace
