// loom bench spmm | sddmm | fusedmm: for each --k, the kernel checked against the reference,
// then timed against a peer in the same run.
#include <memory>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/spmm_bench.hpp"
#include "bench_support.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "loom/sparse/spmm.hpp"

namespace loom::cli {
namespace {

struct SpmmBenchCli {
    MatrixSource source;
    std::vector<size_type> ks{32, 64, 128, 256};
    std::string peer = "none";
    std::string precision = "native";
    std::vector<std::string> algorithms;
    BenchRun run{20};
};

int run_bench(const SpmmBenchCli& cli, bench::SpmmKernel kernel)
{
    bench::SpmmBenchOptions options;
    options.exec = cli.run.executor();
    options.kernel = kernel;
    options.ks = cli.ks;
    options.peer = bench::parse_peer(cli.peer);
    options.precision = bench::parse_storage_precision(cli.precision);
    options.samples = cli.run.reps;
    options.matrix_name = cli.source.name();
    options.algorithms = cli.algorithms;
    options.copy_bytes = cli.run.copy_bytes();
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        write_json(cli.run.json, bench::bench_spmm(cli.source.build<V>(), options));
        return exit_ok;
    });
}

/// The command line of one of the three kernels.
Runner setup_for(CLI::App& sub, bench::SpmmKernel kernel)
{
    auto cli = std::make_shared<SpmmBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin)");
    cli->run.add_to(sub);
    sub.add_option("--k", cli->ks, "Columns of the dense operands, comma-separated")
        ->delimiter(',')
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    if (kernel == bench::SpmmKernel::spmm) {
        add_choice<sparse::SpmmAlgorithm>(sub, "--algorithms", cli->algorithms,
                                          "SpMM algorithms timed besides automatic on a GPU "
                                          "(default: every native one), comma-separated")
            ->delimiter(',');
    }
    sub.add_option("--peer", cli->peer,
                   "Library timed alongside: cusparse (CUDA) or eigen (host, spmm only)")
        ->check(CLI::IsMember(names_of(bench::Peer{}).spellings()))
        ->capture_default_str();
    sub.add_option("--precision", cli->precision,
                   "Storage of A's values and the dense operands: native (--type), or fp16 / "
                   "bf16 (16 bits, float sums; the cusparse peer in the same precision)")
        ->check(CLI::IsMember(names_of(bench::StoragePrecision{}).spellings()))
        ->capture_default_str();
    sub.footer(fmt::format(
        "Every kernel is first checked against the reference backend, or for a GPU run the\n"
        "OpenMP one (error relative to the largest entry; a GPU SpMM with over 4M entries of C:\n"
        "256 sampled rows and the longest, summed on the host; with --precision fp16 or bf16,\n"
        "256 sampled rows against fp64 sums of the same 16-bit inputs); a wrong result aborts\n"
        "the run. Then: warm-up, and the median of --reps samples. Dense operands are\n"
        "row-major, random in [-1, 1).\n"
        "  GB/s      minimal bytes / time, bytes = {}\n"
        "  GFLOP/s   {}\n"
        "  of copy   GB/s over the copy bandwidth measured in this run\n"
        "  of bound  (spmm on a GPU) the bound's time over the time: the bound moves A once, C\n"
        "            once and a row of B once per gather missing an LRU cache the size of L2\n"
        "            (stack distances of A's columns in row order), at the copy bandwidth\n"
        "  vs peer   peer time / Loom time (> 1: Loom is faster). cusparse: SpMM, SDDMM, or for\n"
        "            fusedmm SDDMM followed by SpMM (Loom's vendor paths); eigen: row-major\n"
        "            SparseMatrix times a row-major dense matrix on the same threads\n"
        "  spmv per column (spmm): k single-column SpMVs, A read once per column\n"
        "SPEC:\n{}",
        bench::spmm_bytes_formula, bench::spmm_flops_formula, generator_help));
    sub.callback([cli] { cli->source.require(); });
    return [cli, kernel] { return run_bench(*cli, kernel); };
}

Runner setup_spmm(CLI::App& sub) { return setup_for(sub, bench::SpmmKernel::spmm); }
Runner setup_sddmm(CLI::App& sub) { return setup_for(sub, bench::SpmmKernel::sddmm); }
Runner setup_fusedmm(CLI::App& sub) { return setup_for(sub, bench::SpmmKernel::fusedmm); }

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(spmm, "spmm", "Check, then time C = A*B (B dense) against a peer, per k",
                    loom::cli::setup_spmm);
LOOM_REGISTER_BENCH(sddmm, "sddmm", "Check, then time S = (X Y^T) o pattern(A), per k",
                    loom::cli::setup_sddmm);
LOOM_REGISTER_BENCH(fusedmm, "fusedmm",
                    "Check, then time Z = (X Y^T o pattern(A)) W against SDDMM + SpMM, per k",
                    loom::cli::setup_fusedmm);
