// loom bench spmv | io: benchmarks that check, time and compare, with a table and JSON.
#include <fstream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/io_bench.hpp"
#include "bench/spmv_bench.hpp"
#include "bench/temporary_file.hpp"
#include "cli_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

/// Where the benchmarked matrix comes from: a file or a generator spec.
struct MatrixSource {
    std::string path;
    std::string spec;

    void add_to(CLI::App& sub, const std::string& file_help)
    {
        auto* file = sub.add_option("matrix", path, file_help);
        auto* generate =
            sub.add_option("--generate", spec, "Generate the matrix instead (SPEC below)");
        file->excludes(generate);
        generate->excludes(file);
    }
    std::string name() const { return spec.empty() ? path : spec; }

    /// Called once the command line is parsed: one of the two is needed.
    void require() const
    {
        if (path.empty() && spec.empty()) {
            throw CLI::RequiredError("a matrix file or --generate SPEC");
        }
    }

    template <typename V>
    matrix::Csr<V, index_type> build() const
    {
        return spec.empty() ? read_matrix<V>(path) : generate_matrix<V>(spec);
    }
};

void write_json(const std::string& path, const nlohmann::ordered_json& report)
{
    if (path.empty()) return;
    std::ofstream out(path);
    out << report.dump(2) << '\n';
    if (!out) throw IoError("loom bench", "cannot write '" + path + "'");
    fmt::print("\nwrote {}\n", path);
}

struct SpmvBenchCli {
    MatrixSource source;
    std::string exec = default_executor();
    int threads = 0;
    std::vector<std::string> formats{"auto"};
    std::string algorithm = "auto";
    std::string peer = "none";
    int reps = 50;
    std::string type = "double";
    std::string json;
    std::size_t copy_mib = 0;
};

int run_spmv(const SpmvBenchCli& cli)
{
    bench::SpmvBenchOptions options;
    options.exec = make_executor(cli.exec, cli.threads);
    options.formats.clear();
    for (const auto& format : cli.formats)
        options.formats.push_back(bench::parse_spmv_format(format));
    options.algorithm = sparse::parse_spmv_algorithm(cli.algorithm);
    options.peer = bench::parse_peer(cli.peer);
    options.samples = cli.reps;
    options.matrix_name = cli.source.name();
    options.copy_bytes = cli.copy_mib << 20;
    return with_value_type(cli.type, [&]<typename V>(std::type_identity<V>) {
        write_json(cli.json, bench::bench_spmv(cli.source.build<V>(), options));
        return exit_ok;
    });
}

void add_spmv(CLI::App& bench, const std::shared_ptr<SpmvBenchCli>& cli)
{
    auto* sub = bench.add_subcommand("spmv", "Check, then time y = A*x + y against a peer");
    cli->source.add_to(*sub, "Matrix file (.mtx or .bin)");
    sub->add_option("--exec", cli->exec, "Backend: reference, omp, cuda or cuda:N")
        ->capture_default_str();
    sub->add_option("--threads", cli->threads, "OpenMP threads (default: all)")
        ->check(CLI::PositiveNumber);
    sub->add_option("--format", cli->formats, "Storage formats to time, comma-separated")
        ->delimiter(',')
        ->check(CLI::IsMember({"auto", "csr", "coo", "ell", "sellp"}))
        ->capture_default_str();
    sub->add_option("--algorithm", cli->algorithm, "CSR kernel (vendor = cuSPARSE)")
        ->check(CLI::IsMember({"auto", "row_vector", "load_balanced", "vendor"}))
        ->capture_default_str();
    sub->add_option("--peer", cli->peer,
                    "Library timed alongside: cusparse (CUDA) or eigen (host, if built with it)")
        ->check(CLI::IsMember({"none", "cusparse", "eigen"}))
        ->capture_default_str();
    sub->add_option("--reps", cli->reps, "Timed samples; the median is reported")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_option("--type", cli->type, "Value type")
        ->check(CLI::IsMember(value_type_names))
        ->capture_default_str();
    sub->add_option("--json", cli->json, "Also write every number to this JSON file");
    sub->add_option("--copy-mib", cli->copy_mib,
                    "MiB copied to measure the bandwidth (default 512 host, 1024 GPU)")
        ->check(CLI::PositiveNumber);
    sub->footer(fmt::format(
        "Every kernel is first checked against the reference backend (error relative to\n"
        "|A||x| + |y|, per row); a wrong result aborts the run. Then: warm-up, and the median\n"
        "of --reps samples, each a batch of calls between two executor synchronizations.\n"
        "  GB/s      minimal bytes / time, bytes = {} with |T| = sizeof(T):\n"
        "            x read, y read and written once, padding of ell/sellp not counted\n"
        "  GFLOP/s   2*nnz / time (8*nnz for complex values)\n"
        "  of copy   GB/s over the copy bandwidth measured in this run (read + write of a\n"
        "            large device-to-device copy on CUDA, a parallel memcpy on the host)\n"
        "  vs peer   peer time / Loom time (> 1: Loom is faster); cusparse is Loom's\n"
        "            SpmvAlgorithm::vendor path, eigen is Eigen::SparseMatrix<V, RowMajor> * x\n"
        "            on the same OpenMP threads\n"
        "SPEC:\n{}",
        bench::spmv_bytes_formula, generator_help));
    sub->callback([cli] { cli->source.require(); });
}

struct IoBenchCli {
    MatrixSource source;
    int reps = 5;
    std::string json;
};

int run_io(const IoBenchCli& cli)
{
    const auto bench_file = [&](const std::string& mtx_path, const std::string& type) {
        return with_value_type(type, [&]<typename V>(std::type_identity<V>) {
            write_json(cli.json, bench::bench_io<V, index_type>(mtx_path, cli.reps));
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
    const bench::TemporaryFile text(".mtx");
    matrix::write_mtx(text.string(), generate_matrix<double>(cli.source.spec));
    return bench_file(text.string(), "double");
}

void add_io(CLI::App& bench, const std::shared_ptr<IoBenchCli>& cli)
{
    auto* sub = bench.add_subcommand(
        "io", "Time reading Matrix Market text (MB/s) against the binary format (GB/s)");
    cli->source.add_to(*sub, "Matrix Market file (.mtx)");
    sub->add_option("--reps", cli->reps, "Timed reads of each file; the median is reported")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_option("--json", cli->json, "Also write every number to this JSON file");
    sub->footer(std::string("SPEC:\n") + generator_help);
    sub->callback([cli] { cli->source.require(); });
}

Runner setup(CLI::App& sub)
{
    sub.require_subcommand(1);
    auto spmv = std::make_shared<SpmvBenchCli>();
    auto io = std::make_shared<IoBenchCli>();
    add_spmv(sub, spmv);
    add_io(sub, io);
    return [&sub, spmv, io] {
        return sub.get_subcommand("spmv")->parsed() ? run_spmv(*spmv) : run_io(*io);
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(bench, "Benchmarks: spmv (against cuSPARSE or Eigen), io", loom::cli::setup);
