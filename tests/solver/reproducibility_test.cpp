// Run-to-run reproducibility (issue 18): on one executor with one thread count, SpMV, SpGEMM,
// dot products, norms and whole CG / BiCGSTAB solves give bitwise-identical results every
// time. OpenMP with several thread counts here; CUDA where a device is present.
#include <cstdint>
#include <cstring>
#include <random>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/blas/vector.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/sparse/spgemm.hpp"
#include "loom/stop/criterion.hpp"
#include "solver/problems.hpp"
#include "support/random.hpp"
#include "support/executors.hpp"
#include "support/types.hpp"

#if LOOM_HAS_INT32
namespace {

using namespace loom;
/// The first value type of the build (a real one unless the build has complex types only).
using V = std::tuple_element_t<0, test::value_tuple>;
using I = int32;

/// The executors each reproducibility test runs on: OpenMP with 1, 2 and 3 threads (a team
/// size that splits rows unevenly), and a CUDA device when there is one.
std::vector<std::shared_ptr<const Executor>> executors()
{
    std::vector<std::shared_ptr<const Executor>> all;
    if (OmpExecutor::available()) {
        for (const int threads : {1, 2, 3}) all.push_back(OmpExecutor::create(threads));
    }
    if (CudaExecutor::available()) all.push_back(CudaExecutor::create(0));
    return all;
}

std::string describe(const Executor& exec)
{
    if (exec.kind() != ExecKind::omp) return exec.name();
    return "omp, " + std::to_string(static_cast<const OmpExecutor&>(exec).num_threads()) +
           " threads";
}

/// Bitwise equality: == would call -0.0 and 0.0 equal and NaN unequal to itself.
template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// f() five times on the executor must give the same bits as the first time.
template <typename F>
void expect_reproducible(const Executor& exec, F&& f)
{
    const auto first = f();
    for (int run = 1; run < 5; ++run) {
        EXPECT_TRUE(same_bits(f(), first)) << describe(exec) << ", run " << run;
    }
}

/// A nonsymmetric matrix whose rows differ in length, so that the threads' shares differ.
matrix::Csr<V, I> awkward_matrix(std::shared_ptr<const Executor> exec)
{
    return matrix::Csr<V, I>(exec, matrix::generate_csr<V, I>(test::reference(),
                                                              "powerlaw:3001:12:7"));
}

TEST(Reproducibility, Spmv)
{
    for (const auto& exec : executors()) {
        const auto A = awkward_matrix(exec);
        const auto x = test::random_dense<V>(exec, {A.cols(), 3}, 11);
        expect_reproducible(*exec, [&] {
            matrix::Dense<V> y(exec, {A.rows(), 3});
            A.apply(x, y);
            return y.to_host();
        });
    }
}

/// A matrix from its rows' entries (columns in any order), random values.
matrix::Csr<V, I> from_rows(std::shared_ptr<const Executor> exec, dim2 size,
                            const std::vector<std::vector<I>>& rows, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<I> ptrs{0};
    std::vector<I> cols;
    std::vector<V> vals;
    for (const auto& row : rows) {
        for (const auto c : row) {
            cols.push_back(c);
            vals.push_back(test::random_value<V>(rng));
        }
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    return matrix::Csr<V, I>::from_host(exec, size, ptrs, cols, vals);
}

/// Products whose entries of C sum many multiply-adds from different teams, warps and steps,
/// on every row class of the GPU kernels: power-law rows (light tables of all sizes), a
/// 5000-column square with a dense row and rows that select it (rows longer than the shared
/// tables: bitmaps), and on the GPU one long row into a B of 4 M columns (two-level hash; the
/// host kernels have nothing in this case that the others do not cover, and their
/// accumulators for such a B would cost the test most of its time).
std::vector<std::pair<matrix::Csr<V, I>, matrix::Csr<V, I>>> spgemm_cases(
    std::shared_ptr<const Executor> exec)
{
    std::vector<std::pair<matrix::Csr<V, I>, matrix::Csr<V, I>>> cases;
    const auto powerlaw = awkward_matrix(exec);
    cases.emplace_back(powerlaw, powerlaw);
    constexpr I n = 5000;
    std::vector<std::vector<I>> arrow(n);
    for (I c = n - 1; c >= 0; --c) arrow[0].push_back(c);  // unsorted on purpose
    for (I r = 1; r < n; ++r) {
        arrow[r] = {r, static_cast<I>((r * 7919) % n)};
        if (r % 499 == 0) arrow[r].push_back(0);
    }
    const auto square = from_rows(exec, {n, n}, arrow, 21);
    cases.emplace_back(square, square);
    if (exec->is_host()) return cases;
    constexpr I wide = 4'000'000;
    constexpr I long_row = 9000;  // beyond half the shared first level: a second level too
    std::vector<std::vector<I>> a_rows(2);
    for (I k = 0; k < long_row; ++k) a_rows[0].push_back(k);
    a_rows[1] = {3, 5};
    std::vector<std::vector<I>> b_rows(long_row);
    for (I k = 0; k < long_row; ++k) {
        // neighbouring rows share a column, so most entries of C sum two products
        b_rows[k] = {static_cast<I>(k * 523 % wide), static_cast<I>((k + 1) * 523 % wide)};
    }
    cases.emplace_back(from_rows(exec, {2, long_row}, a_rows, 22),
                       from_rows(exec, {long_row, wide}, b_rows, 23));
    return cases;
}

TEST(Reproducibility, Spgemm)
{
    for (const auto& exec : executors()) {
        for (const auto& [A, B] : spgemm_cases(exec)) {
            SCOPED_TRACE(to_string(A.size()) + " * " + to_string(B.size()));
            // the default options: one product, then a handle's first and repeated
            // (values-only) numeric calls
            expect_reproducible(*exec, [&] { return sparse::spgemm(A, B).values().to_host(); });
            expect_reproducible(*exec, [&] {
                sparse::SpgemmHandle<V, I> handle;
                matrix::Csr<V, I> C;
                sparse::spgemm_symbolic(handle, A, B, C);
                sparse::spgemm_numeric(handle, A, B, C);
                auto values = C.values().to_host();
                sparse::spgemm_numeric(handle, A, B, C);
                for (const auto v : C.values().to_host()) values.push_back(v);
                return values;
            });
        }
    }
}

TEST(Reproducibility, DotsAndNorms)
{
    for (const auto& exec : executors()) {
        // Long enough for every thread and every CUDA block to hold a share.
        const auto x = test::random_dense<V>(exec, {100003, 2}, 3);
        const auto y = test::random_dense<V>(exec, {100003, 2}, 4);
        expect_reproducible(*exec, [&] {
            matrix::Dense<V> dots(exec, {1, 2});
            matrix::Dense<V> norms(exec, {1, 2});
            blas::dot(x, y, dots);
            blas::nrm2(x, norms);
            auto all = dots.to_host();
            for (const auto n : norms.to_host()) all.push_back(n);
            return all;
        });
    }
}

/// The iterate after a solve of a fixed number of iterations (no early stop that rounding
/// could move).
template <typename Solver>
std::vector<V> solve_bits(const std::shared_ptr<const Executor>& exec,
                          const std::shared_ptr<const LinOp<V>>& A, const matrix::Dense<V>& b)
{
    const auto solver = Solver::build()
                            .with_criteria(stop::max_iterations(40))
                            .on(exec)
                            ->generate(A);
    matrix::Dense<V> x(exec, b.size());
    x.fill(V{0});
    solver->apply(b, x);
    return x.to_host();
}

TEST(Reproducibility, WholeSolves)
{
    for (const auto& exec : executors()) {
        const std::shared_ptr<const LinOp<V>> spd = test::grid_matrix<V>(exec, 40);
        const std::shared_ptr<const LinOp<V>> nonsymmetric = test::grid_matrix<V>(exec, 40, 0.3);
        const auto b = test::random_dense<V>(exec, {1600, 1}, 9);
        expect_reproducible(*exec, [&] { return solve_bits<solver::Cg<V>>(exec, spd, b); });
        expect_reproducible(*exec,
                            [&] { return solve_bits<solver::Bicgstab<V>>(exec, nonsymmetric, b); });
    }
}

}  // namespace
#endif
