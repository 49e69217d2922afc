// loom bench spmv-stencil: the command-line side of bench/stencil_bench.

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/stencil_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct StencilBenchCli {
    size_type grid = 160;
    int points = 7;
    BenchRun run{50};
};

Runner setup(CLI::App& sub_app)
{
    auto cli = std::make_shared<StencilBenchCli>();
    auto* sub = &sub_app;
    sub->add_option("--grid", cli->grid, "Points along each direction of the box")
        ->check(positive_number())
        ->capture_default_str();
    sub->add_option("--points", cli->points, "Stencil: 3 (1D), 5, 9 (2D), 7, 27 (3D)")
        ->check(CLI::IsMember({3, 5, 7, 9, 27}))
        ->capture_default_str();
    cli->run.add_to(*sub);
    sub->footer(
        "The Poisson operator (points - 1 at the centre, -1 at the neighbours) on grid^3\n"
        "points (grid^2 for 5 and 9 points, grid for 3), as a Stencil and as CSR, both checked\n"
        "against the reference backend's stencil product, then timed in the same run.\n"
        "  GB/s      minimal bytes / time: x read and y written once, plus the indices and\n"
        "            values each format stores (the stencil: its boundary rows only)\n"
        "  vs csr    CSR time / stencil time (> 1: the stencil is faster)");
    return [cli] {
        bench::StencilBenchOptions options;
        options.exec = cli->run.executor();
        options.grid = cli->grid;
        options.points = cli->points;
        options.samples = cli->run.reps;
        options.copy_bytes = cli->run.copy_bytes();
        return with_value_type(cli->run.type, [&]<typename V>(std::type_identity<V>) {
            write_json(cli->run.json, bench::bench_spmv_stencil<V, index_type>(options));
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(spmv_stencil, "spmv-stencil",
                    "Check, then time y = A*x with a Stencil against Loom's CSR SpMV",
                    loom::cli::setup);
