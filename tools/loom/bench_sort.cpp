// loom bench sort: the command-line side of bench/sort_bench.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/sort_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct SortBenchCli {
    bench::SortBenchOptions options;
    BenchRun run{10};
};

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SortBenchCli>();
    sub.add_option("--keys", cli->options.keys, "Keys of the whole-array sort")
        ->capture_default_str();
    sub.add_option("--segments", cli->options.segments, "Segments of the segmented sort")
        ->capture_default_str();
    sub.add_option("--min-length", cli->options.min_length, "Shortest segment")
        ->capture_default_str();
    sub.add_option("--max-length", cli->options.max_length, "Longest segment")
        ->capture_default_str();
    cli->run.add_to(sub, false);
    sub.footer(
        "Random int32 keys. Each sort is first checked against std::sort. The peers:\n"
        "CUB's radix sort and segmented sort on CUDA, std::sort on the host.");
    return [cli] {
        auto options = cli->options;
        options.exec = cli->run.executor();
        options.samples = cli->run.reps;
        write_json(cli->run.json, bench::bench_sort(options));
        return exit_ok;
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(sort, "sort", "Check, then time the bitonic sorts against CUB or std::sort",
                    loom::cli::setup);
