// loom bench ilu: the command-line side of bench/ilu_bench.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/ilu_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:40";

struct IluBenchCli {
    std::string path;
    std::string spec;
    std::string kind = "ilu0";
    int level = 1;
    int sweeps = 5;
    int steps = 3;
    double fill_limit = 2.0;
    std::string peer = "csrilu02";
    BenchRun run{10};
};

template <typename V>
int run(const IluBenchCli& cli)
{
    bench::IluBenchOptions options;
    options.exec = cli.run.executor();
    options.csrilu02 = cli.peer == "csrilu02";
    options.peer = options.csrilu02 ? bench::Peer::none : bench::parse_peer(cli.peer);
    options.samples = cli.run.reps;
    options.factorization = {.kind = sparse::parse_ilu_kind(cli.kind),
                             .level = cli.level,
                             .sweeps = cli.sweeps,
                             .steps = cli.steps,
                             .fill_limit = cli.fill_limit};
    const auto spec = cli.path.empty() && cli.spec.empty() ? default_spec : cli.spec;
    const auto A = spec.empty() ? read_matrix<V>(cli.path) : generate_matrix<V>(spec);
    options.a_name = spec.empty() ? cli.path : spec;
    write_json(cli.run.json, bench::bench_ilu(A, options));
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<IluBenchCli>();
    auto* file = sub.add_option("A", cli->path, "Square matrix A (.mtx or .bin)");
    auto* spec = sub.add_option("--generate", cli->spec,
                                std::string("Generate A instead (SPEC below; default ") +
                                    default_spec + ")");
    file->excludes(spec);
    spec->excludes(file);
    sub.add_option("--kind", cli->kind,
                   "ilu0, iluk, ic0, ick, parilu, paric, parilut, parict (ict) or ilut (Saad's)")
        ->capture_default_str();
    sub.add_option("--level", cli->level, "Level of fill of iluk / ick")->capture_default_str();
    sub.add_option("--sweeps", cli->sweeps, "Sweeps of the numeric phase (par kinds)")
        ->capture_default_str();
    sub.add_option("--steps", cli->steps, "Steps of the threshold kinds' pattern search")
        ->capture_default_str();
    sub.add_option("--fill-limit", cli->fill_limit, "Threshold kinds: nnz kept / nnz(A)")
        ->capture_default_str();
    cli->run.add_to(sub);
    sub.add_option("--peer", cli->peer,
                   "Library timed alongside: eigen (IncompleteLUT / IncompleteCholesky, host) "
                   "or csrilu02 (cuSPARSE ILU(0), CUDA: run last, a failure printed as "
                   "\"csrilu02: <status>\"; a CUDA run then also times Loom's OpenMP numeric)")
        ->check(CLI::IsMember({"none", "eigen", "csrilu02"}))
        ->capture_default_str();
    sub.footer(fmt::format(
        "Loom's factors are first checked against the reference backend; a wrong result\n"
        "aborts the run. Eigen's factorizations differ from Loom's (IncompleteLUT is a\n"
        "threshold ILU): compare the quality line, ||A M^-1 b - b|| / ||b||, with the times.\n"
        "SPEC:\n{}",
        generator_help));
    return [cli] {
        return with_value_type(cli->run.type,
                               [&]<typename V>(std::type_identity<V>) { return run<V>(*cli); });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(ilu, "ilu",
                    "Check, then time incomplete factorizations (symbolic, numeric, solve) "
                    "against a peer",
                    loom::cli::setup);
