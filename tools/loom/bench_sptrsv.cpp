// loom bench sptrsv: the command-line side of bench/sptrsv_bench.
#include <memory>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/sptrsv_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/cholmod.hpp"
#include "loom/sparse/ilu.hpp"
#include "loom/sparse/triangle.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:160";

struct SptrsvBenchCli {
    MatrixSource source;
    bool upper = false;
    bool unit = false;
    std::string op = "n";
    bool cholesky = false;
    bool detect_supernodes = false;
    bool ilu0 = false;
    BenchRun run{20};
};

int run_sptrsv(const SptrsvBenchCli& cli)
{
    bench::SptrsvBenchOptions options;
    options.exec = cli.run.executor();
    options.samples = cli.run.reps;
    options.copy_bytes = cli.run.copy_bytes();
    options.solve.uplo = cli.upper ? blas::Uplo::upper : blas::Uplo::lower;
    options.solve.diag = cli.unit ? blas::Diag::unit : blas::Diag::non_unit;
    options.solve.op = blas::parse_op(cli.op);
    auto source = cli.source;
    if (source.path.empty() && source.spec.empty()) source.spec = default_spec;
    options.matrix_name = fmt::format("{} of {}", cli.upper ? "triu" : "tril", source.name());
    if (cli.cholesky) {
        if (cli.upper)
            throw BadInput("loom bench sptrsv", "--cholesky solves with L (--op t: L^T)");
        options.matrix_name = fmt::format("CHOLMOD's L of {}", source.name());
    }
    if (cli.ilu0) {
        if (cli.cholesky) throw BadInput("loom bench sptrsv", "--ilu0 and --cholesky exclude each other");
        options.matrix_name = fmt::format("ILU(0)'s {} of {}", cli.upper ? "U" : "L", source.name());
    }
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        if (cli.ilu0) {
            const auto A = source.build<V>();
            matrix::Csr<V, index_type> L, U;
            sparse::IluHandle<V, index_type> handle;
            sparse::ilu_symbolic(handle, A, L, U);
            sparse::ilu_numeric(handle, A, L, U);
            write_json(cli.run.json, bench::bench_sptrsv(cli.upper ? U : L, options));
            return exit_ok;
        }
        if (!cli.cholesky) {
            const auto T = sparse::triangle(source.build<V>(), options.solve.uplo);
            write_json(cli.run.json, bench::bench_sptrsv(T, options));
            return exit_ok;
        }
        auto factor = sparse::cholmod_cholesky(source.build<V>());
        if (!cli.detect_supernodes) options.solve.supernodes = factor.supernodes;
        write_json(cli.run.json, bench::bench_sptrsv(factor.L, options));
        return exit_ok;
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SptrsvBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin); its triangle is solved with");
    cli->run.add_to(sub);
    sub.add_flag("--upper", cli->upper, "Solve with the upper triangle (default: lower)");
    sub.add_flag("--unit", cli->unit, "Take the diagonal as all ones");
    sub.add_option("--op", cli->op, "op(T): n = T, t = T^T, h = T^H")
        ->check(CLI::IsMember({"n", "t", "h"}))
        ->capture_default_str();
    sub.add_flag("--cholesky", cli->cholesky,
                 "Solve with the Cholesky factor L of the (SPD) matrix by CHOLMOD's supernodal "
                 "factorization (builds with CHOLMOD only), supernodal with CHOLMOD's supernodes");
    sub.add_flag("--ilu0", cli->ilu0,
                 "Solve with the matrix's ILU(0) factor L (U with --upper) instead of its "
                 "triangle (the factors an ILU(0) preconditioner solves with)");
    sub.add_flag("--detect-supernodes", cli->detect_supernodes,
                 "With --cholesky: supernodal finds its supernodes itself");
    sub.footer(fmt::format(
        "Default matrix: the lower triangle of {}; e.g. --cholesky poisson3d:64 or\n"
        "--cholesky poisson3d:40:27 for supernodal's target factors. Every algorithm that runs\n"
        "on the executor is timed (level_set, supernodal; on CUDA also sync_free and vendor =\n"
        "cuSPARSE SpSV), each first checked against the reference backend; a wrong result aborts "
        "the run.\n"
        "  analysis    sptrsv_symbolic (cuSPARSE: bufferSize + SpSV_analysis)\n"
        "  numeric     sptrsv_numeric, new values (cuSPARSE: SpSV_updateMatrix)\n"
        "  solve       one right-hand side\n"
        "  GB/s        solve: bytes / time, bytes = {}\n"
        "  of copy     GB/s over the copy bandwidth measured in this run\n"
        "  vs cusparse cuSPARSE's time / this time for the same phase (> 1: faster)\n"
        "SPEC:\n{}",
        default_spec, bench::sptrsv_bytes_formula, generator_help));
    return [cli] { return run_sptrsv(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(sptrsv, "sptrsv",
                    "Check, then time SpTRSV analysis, value update and solve per algorithm",
                    loom::cli::setup);
