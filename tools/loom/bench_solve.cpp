// loom bench solve
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/solve_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct SolveBenchCli {
    MatrixSource source;
    std::string solver = "cg";
    std::string exec = default_executor();
    int threads = 0;
    size_type iterations = 100;
    int reps = 5;
    std::string type = "double";
    std::string json;
    std::size_t copy_mib = 0;
    bool no_overhead = false;
};

int run_solve(const SolveBenchCli& cli)
{
    bench::SolveBenchOptions options;
    options.exec = make_executor(cli.exec, cli.threads);
    options.solver = cli.solver;
    options.iterations = cli.iterations;
    options.samples = cli.reps;
    options.matrix_name = cli.source.name();
    options.copy_bytes = cli.copy_mib << 20;
    options.overhead = !cli.no_overhead;
    return with_value_type(cli.type, [&]<typename V>(std::type_identity<V>) {
        write_json(cli.json, bench::bench_solve(cli.source.build<V>(), options));
        return exit_ok;
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SolveBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin), square");
    sub.add_option("--solver", cli->solver, "Solver, without preconditioner")
        ->check(CLI::IsMember({"cg", "fcg", "bicg", "bicgstab", "cgs", "gmres", "ir"}))
        ->capture_default_str();
    sub.add_option("--exec", cli->exec, "Backend: reference, omp, cuda or cuda:N")
        ->capture_default_str();
    sub.add_option("--threads", cli->threads, "OpenMP threads (default: all)")
        ->check(CLI::PositiveNumber);
    sub.add_option("--iters", cli->iterations, "Iterations per timed solve")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub.add_option("--reps", cli->reps, "Timed solves; the median is reported")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub.add_option("--type", cli->type, "Value type")
        ->check(CLI::IsMember(value_type_names))
        ->capture_default_str();
    sub.add_option("--json", cli->json, "Also write every number to this JSON file");
    sub.add_option("--copy-mib", cli->copy_mib,
                   "MiB copied to measure the bandwidth (default 512 host, 1024 GPU)")
        ->check(CLI::PositiveNumber);
    sub.add_flag("--no-overhead", cli->no_overhead, "Skip the 1x1 overhead measurement");
    sub.footer(fmt::format(
        "First checks the solver against the reference backend (a few iterations, the same\n"
        "residual history), then solves A x = b, b = A * 1, from x0 = 0 with max_iters = --iters\n"
        "as the only criterion.\n"
        "  time/iter   (median solve time - median time of a solve doing no iteration) / iters\n"
        "  GB/s        bytes per iteration / time (cg and fcg), bytes =\n"
        "              {} with |T| = sizeof(T):\n"
        "              {}\n"
        "  of copy BW  GB/s over the copy bandwidth measured in this run\n"
        "  1x1         the same on A = [a], b = [1]: the per-iteration cost of everything but\n"
        "              the arithmetic (kernel launches, reductions, criteria, host logic)\n"
        "SPEC:\n{}",
        bench::cg_bytes_formula, bench::cg_bytes_terms, generator_help));
    sub.callback([cli] { cli->source.require(); });
    return [cli] { return run_solve(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(solve, "solve",
                    "Check, then time a Krylov iteration: GB/s against the copy bandwidth, "
                    "1x1 overhead",
                    loom::cli::setup);
