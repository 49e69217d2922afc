// loom bench ilu: the command-line side of bench/ilu_bench.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/ilu_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"
#include "ilu_options.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:40";

/// The library timed next to Loom: csrilu02 is the library's own vendor path
/// (sparse::IluAlgorithm::vendor), eigen a bench::Peer.
enum class IluPeer { none, eigen, csrilu02 };

LOOM_NAME_TABLE(IluPeer, ilu_peer_names, "ILU peer",
    {IluPeer::none, "none", "no peer"},
    {IluPeer::eigen, "eigen", "Eigen IncompleteLUT / IncompleteCholesky (host)"},
    {IluPeer::csrilu02, "csrilu02", "cuSPARSE csrilu02 (ILU(0), CUDA)"},
);

struct IluBenchCli {
    std::string path;
    std::string spec;
    IluCli factorization;
    std::string peer = "csrilu02";
    BenchRun run{10};
};

template <typename V>
int run(const IluBenchCli& cli)
{
    bench::IluBenchOptions options;
    options.exec = cli.run.executor();
    const auto peer = names_of(IluPeer{}).parse(cli.peer, "loom bench ilu");
    options.csrilu02 = peer == IluPeer::csrilu02;
    options.peer = peer == IluPeer::eigen ? bench::Peer::eigen : bench::Peer::none;
    options.samples = cli.run.reps;
    options.factorization = cli.factorization.options("loom bench ilu");
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
    cli->factorization.add_to(sub, "--kind");
    cli->run.add_to(sub);
    add_choice<IluPeer>(sub, "--peer", cli->peer,
                        "Library timed alongside (listed below); csrilu02 runs last, a failure "
                        "printed as \"csrilu02: <status>\"; a CUDA run then also times Loom's "
                        "OpenMP numeric");
    sub.footer(fmt::format(
        "Loom's factors are first checked against the reference backend; a wrong result\n"
        "aborts the run. Eigen's factorizations differ from Loom's (IncompleteLUT is a\n"
        "threshold ILU): compare the quality line, ||A M^-1 b - b|| / ||b||, with the times.\n"
        "KIND:\n{}PEER:\n{}SPEC:\n{}",
        names_of(sparse::IluKind{}).help(), names_of(IluPeer{}).help(), generator_help));
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
