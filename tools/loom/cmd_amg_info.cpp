// loom amg-info A.mtx: the aggregation hierarchy solver::Multigrid builds for A -
// rows, nonzeros, rho(D^-1 A) and setup time per level, operator and grid complexity.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "amg_options.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "loom/log/loggers.hpp"
#include "loom/matrix/io.hpp"
#include "loom/solver/multigrid.hpp"

namespace loom::cli {
namespace {

struct AmgInfoOptions {
    std::string input;
    double strength_threshold = 0.0;
    size_type coarse_size = 300;
    size_type max_levels = 20;
    std::string coordinates;
    size_type dofs_per_node = 0;
    bool symmetric = false;
    AmgAggregationOptions amg;
    bool log = false;
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<AmgInfoOptions>();
    sub.add_option("input", options->input, "Square matrix A (.mtx or .bin)")->required();
    sub.add_option("--theta", options->strength_threshold,
                   "Strength threshold: keep |a_ij| >= theta sqrt(|a_ii a_jj|)")
        ->check(CLI::Range(0.0, 0.999999))
        ->capture_default_str();
    sub.add_option("--coarse-size", options->coarse_size,
                   "Rows at which a level is the coarsest (dense LU)")
        ->check(positive_number())
        ->capture_default_str();
    sub.add_option("--max-levels", options->max_levels, "Levels at most")
        ->check(positive_number())
        ->capture_default_str();
    auto* coordinates = sub.add_option(
        "--coordinates", options->coordinates,
        "Nodal coordinates (dense .mtx, nodes x 2 or 3): the rigid-body modes as the near-null "
        "space, nodes aggregated whole");
    sub.add_option("--dofs-per-node", options->dofs_per_node,
                   "With --coordinates: unknowns per node (default: one per coordinate)")
        ->check(positive_number())
        ->needs(coordinates);
    add_amg_aggregation_options(sub, options->amg);
    sub.add_flag("--symmetric", options->symmetric,
                 "A's pattern is symmetric (skips the symmetrization of the aggregation)");
    sub.add_flag("--log", options->log,
                 "Also print the setup as a log::StreamLogger reports it (one line per level)");
    add_exec_options(sub, options->run, {.exec = true});
    return [options] {
        const auto exec = options->run.executor();
        return with_stored_matrix(options->input, [&](const auto& A_host) {
            using Matrix = std::decay_t<decltype(A_host)>;
            using Amg = solver::Multigrid<typename Matrix::value_type, typename Matrix::index_type>;
            auto A = std::make_shared<const Matrix>(exec, A_host);
            auto builder = Amg::build();
            builder.with_strength_threshold(options->strength_threshold)
                .with_coarse_size(options->coarse_size)
                .with_max_levels(options->max_levels)
                .with_symmetric_pattern(options->symmetric);
            apply_amg_aggregation_options(builder, options->amg);
            if (!options->coordinates.empty()) {
                using V = typename Matrix::value_type;
                const auto xyz = matrix::read_dense<V>(exec, options->coordinates);
                builder.with_coordinates(xyz, options->dofs_per_node > 0 ? options->dofs_per_node
                                                                         : xyz.cols());
            }
            if (options->log) {
                builder.with_loggers(
                    std::make_shared<log::StreamLogger>(std::cout, log::StreamLogger::hierarchies));
            }
            const auto amg = builder.on(exec)->generate(A);
            std::cout.flush();
            std::fputs(amg->report().c_str(), stdout);
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

// Registered by hand: the command's name has a dash, which LOOM_REGISTER_COMMAND's #name cannot.
static const ::loom::cli::Registrar<::loom::cli::CommandList::top> loom_register_amg_info{
    {"amg-info", "Print the algebraic multigrid hierarchy of a matrix", loom::cli::setup}};
