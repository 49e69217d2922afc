// loom bench amg: the command-line side of bench/amg_bench.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "amg_options.hpp"
#include "bench/amg_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:64";

struct AmgBenchCli {
    MatrixSource matrix;
    std::string coordinates;
    size_type dofs_per_node = 3;
    bool symmetric = false;
    AmgAggregationOptions amg;
    double tolerance = 1e-8;
    BenchRun run{5};
};

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<AmgBenchCli>();
    cli->matrix.add_to(sub, "Square matrix A (.mtx or .bin), Hermitian positive definite");
    sub.add_option("--coordinates", cli->coordinates,
                   "Nodal coordinates (dense .mtx, nodes x 2 or 3): AMG takes the rigid-body "
                   "modes (elasticity3d specs have their own)");
    sub.add_option("--dofs-per-node", cli->dofs_per_node,
                   "Unknowns per node with --coordinates (2D: 2 or 3, 3D: 3 or 6)")
        ->capture_default_str();
    sub.add_flag("--symmetric", cli->symmetric,
                 "A's pattern is symmetric: the aggregation skips symmetrizing it");
    add_amg_aggregation_options(sub, cli->amg);
    sub.add_option("--tolerance", cli->tolerance, "Relative residual to reach")
        ->capture_default_str();
    cli->run.add_to(sub, false);
    sub.footer(fmt::format(
        "Without a matrix, --generate {}. Both solves (AMG-CG and Jacobi-CG, b = ones, x0 = 0)\n"
        "are checked by their true residual before anything is timed. With coordinates\n"
        "(--coordinates, or elasticity3d:N) AMG-CG with the rigid-body modes runs too.\nSPEC:\n{}",
        default_spec, generator_help));
    return [cli] {
        cli->matrix.default_to(default_spec);
        return with_value_type(cli->run.type, [&]<typename V>(std::type_identity<V>) {
            auto options = cli->run.options<bench::AmgBenchOptions>(cli->matrix.name());
            options.symmetric = cli->symmetric;
            options.aggregation = solver::parse_multigrid_aggregation(cli->amg.aggregation);
            options.pairwise_passes = cli->amg.pairwise_passes;
            options.smoothing = !cli->amg.unsmoothed;
            options.tolerance = cli->tolerance;
            const auto host = ReferenceExecutor::create();
            matrix::GeneratedProblem<V, index_type> problem;
            if (cli->matrix.spec.empty()) {
                problem.A = cli->matrix.build<V>();
            } else {
                problem = matrix::generate_problem<V, index_type>(host, cli->matrix.spec);
            }
            if (!cli->coordinates.empty()) {
                problem.coordinates = matrix::read_dense<V>(host, cli->coordinates);
                problem.dofs_per_node = cli->dofs_per_node;
            }
            write_json(cli->run.json, bench::bench_amg(problem, options));
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(amg, "amg",
                    "AMG-CG against Jacobi-CG: setup, re-setup, solve, iterations, complexities",
                    loom::cli::setup);
