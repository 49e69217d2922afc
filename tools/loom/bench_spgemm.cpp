// loom bench spgemm: C = A * A, checked against an oracle, then the symbolic phase, the
// numeric phase and the whole product timed against a peer in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "loom/sparse/spgemm.hpp"

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
    /// Hidden: settings "NAME=VALUE[,NAME=VALUE]" of LOOM_SPGEMM_* environment variables (for
    /// a GPU round's experiments; "default" sets none), a handle timed under each one after
    /// the other (see run_sweep): the first numeric call of a default handle.
    std::vector<std::string> sweep;
    BenchRun run{5};
};

/// Seconds of f(), the executor synchronised before and after.
template <typename F>
double seconds(const Executor& exec, F&& f)
{
    exec.synchronize();
    const auto start = std::chrono::steady_clock::now();
    f();
    exec.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// For every setting of cli.sweep (environment variables set for the handle's phases): a
/// handle's symbolic phase, its first numeric call, its second (the first values-only call,
/// which makes the record) and the median of --reps more; and whether C's values are bitwise
/// those of the first setting's first call, after the first call and after the repeated ones
/// (every path sums each entry in product order).
int run_sweep(const SpgemmBenchCli& cli)
{
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        const auto exec = cli.run.executor();
        const matrix::Csr<V, index_type> A(exec, cli.source.build<V>());
        std::vector<V> first_values;
        fmt::print("{:<40} {:>9} {:>9} {:>10} {:>9} {:>9} {:>14} {}\n", "setting", "sym [ms]",
                   "1st [ms]", "2nd [ms]", "rep [ms]", "rec [GB]", "path", "bits");
        for (const auto& setting : cli.sweep) {
            std::vector<std::string> names;
            for (std::size_t at = 0; at < setting.size();) {
                const auto comma = std::min(setting.find(',', at), setting.size());
                const auto item = setting.substr(at, comma - at);
                const auto equals = item.find('=');
                if (equals != std::string::npos) {
                    names.push_back("LOOM_SPGEMM_" + item.substr(0, equals));
                    setenv(names.back().c_str(), item.substr(equals + 1).c_str(), 1);
                }
                at = comma + 1;
            }
            sparse::SpgemmHandle<V, index_type> handle(
                {.reuse_memory_limit = static_cast<size_type>(cli.reuse_limit_gib * (1 << 30))});
            matrix::Csr<V, index_type> C;
            const double symbolic =
                seconds(*exec, [&] { sparse::spgemm_symbolic(handle, A, A, C); });
            const double first = seconds(*exec, [&] { sparse::spgemm_numeric(handle, A, A, C); });
            const auto first_call = C.values().to_host();
            const double second = seconds(*exec, [&] { sparse::spgemm_numeric(handle, A, A, C); });
            std::vector<double> repeated;
            for (int rep = 0; rep < cli.run.reps; ++rep) {
                repeated.push_back(
                    seconds(*exec, [&] { sparse::spgemm_numeric(handle, A, A, C); }));
            }
            std::sort(repeated.begin(), repeated.end());
            if (first_values.empty()) first_values = first_call;
            const auto same_as_first = [&](const std::vector<V>& values) {
                return values.size() == first_values.size() &&
                       std::memcmp(values.data(), first_values.data(),
                                   values.size() * sizeof(V)) == 0;
            };
            const bool same = same_as_first(first_call) && same_as_first(C.values().to_host());
            fmt::print("{:<40} {:>9.2f} {:>9.2f} {:>10.2f} {:>9.2f} {:>9.2f} {:>14} {}\n", setting,
                       symbolic * 1e3, first * 1e3, second * 1e3,
                       repeated.empty() ? 0.0 : repeated[repeated.size() / 2] * 1e3,
                       handle.recorded_bytes() / 1e9, sparse::to_string(handle.values_path()),
                       same ? "same" : "DIFFERENT");
            std::fflush(stdout);  // each setting's line, whatever the next one does
            for (const auto& name : names) unsetenv(name.c_str());
        }
        return exit_ok;
    });
}

int run_bench(const SpgemmBenchCli& cli)
{
    if (!cli.sweep.empty()) return run_sweep(cli);
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
    sub.add_option("--sweep", cli->sweep,
                   "Time a handle's symbolic, first, second and repeated numeric calls under "
                   "these LOOM_SPGEMM_ settings, NAME=VALUE[,NAME=VALUE] each ('default': "
                   "none; no oracle check; bits compared to the first)")
        ->group("");
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
