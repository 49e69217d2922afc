// loom bench spmv
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/spmv_bench.hpp"
#include "bench_support.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct SpmvBenchCli {
    MatrixSource source;
    std::vector<std::string> formats{"auto"};
    std::string algorithm = "auto";
    std::string peer = "none";
    bool variants = false;
    bool transposed = false;
    std::vector<std::string> reorderings;
    BenchRun run{50};
};

int run_spmv(const SpmvBenchCli& cli)
{
    auto options = cli.run.options<bench::SpmvBenchOptions>(cli.source.name());
    options.formats.clear();
    for (const auto& format : cli.formats)
        options.formats.push_back(bench::parse_spmv_format(format));
    options.algorithm = sparse::parse_spmv_algorithm(cli.algorithm);
    options.peer = bench::parse_peer(cli.peer);
    options.variants = cli.variants;
    for (const auto& kind : cli.reorderings)
        options.reorderings.push_back(sparse::parse_reorder_kind(kind));
    return run_on_matrix(cli.run, cli.source, [&](const auto& A) {
        if (!cli.transposed) return bench::bench_spmv(A, options);
        options.matrix_name += " transposed";
        return bench::bench_spmv(sparse::transpose(A), options);
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SpmvBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin)");
    cli->run.add_to(sub);
    add_choice<bench::SpmvFormat>(sub, "--format", cli->formats,
                                  "Storage formats to time, comma-separated")
        ->delimiter(',');
    add_choice<sparse::SpmvAlgorithm>(sub, "--algorithm", cli->algorithm,
                                      "CSR kernel (vendor = cuSPARSE)");
    sub.add_flag("--variants", cli->variants,
                 "Also time every native CSR kernel");
    sub.add_flag("--transposed", cli->transposed,
                 "Time A^T instead of A (a power-law row pattern becomes power-law columns)");
    sub.add_option("--reorder", cli->reorderings,
                   "Also time --algorithm on the matrix renumbered by these (square only; "
                   "x and y permuted outside the timing), comma-separated")
        ->delimiter(',')
        ->check(CLI::IsMember(names_of(sparse::ReorderKind{}).spellings()));
    add_choice<bench::Peer>(sub, "--peer", cli->peer,
                            "Library timed alongside: cusparse (CUDA) or eigen (host, if "
                            "built with it)");
    sub.footer(
        fmt::format("Every kernel is first checked against a host oracle, OpenMP where built (error "
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
                    "  model GB/s  bytes with x counted as the 32-byte sectors each run of 32 "
                    "entries\n"
                    "            gathers (the 'x est.' line) instead of x read once, / time\n"
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
