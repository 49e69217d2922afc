// loom bench gemm
#include <memory>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/dense_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct GemmBenchCli {
    std::string routine = "gemm";
    std::vector<std::string> shapes{"64", "256", "1024"};
    double peak = 0;
    BenchRun run{20};
};

int run_gemm(const GemmBenchCli& cli)
{
    bench::DenseBenchOptions options;
    options.exec = cli.run.executor();
    options.routine = bench::parse_dense_routine(cli.routine);
    for (const auto& shape : cli.shapes) options.shapes.push_back(bench::parse_dense_shape(shape));
    options.samples = cli.run.reps;
    options.peak_gflops = cli.peak;
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        write_json(cli.run.json, bench::bench_dense<V>(options));
        return exit_ok;
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<GemmBenchCli>();
    cli->run.add_to(sub, false);
    add_choice<bench::DenseRoutine>(sub, "--routine", cli->routine, "Routine to time");
    sub.add_option("--shape", cli->shapes, "Shapes, comma-separated: N (N x N x N) or MxNxK")
        ->delimiter(',')
        ->capture_default_str();
    sub.add_option("--peak-gflops", cli->peak,
                   "Peak GFLOP/s of the machine, for the 'of peak' columns")
        ->check(positive_number());
    sub.footer(
        "Every path is first checked against the reference backend (relative "
        "Frobenius error;\n"
        "beyond 2 GFLOP against the vendor library instead, where there is one);\n"
        "a wrong result aborts the run. Then: warm-up, and the median of --reps "
        "samples.\n"
        "  native    Loom's kernels (Backend::native)\n"
        "  vendor    cuBLAS/cuSOLVER on CUDA, OpenBLAS/LAPACK on the host (only "
        "when built\n"
        "            with LOOM_WITH_BLAS; '-' otherwise)\n"
        "  auto      the default choice (Backend::automatic) for that shape\n"
        "Shapes: gemm C m x n with inner k; gemv A m x n; gemm_dot C m x n = "
        "A^T B with A k x m,\n"
        "B k x n; trsm/trmm A m x m lower, B m x n; getrf/trtri A m x m.\n"
        "GFLOP/s counts 2 per multiply-add (8 for complex): gemm 2mnk, gemv "
        "2mn, trsm/trmm m^2 n,\n"
        "getrf 2/3 m^3, trtri 1/3 m^3. FP64 peak of an H100 SXM: 67000 "
        "(tensor cores), 34000 without.");
    return [cli] { return run_gemm(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(gemm, "gemm",
                    "Check, then time dense BLAS/LAPACK (gemm, gemv, gemm_dot, "
                    "trsm, trmm, getrf, trtri): native against vendor",
                    loom::cli::setup);
