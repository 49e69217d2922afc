// loom color A.mtx -o colors.txt [--distance 1|2] [--bipartite] [--algorithm NAME]: a coloring
// of A's graph (or of its rows), one 0-based color per line in vertex order.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "index_file.hpp"
#include "loom/graph/coloring.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct ColorOptions {
    std::string input;
    std::string output;
    int distance = 1;
    bool bipartite = false;
    bool symmetric = false;
    std::string algorithm = "automatic";
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<ColorOptions>();
    sub.add_option("input", options->input, "Matrix A (.mtx or .bin); its pattern is the graph")
        ->required();
    add_output(sub, options->output, "Where to write the colors (one per line)", OutputKind::text);
    sub.add_option("--distance", options->distance,
                   "1: neighbours differ; 2: also vertices two "
                   "edges apart")
        ->check(CLI::IsMember({1, 2}))
        ->capture_default_str();
    sub.add_flag("--bipartite", options->bipartite,
                 "Color A's rows so that rows sharing a column differ (A may be rectangular)");
    sub.add_flag("--symmetric", options->symmetric,
                 "A's pattern is symmetric: skip the symmetrization");
    add_choice<graph::ColoringAlgorithm>(sub, "--algorithm", options->algorithm,
                                         "The coloring algorithm (listed below)");
    add_exec_options(sub, options->run, {.exec = true});
    sub.footer(
        "The graph has an edge i - j when A stores (i, j) or (j, i); self-loops are ignored.\n"
        "With --bipartite, --distance is not read: rows are colored at distance 2 through\n"
        "the columns. The summary (vertices, colors, algorithm, rounds) goes to stdout.\n"
        "ALGORITHMS:\n" +
        names_of(graph::ColoringAlgorithm{}).help());
    return [options] {
        graph::ColoringHandle handle({graph::parse_coloring_algorithm(options->algorithm),
                                      options->distance, options->symmetric});
        const auto exec = options->run.executor();
        return with_stored_matrix_on(exec, options->input, [&](const auto& A) {
            const auto coloring =
                options->bipartite ? graph::color_bipartite(handle, A) : graph::color(handle, A);
            write_index_file(options->output, coloring.colors);
            fmt::print("{} {}, {} colors ({}, rounds: {}, {})\n", coloring.colors.size(),
                       options->bipartite ? "rows" : "vertices", coloring.num_colors,
                       graph::to_string(handle.algorithm()), handle.rounds(), exec->name());
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(color, "Color a graph (distance 1 or 2) or the rows of a matrix",
                      loom::cli::setup);
