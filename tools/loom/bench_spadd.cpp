// loom bench spadd: the command-line side of bench/spadd_bench.
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/spadd_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"
#include "loom/sparse/csr_utils.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "random:1000000:1000000:30";

struct SpaddBenchCli {
    std::string a_path;
    std::string b_path;
    std::string a_spec;
    std::string b_spec;
    std::string peer = "none";
    BenchRun run{20};
};

/// The spec of a second random matrix like the one `spec` describes: its seed plus one.
/// Poisson specs (no seed) describe one matrix: B = A.
std::string next_seed(const std::string& spec)
{
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (auto colon = spec.find(':'); colon != std::string::npos; colon = spec.find(':', start)) {
        fields.push_back(spec.substr(start, colon - start));
        start = colon + 1;
    }
    fields.push_back(spec.substr(start));
    const std::size_t seed_field = fields[0] == "random" ? 4 : fields[0] == "powerlaw" ? 3 : 0;
    if (seed_field == 0 || fields.size() < seed_field) return spec;
    const auto seed = fields.size() > seed_field ? std::stoull(fields[seed_field])
                                                 : matrix::default_generator_seed;
    fields.resize(seed_field + 1);
    fields[seed_field] = std::to_string(seed + 1);
    std::string result = fields[0];
    for (std::size_t i = 1; i < fields.size(); ++i) result += ":" + fields[i];
    return result;
}

template <typename V>
int run(std::type_identity<V>, const SpaddBenchCli& cli)
{
    bench::SpaddBenchOptions options;
    options.exec = cli.run.executor();
    options.peer = bench::parse_peer(cli.peer);
    options.samples = cli.run.reps;
    options.copy_bytes = cli.run.copy_bytes();
    const auto a_spec = cli.a_path.empty() && cli.a_spec.empty() ? default_spec : cli.a_spec;
    const auto A = a_spec.empty() ? read_matrix<V>(cli.a_path) : generate_matrix<V>(a_spec);
    options.a_name = a_spec.empty() ? cli.a_path : a_spec;
    std::optional<matrix::Csr<V, index_type>> B;
    if (!cli.b_path.empty()) {
        B = read_matrix<V>(cli.b_path);
        options.b_name = cli.b_path;
    } else if (!cli.b_spec.empty() || !a_spec.empty()) {
        options.b_name = cli.b_spec.empty() ? next_seed(a_spec) : cli.b_spec;
        B = generate_matrix<V>(options.b_name);
    } else {
        B = A.rows() == A.cols() ? sparse::transpose(A) : A;
        options.b_name = A.rows() == A.cols() ? "A^T" : "A";
    }
    write_json(cli.run.json, bench::bench_spadd(A, *B, options));
    return exit_ok;
}

Runner setup(CLI::App& sub_app)
{
    auto cli = std::make_shared<SpaddBenchCli>();
    auto* sub = &sub_app;
    auto* a_file = sub->add_option("A", cli->a_path, "Matrix A (.mtx or .bin)");
    sub->add_option("B", cli->b_path, "Matrix B of A's shape (.mtx or .bin)");
    auto* a_spec = sub->add_option("--generate", cli->a_spec,
                                   std::string("Generate A instead (SPEC below; default ") +
                                       default_spec + ")");
    sub->add_option("--generate-b", cli->b_spec, "Generate B instead (SPEC below)");
    a_file->excludes(a_spec);
    a_spec->excludes(a_file);
    cli->run.add_to(*sub);
    sub->add_option("--peer", cli->peer,
                    "Library timed alongside: cusparse (csrgeam2, CUDA) or eigen (host)")
        ->check(CLI::IsMember(names_of(bench::Peer{}).spellings()))
        ->capture_default_str();
    sub->footer(fmt::format(
        "B defaults to: the generator spec of A with the next seed (the same matrix for\n"
        "Poisson specs); for a file A, A^T when A is square, else A.\n"
        "Results are first checked against the reference backend (pattern exactly, values to\n"
        "rounding); a wrong result aborts the run.\n"
        "  GB/s      numeric phase: bytes / time, bytes = {}\n"
        "  of copy   GB/s over the copy bandwidth measured in this run\n"
        "  vs peer   peer time / Loom time for the same phase (> 1: Loom is faster); Eigen\n"
        "            builds pattern and values in one pass, compared with Loom's total\n"
        "SPEC:\n{}",
        bench::spadd_bytes_formula, generator_help));
    return runner_in_value_type(cli);
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(spadd, "spadd",
                    "Check, then time C = 2 A - B (symbolic and numeric) against a peer",
                    loom::cli::setup);
