// The Gauss-Seidel benchmark: the reference check, the timings, the iteration counts.
#include "bench/gauss_seidel_bench.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/instantiate.hpp"
#include "bench/timing.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/precond/gauss_seidel.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/sparse/block_diagonal.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom bench gs";

/// A sweep may cost this many SpMVs (the target).
constexpr double sweep_budget = 1.5;

/// Max |a - b| / max(1, max |b|).
template <typename V>
double relative_difference(const std::vector<V>& a, const std::vector<V>& b)
{
    double diff = 0, scale = 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, static_cast<double>(std::abs(a[i] - b[i])));
        scale = std::max(scale, static_cast<double>(std::abs(b[i])));
    }
    return diff / scale;
}

/// CG iterations to a relative residual of 1e-8 with preconditioner M.
template <typename V, typename I>
size_type cg_iterations(const std::shared_ptr<const matrix::Csr<V, I>>& A,
                        std::shared_ptr<const LinOpFactory<V>> M)
{
    const auto& exec = A->executor();
    const auto cg = solver::Cg<V>::build()
                        .with_criteria(stop::max_iterations(5000) | stop::relative_residual(1e-8))
                        .with_preconditioner(std::move(M))
                        .on(exec)
                        ->generate(A);
    // A right-hand side with every eigencomponent (a constant one favours Jacobi).
    std::vector<V> values(static_cast<std::size_t>(A->rows()));
    std::uint64_t state = 42;
    for (auto& v : values) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        v = static_cast<V>(static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5);
    }
    const auto b = matrix::Dense<V>::from_host(exec, {A->rows(), 1}, values);
    matrix::Dense<V> x(exec, {A->rows(), 1});
    x.fill(V{0});
    cg->apply(b, x);
    return cg->result().iterations;
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_gauss_seidel(const matrix::Csr<V, I>& A_in,
                                          const GaussSeidelBenchOptions& options)
{
    options.check(where);
    const auto& exec = *options.exec;
    const auto A = std::make_shared<const matrix::Csr<V, I>>(options.exec, A_in);
    auto timing = options.timing();

    const auto symmetric = precond::GaussSeidel<V, I>::build()
                               .with_direction(precond::GaussSeidelDirection::symmetric)
                               .on(options.exec);
    const auto setup = time_kernel(
        exec, [&] { symmetric->generate(A); }, timing);
    const auto sgs = symmetric->generate(A);
    const auto& order = sgs->order();

    // The check: one symmetric sweep here against the reference backend in the same order.
    const auto ref = ReferenceExecutor::create();
    const matrix::Csr<V, I> A_ref(ref, A_in);
    const sparse::SweepOrder<I> ref_order{Array<I>(ref, order.rows),
                                          Array<I>(ref, order.cluster_ptrs), order.color_ptrs};
    const auto inverse_ref = sparse::invert_diagonal(A_ref);
    matrix::Dense<V> b(options.exec, {A->rows(), 1});
    b.fill(V{1});
    matrix::Dense<V> b_ref(ref, b), x_ref(ref, b.size());
    x_ref.fill(V{0});
    for (const auto d : {sparse::SweepDirection::forward, sparse::SweepDirection::backward}) {
        sparse::gauss_seidel_sweep(A_ref, inverse_ref, ref_order, d, V{1}, b_ref, x_ref);
    }
    matrix::Dense<V> x(options.exec, b.size());
    sgs->apply(b, x);
    const double difference = relative_difference(x.to_host(), x_ref.to_host());
    if (!(difference <= 1e-10)) {
        throw NumericalError(where, fmt::format("the symmetric sweep on {} differs from the "
                                                "reference's by {:.2e}",
                                                exec.name(), difference));
    }

    const auto inverse = sparse::invert_diagonal(*A);
    const auto sweep = time_kernel(
        exec,
        [&] {
            sparse::gauss_seidel_sweep(*A, inverse, order, sparse::SweepDirection::forward, V{1}, b,
                                       x);
        },
        timing);
    const auto apply = time_kernel(
        exec, [&] { sgs->apply(b, x); }, timing);
    matrix::Dense<V> y(options.exec, b.size());
    const auto spmv = time_kernel(
        exec, [&] { A->apply(b, y); }, timing);

    fmt::print("matrix    {}: {} rows, {} stored entries, {} colors\n", options.matrix_name,
               A->rows(), A->nnz(), sgs->num_colors());
    fmt::print(
        "run       {}, {} indices, median of {} samples; checked against the reference "
        "({:.1e})\n",
        exec.name(), type_name<I>(), options.samples, difference);
    fmt::print("setup     {:.1f} us (coloring, grouping, inverse diagonal)\n", setup.median * 1e6);
    fmt::print("spmv      {:.1f} us\n", spmv.median * 1e6);
    fmt::print("sweep     {:.1f} us forward = {:.2f} SpMVs (target <= {})\n", sweep.median * 1e6,
               sweep.median / spmv.median, sweep_budget);
    fmt::print("sgs apply {:.1f} us = {:.2f} SpMVs\n", apply.median * 1e6,
               apply.median / spmv.median);
    nlohmann::ordered_json report{
        {"benchmark", "gs"},
        {"matrix", matrix_report(options, *A)},
        {"executor", exec.name()},
        {"index_type", type_name<I>()},
        {"samples", options.samples},
        {"colors", sgs->num_colors()},
        {"check_difference", difference},
        {"setup_s", setup.median},
        {"spmv_s", spmv.median},
        {"forward_sweep_s", sweep.median},
        {"sweep_in_spmvs", sweep.median / spmv.median},
        {"sgs_apply_s", apply.median}};
    if (options.solve) {
        const auto jacobi = cg_iterations<V, I>(
            A, precond::Jacobi<V, I>::build().with_max_block_size(1).on(options.exec));
        const auto with_sgs = cg_iterations<V, I>(A, symmetric);
        fmt::print("cg        {} iterations with Jacobi, {} with SGS ({:.2f}x; target < 0.5)\n",
                   jacobi, with_sgs, static_cast<double>(with_sgs) / jacobi);
        report["cg_iterations_jacobi"] = jacobi;
        report["cg_iterations_sgs"] = with_sgs;
    }
    return report;
}

#define LOOM_INSTANTIATE_BENCH_GAUSS_SEIDEL(V, I)                                \
    template nlohmann::ordered_json bench_gauss_seidel(const matrix::Csr<V, I>&, \
                                                       const GaussSeidelBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_GAUSS_SEIDEL)

}  // namespace loom::bench
