// loom bench io
#include <memory>
#include <type_traits>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/io_bench.hpp"
#include "base/built_types.hpp"
#include "bench/temporary_file.hpp"
#include "bench_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct IoBenchCli {
    MatrixSource source;
    int reps = 5;
    ExecOptions report;  ///< --json only: the files are read on the host
};

int run_io(const IoBenchCli& cli)
{
    const auto bench_file = [&](const std::string& mtx_path, const std::string& type) {
        return with_value_type(type, [&]<typename V>(std::type_identity<V>) {
            write_json(cli.report.json, bench::bench_io<V, index_type>(mtx_path, cli.reps));
            return exit_ok;
        });
    };
    if (cli.source.spec.empty()) {
        if (file_format(cli.source.path) != FileFormat::matrix_market) {
            throw BadInput("loom bench io",
                           "needs a Matrix Market (.mtx) file, got '" + cli.source.path + "'");
        }
        const bool complex =
            matrix::read_mtx_header(cli.source.path).field == matrix::MtxField::complex;
        return bench_file(cli.source.path, complex ? "complex-double" : "double");
    }
    // A generated matrix is real: double, or float in a build without double (the fuzz build).
    using Real = std::conditional_t<detail::is_built_value_type<double>(), double, float>;
    const bench::TemporaryFile text(".mtx");
    matrix::write_mtx(text.string(), generate_matrix<Real>(cli.source.spec));
    return bench_file(text.string(), std::is_same_v<Real, double> ? "double" : "float");
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<IoBenchCli>();
    cli->source.add_to(sub, "Matrix Market file (.mtx)");
    sub.add_option("--reps", cli->reps, "Timed reads of each file; the median is reported")
        ->check(positive_number())
        ->capture_default_str();
    add_exec_options(sub, cli->report, {.json = true});
    sub.footer(std::string("SPEC:\n") + generator_help);
    sub.callback([cli] { cli->source.require(); });
    return [cli] { return run_io(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(io, "io",
                    "Time reading Matrix Market text (MB/s) against the binary format (GB/s)",
                    loom::cli::setup);
