// The AMG benchmark: the checked solves, the timings, the report.
#include "bench/amg_bench.hpp"

#include <fmt/core.h>

#include <cmath>
#include <memory>
#include <vector>

#include "base/instantiate.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/cg.hpp"
#include "loom/solver/multigrid.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom bench amg";

struct Row {
    std::string method;
    double setup = 0;
    double resetup = 0;  ///< < 0: none
    Timing solve;
    size_type iterations = 0;
    double relative_residual = 0;
};

/// ||b - A x|| / ||b|| computed from scratch (the solver's own estimate is not trusted).
template <typename V, typename I>
double true_relative_residual(const matrix::Csr<V, I>& A, const matrix::Dense<V>& b,
                              const matrix::Dense<V>& x)
{
    matrix::Dense<V> r(A.executor(), b);
    A.apply(V{-1}, x, V{1}, r);
    matrix::Dense<remove_complex_t<V>> norms(A.executor(), dim2{1, 1});
    blas::nrm2(r, norms);
    const double rr = static_cast<double>(norms.to_host()[0]);
    blas::nrm2(b, norms);
    return rr / static_cast<double>(norms.to_host()[0]);
}

/// Solves once (checked), then times the solve from x = 0.
template <typename V, typename I>
Row run_cg(const std::string& method, const std::shared_ptr<const matrix::Csr<V, I>>& A,
           std::shared_ptr<const LinOp<V>> precond, double setup, double resetup,
           const AmgBenchOptions& options, const TimingOptions& timing)
{
    auto cg = solver::Cg<V>::build()
                  .with_preconditioner(std::move(precond))
                  .with_criteria(stop::max_iterations(options.max_iterations),
                                 stop::relative_residual(options.tolerance))
                  .with_initial_guess(solver::InitialGuess::zero)
                  .on(options.exec)
                  ->generate(A);
    matrix::Dense<V> b(options.exec, dim2{A->rows(), 1});
    matrix::Dense<V> x(options.exec, dim2{A->rows(), 1});
    b.fill(V{1});
    cg->apply(b, x);
    const double residual = true_relative_residual(*A, b, x);
    if (!(residual <= 10 * options.tolerance)) {
        throw NumericalError(
            where, fmt::format("{} reached a true relative residual of {:.3e} "
                               "({}), not {:.1e}",
                               method, residual, cg->result().message(), options.tolerance));
    }
    Row row{method, setup, resetup, {}, cg->result().iterations, residual};
    row.solve = time_kernel(
        *options.exec, [&] { cg->apply(b, x); }, timing);
    return row;
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_amg(const matrix::GeneratedProblem<V, I>& problem,
                                 const AmgBenchOptions& options)
{
    options.check(where);
    const auto& exec = *options.exec;
    const auto A = std::make_shared<const matrix::Csr<V, I>>(options.exec, problem.A);
    const bool has_coordinates = problem.coordinates.rows() > 0;
    auto timing = options.timing();
    timing.max_batch = 1;

    // The hierarchy's options of the command line, for the AMG rows alike.
    const auto configured = [&options] {
        auto builder = solver::Multigrid<V, I>::build();
        builder.with_symmetric_pattern(options.symmetric)
            .with_aggregation(options.aggregation)
            .with_pairwise_passes(options.pairwise_passes)
            .with_smoothing(options.smoothing);
        return builder;
    };
    auto amg_builder = configured();
    if (has_coordinates) {
        amg_builder.with_coordinates(matrix::Dense<V>(options.exec, problem.coordinates),
                                     problem.dofs_per_node);
    }
    auto amg_factory = amg_builder.on(options.exec);
    std::shared_ptr<solver::Multigrid<V, I>> amg;
    const auto setup = time_kernel(
        exec, [&] { amg = amg_factory->generate(A); }, timing);
    const auto resetup = time_kernel(
        exec, [&] { amg->update(A); }, timing);
    auto jacobi_factory = precond::Jacobi<V, I>::build().with_max_block_size(1).on(options.exec);
    std::shared_ptr<const LinOp<V>> jacobi;
    const auto jacobi_setup = time_kernel(
        exec, [&] { jacobi = jacobi_factory->generate(A); }, timing);

    std::vector<Row> rows;
    rows.push_back(run_cg<V, I>(has_coordinates ? "amg-rbm-cg" : "amg-cg", A, amg, setup.median,
                                resetup.median, options, timing));
    if (has_coordinates) {
        // The scalar hierarchy (constant vector, rows aggregated) the modes are to beat.
        auto scalar_factory = configured().on(options.exec);
        std::shared_ptr<solver::Multigrid<V, I>> scalar;
        const auto scalar_setup = time_kernel(
            exec, [&] { scalar = scalar_factory->generate(A); }, timing);
        rows.push_back(run_cg<V, I>("amg-cg", A, scalar, scalar_setup.median, -1, options, timing));
    }
    rows.push_back(run_cg<V, I>("jacobi-cg", A, jacobi, jacobi_setup.median, -1, options, timing));

    fmt::print("matrix    {}: {} rows, {} stored entries\n", options.matrix_name, A->rows(),
               A->nnz());
    fmt::print("run       {}, {} indices, b = ones, to {:.0e}, median of {} samples\n", exec.name(),
               type_name<I>(), options.tolerance, options.samples);
    fmt::print("amg       {} aggregation{}, {} prolongator\n\n",
               solver::to_string(options.aggregation),
               options.aggregation == solver::MultigridAggregation::pairwise
                   ? fmt::format(" ({} passes)", options.pairwise_passes)
                   : std::string(),
               options.smoothing ? "smoothed" : "plain");
    fmt::print("{}\n", amg->report());
    Table table({"method", "setup [s]", "re-setup [s]", "solve [s]", "total [s]", "iterations",
                 "residual"});
    auto json_rows = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
        const double total = row.setup + row.solve.median;
        table.add_row({row.method, fmt::format("{:.4f}", row.setup),
                       row.resetup < 0 ? "-" : fmt::format("{:.4f}", row.resetup),
                       fmt::format("{:.4f}", row.solve.median), fmt::format("{:.4f}", total),
                       std::to_string(row.iterations),
                       fmt::format("{:.2e}", row.relative_residual)});
        json_rows.push_back({{"method", row.method},
                             {"setup_s", row.setup},
                             {"resetup_s", row.resetup < 0 ? nlohmann::ordered_json()
                                                           : nlohmann::ordered_json(row.resetup)},
                             {"solve_s", row.solve.median},
                             {"total_s", total},
                             {"iterations", row.iterations},
                             {"relative_residual", row.relative_residual}});
    }
    table.print();
    return {{"benchmark", "amg"},
            {"matrix", matrix_report(options, *A)},
            {"executor", exec.name()},
            {"index_type", type_name<I>()},
            {"samples", options.samples},
            {"tolerance", options.tolerance},
            {"aggregation", solver::to_string(options.aggregation)},
            {"pairwise_passes", options.pairwise_passes},
            {"smoothing", options.smoothing},
            {"levels", amg->num_levels()},
            {"operator_complexity", amg->operator_complexity()},
            {"grid_complexity", amg->grid_complexity()},
            {"results", json_rows}};
}

#define LOOM_INSTANTIATE_BENCH_AMG(V, I)                                             \
    template nlohmann::ordered_json bench_amg(const matrix::GeneratedProblem<V, I>&, \
                                              const AmgBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_AMG)

}  // namespace loom::bench
