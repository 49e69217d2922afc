// loom bench solve
#include <memory>
#include <optional>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/solve_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"
#include "loom/solver/config.hpp"
#include "mpi_solve.hpp"

namespace loom::cli {
namespace {

struct SolveBenchCli {
    MatrixSource source;
    std::string solver = "cg";
    size_type iterations = 100;
    bool no_overhead = false;
    BenchRun run{5};
    std::string scaling;  ///< under mpirun: a mpi::scaling_names name, or "" (mpi_solve.hpp)
    mpi::Layout layout;   ///< under mpirun
};

int run_solve(const SolveBenchCli& cli)
{
    std::optional<mpi::Scaling> scaling;
    if (!cli.scaling.empty()) scaling = names_of(mpi::Scaling{}).parse(cli.scaling, "loom bench solve");
#if LOOM_CLI_WITH_MPI
    if (mpi::launched_by_mpirun()) {
        return mpi::bench_solve({cli.source.path, cli.source.spec, cli.solver, cli.iterations,
                                 cli.run.reps, scaling, cli.run, cli.layout});
    }
#endif
    if (scaling) throw BadInput("loom bench solve", "--scaling needs mpirun");
    mpi::check_without_mpirun(cli.layout, "loom bench solve");
    auto options = cli.run.options<bench::SolveBenchOptions>(cli.source.name());
    options.solver = cli.solver;
    options.iterations = cli.iterations;
    options.overhead = !cli.no_overhead;
    return run_on_matrix(cli.run, cli.source,
                         [&](const auto& A) { return bench::bench_solve(A, options); });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SolveBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin), square");
    cli->run.add_to(sub);
    add_choice<solver::SolverKind>(sub, "--solver", cli->solver, "Solver, without preconditioner");
    sub.add_option("--iters", cli->iterations, "Iterations per timed solve")
        ->check(positive_number())
        ->capture_default_str();
    sub.add_flag("--no-overhead", cli->no_overhead, "Skip the 1x1 overhead measurement");
    sub.add_option("--scaling", cli->scaling,
                   "Under mpirun: a scaling table on 1, 2, 4, ... ranks (listed below)")
        ->check(CLI::IsMember(names_of(mpi::Scaling{}).spellings()));
    mpi::add_layout_options(sub, cli->layout);
    sub.footer(fmt::format(
        "First checks the solver against the reference backend (a few iterations, the same\n"
        "residual history), then solves A x = b, b = A * 1, from x0 = 0 with max_iters = --iters\n"
        "as the only criterion.\n"
        "  time/iter   (median solve time - median time of a solve doing no iteration) / iters\n"
        "  GB/s        bytes per iteration / time (cg and fcg), bytes =\n"
        "              {} with |T| = sizeof(T):\n"
        "              {}\n"
        "  of copy BW  GB/s over the copy bandwidth measured in this run\n"
        "  fused of copy BW  the same with the bytes the fused CG iteration moves,\n"
        "              {}:\n"
        "              {}\n"
        "  1x1         the same on A = [a], b = [1]: the per-iteration cost of everything but\n"
        "              the arithmetic (kernel launches, reductions, criteria, host logic)\n"
        "SCALING (under mpirun):\n{}"
        "SPEC:\n{}",
        bench::cg_bytes_formula, bench::cg_bytes_terms, bench::cg_fused_bytes_formula,
        bench::cg_fused_bytes_terms, names_of(mpi::Scaling{}).help(), generator_help));
    sub.callback([cli] { cli->source.require(); });
    return [cli] { return run_solve(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(solve, "solve",
                    "Check, then time a Krylov iteration: GB/s against the copy bandwidth, "
                    "1x1 overhead",
                    loom::cli::setup);
