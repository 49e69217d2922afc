// loom bench gs: the command-line side of bench/gauss_seidel_bench.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/gauss_seidel_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:100";

struct GaussSeidelBenchCli {
    MatrixSource matrix;
    bool no_solve = false;
    BenchRun run{10};
};

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<GaussSeidelBenchCli>();
    cli->matrix.add_to(sub, "Square matrix A (.mtx or .bin) with a nonzero diagonal");
    sub.add_flag("--no-solve", cli->no_solve, "Skip counting CG iterations");
    cli->run.add_to(sub, false);
    sub.footer(fmt::format(
        "Without a matrix, --generate {} (the issue's target matrix). One symmetric sweep on\n"
        "the chosen backend is first compared with the reference backend's in the same order.\n"
        "Targets: a forward sweep within 1.5 SpMVs; CG with SGS in fewer than half the\n"
        "iterations of CG with Jacobi.\nSPEC:\n{}",
        default_spec, generator_help));
    return [cli] {
        cli->matrix.default_to(default_spec);
        return run_on_matrix(cli->run, cli->matrix, [&](const auto& A) {
            auto options = cli->run.options<bench::GaussSeidelBenchOptions>(cli->matrix.name());
            options.solve = !cli->no_solve;
            return bench::bench_gauss_seidel(A, options);
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(gs, "gs", "Check, then time a multicolor Gauss-Seidel sweep against a CSR SpMV",
                    loom::cli::setup);
