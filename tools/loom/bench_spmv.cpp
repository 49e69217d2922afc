// loom bench spmv
#include <memory>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/spmv_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct SpmvBenchCli {
    MatrixSource source;
    std::vector<std::string> formats{"auto"};
    std::string algorithm = "auto";
    std::string peer = "none";
    BenchRun run{50};
};

int run_spmv(const SpmvBenchCli& cli)
{
    bench::SpmvBenchOptions options;
    options.exec = cli.run.executor();
    options.formats.clear();
    for (const auto& format : cli.formats)
        options.formats.push_back(bench::parse_spmv_format(format));
    options.algorithm = sparse::parse_spmv_algorithm(cli.algorithm);
    options.peer = bench::parse_peer(cli.peer);
    options.samples = cli.run.reps;
    options.matrix_name = cli.source.name();
    options.copy_bytes = cli.run.copy_bytes();
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        write_json(cli.run.json, bench::bench_spmv(cli.source.build<V>(), options));
        return exit_ok;
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SpmvBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin)");
    cli->run.add_to(sub);
    sub.add_option("--format", cli->formats, "Storage formats to time, comma-separated")
        ->delimiter(',')
        ->check(CLI::IsMember(names_of(bench::SpmvFormat{}).spellings()))
        ->capture_default_str();
    sub.add_option("--algorithm", cli->algorithm, "CSR kernel (vendor = cuSPARSE)")
        ->check(CLI::IsMember(names_of(sparse::SpmvAlgorithm{}).spellings()))
        ->capture_default_str();
    sub.add_option("--peer", cli->peer,
                   "Library timed alongside: cusparse (CUDA) or eigen (host, if "
                   "built with it)")
        ->check(CLI::IsMember(names_of(bench::Peer{}).spellings()))
        ->capture_default_str();
    sub.footer(
        fmt::format("Every kernel is first checked against the reference backend (error "
                    "relative to\n"
                    "|A||x| + |y|, per row); a wrong result aborts the run. Then: warm-up, "
                    "and the median\n"
                    "of --reps samples, each a batch of calls between two executor "
                    "synchronizations.\n"
                    "  GB/s      minimal bytes / time, bytes = {} with |T| = sizeof(T):\n"
                    "            x read, y read and written once, padding of ell/sellp not "
                    "counted\n"
                    "  GFLOP/s   2*nnz / time (8*nnz for complex values)\n"
                    "  of copy   GB/s over the copy bandwidth measured in this run (read + "
                    "write of a\n"
                    "            large device-to-device copy on CUDA, a parallel memcpy on "
                    "the host)\n"
                    "  vs peer   peer time / Loom time (> 1: Loom is faster); cusparse is "
                    "Loom's\n"
                    "            SpmvAlgorithm::vendor path, eigen is Eigen::SparseMatrix<V, "
                    "RowMajor> * x\n"
                    "            on the same OpenMP threads\n"
                    "SPEC:\n{}",
                    bench::spmv_bytes_formula, generator_help));
    sub.callback([cli] { cli->source.require(); });
    return [cli] { return run_spmv(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(spmv, "spmv", "Check, then time y = A*x + y against a peer", loom::cli::setup);
