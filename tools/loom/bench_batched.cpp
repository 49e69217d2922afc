// loom bench batched ROUTINE --n 3..32 --batch 163840 [--mode ..] [--peer ..]
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/batched_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct BatchedBenchCli {
    std::string routine;
    std::string orders = "3,5,8,16,32";
    size_type batch = 163840;
    std::string mode = "auto";
    std::string peer = "none";
    size_type check = 512;
    BenchRun run{20};
};

int run(const BatchedBenchCli& cli)
{
    bench::BatchedBenchOptions options;
    options.exec = cli.run.executor();
    options.routine = bench::parse_batched_routine(cli.routine);
    options.orders = bench::parse_orders(cli.orders);
    options.batch = cli.batch;
    options.launch = batched::parse_launch(cli.mode);
    options.peer = bench::parse_batched_peer(cli.peer);
    options.samples = cli.run.reps;
    options.check_count = cli.check;
    options.copy_bytes = cli.run.copy_bytes();
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        write_json(cli.run.json, bench::bench_batched<V>(options));
        return exit_ok;
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<BatchedBenchCli>();
    cli->run.add_to(sub);
    sub.add_option("routine", cli->routine, "Routine")
        ->required()
        ->check(CLI::IsMember(names_of(bench::BatchedRoutine{}).spellings()));
    sub.add_option("--n", cli->orders, "Matrix orders: 3..32 (each), 3,5,8 or 16")
        ->capture_default_str();
    sub.add_option("--batch", cli->batch, "Matrices per call")
        ->check(positive_number())
        ->capture_default_str();
    sub.add_option("--mode", cli->mode, "Launch of the batched routines")
        ->check(CLI::IsMember(names_of(batched::Launch{}).spellings()))
        ->capture_default_str();
    sub.add_option("--peer", cli->peer,
                    "Library timed alongside: cublas (CUDA: gemm, getrf, trsm, potrf via cuSOLVER, qr) "
                    "or openblas (host, "
                    "builds with LOOM_WITH_BLAS)")
        ->check(CLI::IsMember(names_of(bench::BatchedPeer{}).spellings()))
        ->capture_default_str();
    sub.add_option("--check", cli->check, "Matrices checked against the reference backend")
        ->check(positive_number())
        ->capture_default_str();
    sub.footer(fmt::format(
        "Each order is first checked on the first --check matrices against the reference\n"
        "backend (the peer too); a wrong result aborts the run. Then: warm-up, and the median of\n"
        "--reps samples. Routines that overwrite their input get it restored before every call;\n"
        "that copy is timed on its own and subtracted. The batch repeats 2048 random matrices.\n"
        "  modes     serial (a thread per matrix), team, teamvector (a team per matrix), simd\n"
        "            (host, real values: SIMD packs of matrices), vendor (the peer library), auto\n"
        "            (CUDA: serial for n <= 8, teamvector above; host: serial)\n"
        "  vs peer   peer time / Loom time (> 1: Loom is faster); cublas times\n"
        "            gemmStridedBatched, getrfBatched alone, trsmBatched (with its pointer\n"
        "            arrays), cuSOLVER potrfBatched (with its pointer array), geqrfBatched alone\n"
        "            (on the stored batch: the column-major view factors the transposes)\n"
        "Bytes and flops per matrix:\n{}",
        bench::batched_counts_help));
    return [cli] { return run(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(batched, "batched",
                    "Check, then time a batched routine on many small matrices against a peer",
                    loom::cli::setup);
