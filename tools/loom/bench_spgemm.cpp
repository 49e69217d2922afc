// loom bench spgemm: C = A * A, checked against an oracle, then the symbolic phase, the
// numeric phase and the whole product timed against a peer in the same run.
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/spgemm_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct SpgemmBenchCli {
    MatrixSource source;
    std::string peer = "none";
    bool unsorted = false;
    size_type check_limit = 4'000'000;
    double reuse_limit_gib = 8;
    BenchRun run{5};
};

int run_bench(const SpgemmBenchCli& cli)
{
    bench::SpgemmBenchOptions options;
    options.exec = cli.run.executor();
    options.peer = bench::parse_peer(cli.peer);
    options.samples = cli.run.reps;
    options.matrix_name = cli.source.name();
    options.sort_output = !cli.unsorted;
    options.check_limit = cli.check_limit;
    options.reuse_memory_limit = static_cast<size_type>(cli.reuse_limit_gib * (1 << 30));
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        write_json(cli.run.json, bench::bench_spgemm(cli.source.build<V>(), options));
        return exit_ok;
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SpgemmBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin), square");
    cli->run.add_to(sub, false);
    sub.add_option("--peer", cli->peer,
                   "Library timed alongside: cusparse (CUDA) or eigen (host, if built with it)")
        ->check(CLI::IsMember(names_of(bench::Peer{}).spellings()))
        ->capture_default_str();
    sub.add_flag("--unsorted", cli->unsorted, "Leave the columns of C's rows unsorted");
    sub.add_option("--check-limit", cli->check_limit,
                   "Multiply-adds the oracle may cost; beyond, a sample of rows (the longest "
                   "and evenly spread stretches)")
        ->check(positive_number())
        ->capture_default_str();
    sub.add_option("--reuse-limit", cli->reuse_limit_gib,
                   "GiB a handle may keep for values-only repeated numeric calls "
                   "(SpgemmOptions::reuse_memory_limit; 0: no record, CUDA then looks up "
                   "C's known columns)")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    sub.footer(fmt::format(
        "Every kernel's C is first checked against an oracle, the reference backend (OpenMP\n"
        "runs) or Loom's OpenMP SpGEMM (CUDA runs), on every row or a sample (--check-limit;\n"
        "error relative to |A||A| per entry); a wrong result aborts the run. Then: warm-up,\n"
        "and the median of\n"
        "--reps samples of each phase.\n"
        "  symbolic  the pattern of C (a fresh handle each time; allocates C)\n"
        "  numeric   columns and values, repeated on one handle (includes the check that the\n"
        "            pattern of A did not change, from A's cached fingerprint)\n"
        "  total     sparse::spgemm(A, A): both phases, allocation included\n"
        "  GFLOP/s   {}\n"
        "  vs peer   peer time / Loom time (> 1: Loom is faster); cusparse is Loom's\n"
        "            SpgemmAlgorithm::vendor (reuse API for the phases, the one-call API for\n"
        "            total); eigen is Eigen's SparseMatrix<V, RowMajor> product (one thread)\n"
        "SPEC:\n{}",
        bench::spgemm_flops_formula, generator_help));
    sub.callback([cli] { cli->source.require(); });
    return [cli] { return run_bench(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(spgemm, "spgemm", "Check, then time C = A*A against a peer",
                    loom::cli::setup);
