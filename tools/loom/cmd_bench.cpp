// loom bench <name>: benchmarks that check, time and compare, with a table and
// JSON. Each is a bench_<name>.cpp registered with LOOM_REGISTER_BENCH.
#include "command.hpp"

namespace loom::cli {
namespace {

Runner setup(CLI::App& sub) { return add_registered<CommandList::bench>(sub); }

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(bench,
                      "Benchmarks, each checked against the reference and timed against a peer",
                      loom::cli::setup);
