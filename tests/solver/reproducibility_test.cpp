// Run-to-run reproducibility (issue 18): on one executor with one thread count, SpMV, SpGEMM,
// dot products, norms and whole CG / BiCGSTAB solves give bitwise-identical results every
// time. OpenMP with several thread counts here; CUDA where a device is present.
#include <cstring>
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

TEST(Reproducibility, Spgemm)
{
    for (const auto& exec : executors()) {
        const auto A = awkward_matrix(exec);
        // SpgemmOptions::deterministic asks for it (on CUDA: after the hashing kernels,
        // every entry summed in order): one product, then a handle's first and repeated calls
        expect_reproducible(*exec, [&] {
            return sparse::spgemm(A, A, {.deterministic = true}).values().to_host();
        });
        // a handle's first and repeated (values-only, recorded) numeric calls
        expect_reproducible(*exec, [&] {
            sparse::SpgemmHandle<V, I> handle({.deterministic = true});
            matrix::Csr<V, I> C;
            sparse::spgemm_symbolic(handle, A, A, C);
            sparse::spgemm_numeric(handle, A, A, C);
            auto values = C.values().to_host();
            sparse::spgemm_numeric(handle, A, A, C);
            for (const auto v : C.values().to_host()) values.push_back(v);
            return values;
        });
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
