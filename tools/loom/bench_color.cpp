// loom bench color: the command-line side of bench/color_bench.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/color_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:100";

struct ColorBenchCli {
    MatrixSource source;
    int distance = 1;
    bool bipartite = false;
    bool skip_cusparse = false;
    BenchRun run{10};
};

int run(const ColorBenchCli& cli)
{
    MatrixSource source = cli.source;
    source.default_to(default_spec);
    auto options = cli.run.options<bench::ColorBenchOptions>(source.name());
    options.distance = cli.distance;
    options.bipartite = cli.bipartite;
    options.skip_vendor = cli.skip_cusparse;
    return run_on_matrix(cli.run, source,
                         [&](const auto& A) { return bench::bench_color(A, options); });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<ColorBenchCli>();
    cli->source.add_to(sub, "Matrix whose pattern is the graph (.mtx or .bin)");
    sub.add_option("--distance", cli->distance, "1 or 2")
        ->check(CLI::IsMember({1, 2}))
        ->capture_default_str();
    sub.add_flag("--bipartite", cli->bipartite, "Color the rows (rows sharing a column differ)");
    sub.add_flag("--skip-cusparse", cli->skip_cusparse,
                 "Leave cuSPARSE's csrcolor out (it has crashed on some graphs)");
    cli->run.add_to(sub, false);
    sub.footer(fmt::format(
        "Every algorithm at the distance runs on --exec, next to the sequential greedy on the\n"
        "host (the colors' yardstick, run once) and, on CUDA at distance 1, cuSPARSE's\n"
        "csrcolor (last; an invalid csrcolor coloring is reported, not fatal) and the\n"
        "automatic algorithm without its recoloring passes. Each coloring is checked before\n"
        "it is timed; an invalid one of Loom's aborts the run. The graph is A + A^T's\n"
        "pattern, built once before timing. Default matrix: {}.\n"
        "  vs greedy  colors / greedy's colors\n"
        "  vs peer    peer time / this time (> 1: faster); the peer is cuSPARSE where it ran,\n"
        "             else the greedy\n"
        "SPEC:\n{}",
        default_spec, generator_help));
    return [cli] { return run(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(color, "color",
                    "Check, then time every coloring algorithm against greedy "
                    "and cuSPARSE",
                    loom::cli::setup);
