// loom bench mis2: the command-line side of bench/mis2_bench.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/mis2_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:160";

struct Mis2BenchCli {
    MatrixSource matrix;
    bool symmetric = false;
    BenchRun run{10};
};

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<Mis2BenchCli>();
    cli->matrix.add_to(sub, "Square matrix A (.mtx or .bin); its pattern is the graph");
    sub.add_flag("--symmetric", cli->symmetric,
                 "A's pattern is symmetric: MIS-2 skips symmetrizing it");
    cli->run.add_to(sub, false);
    sub.footer(fmt::format(
        "Without a matrix, --generate {} (the issue's target matrix). The set on the chosen\n"
        "backend is first compared with the reference backend's; they must be equal.\n"
        "  in SpMVs    MIS-2 time / the time of one CSR SpMV (y = A x) on the same matrix\n"
        "  of target   MIS-2 time / the time of 30 SpMVs (the issue's target: <= 1)\n"
        "SPEC:\n{}",
        default_spec, generator_help));
    return [cli] {
        cli->matrix.default_to(default_spec);
        return run_on_matrix(cli->run, cli->matrix, [&](const auto& A) {
            auto options = cli->run.options<bench::Mis2BenchOptions>(cli->matrix.name());
            options.symmetric = cli->symmetric;
            return bench::bench_mis2(A, options);
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(mis2, "mis2", "Check, then time MIS-2 and its aggregation against 30 CSR SpMVs",
                    loom::cli::setup);
