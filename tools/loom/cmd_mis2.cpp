// loom mis2 A.mtx -o set.txt [--mode MODE] [--aggregates agg.txt]: a maximal
// distance-2 independent set of A's graph (the same on every backend), and optionally the
// MIS-2 aggregation built on it.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "index_file.hpp"
#include "loom/graph/mis2.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct Mis2CommandOptions {
    std::string input;
    std::string output;
    std::string aggregates;
    std::string mode = "fast";
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<Mis2CommandOptions>();
    sub.add_option("input", options->input, "Matrix A (.mtx or .bin); its pattern is the graph")
        ->required();
    add_output(sub, options->output,
               "Where to write the set: one 0-based vertex per line, increasing",
               OutputKind::text);
    sub.add_option("--aggregates", options->aggregates,
                   "Also write the MIS-2 aggregation: the 0-based aggregate of every vertex, "
                   "one per line in vertex order");
    add_choice<graph::Mis2Mode>(sub, "--mode", options->mode, "How the set is grown (listed below)");
    add_exec_options(sub, options->run, {.exec = true});
    sub.footer(
        "A must be square; an asymmetric pattern is symmetrized (an entry (i, j) is the edge\n"
        "{i, j}); values and self-loops are ignored. No two vertices of the set are within\n"
        "distance 2, and every other vertex is within distance 2 of one.\n"
        "MODES:\n" +
        names_of(graph::Mis2Mode{}).help());
    return [options] {
        const graph::Mis2Options mis2_options{graph::parse_mis2_mode(options->mode)};
        const auto exec = options->run.executor();
        return with_stored_matrix_on(exec, options->input, [&](const auto& A) {
            if (options->aggregates.empty()) {
                const auto set = graph::mis2(A, mis2_options);
                write_index_file(options->output, set);
                std::cout << A.rows() << " vertices, " << set.size() << " in the set\n";
            } else {
                const auto aggregation = graph::mis2_aggregation(A, mis2_options);
                write_index_file(options->output, aggregation.roots);
                write_index_file(options->aggregates, aggregation.aggregate_of);
                std::cout << A.rows() << " vertices, " << aggregation.count()
                          << " in the set and as many aggregates\n";
            }
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(mis2, "Maximal distance-2 independent set (and aggregation) of a graph",
                      loom::cli::setup);
