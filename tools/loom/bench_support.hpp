// What the `loom bench` subcommands share: the benchmarked matrix and the JSON
// report.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/run_options.hpp"
#include "cli_support.hpp"
#include "command.hpp"

namespace loom::cli {

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
    /// Generates `fallback` when neither a file nor --generate was given.
    void default_to(const std::string& fallback)
    {
        if (path.empty() && spec.empty()) spec = fallback;
    }

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

/// The options every benchmark of one kernel takes: the execution options (where it runs,
/// the value type, the JSON report), how many samples, and the size of the
/// bandwidth-measuring copy.
struct BenchRun : ExecOptions {
    int reps;
    std::size_t copy_mib = 0;

    explicit BenchRun(int default_reps) : reps(default_reps) {}
    /// Declares --exec, --threads, --type, --json, --reps and, for a benchmark that reports a
    /// fraction of the copy bandwidth, --copy-mib.
    void add_to(CLI::App& sub, bool copy_bandwidth = true);
    std::size_t copy_bytes() const { return copy_mib << 20; }

    /// The options of a benchmark driver (a bench::RunOptions) with what this run says:
    /// --exec, --reps, the matrix's name and, for a driver that measures the copy bandwidth,
    /// --copy-mib.
    template <typename Options>
    Options options(const std::string& matrix_name = {}) const
    {
        static_assert(std::is_base_of_v<bench::RunOptions, Options>);
        Options options;
        options.exec = executor();
        options.samples = reps;
        options.matrix_name = matrix_name;
        if constexpr (requires { options.copy_bytes; }) options.copy_bytes = copy_bytes();
        return options;
    }
};

/// Writes the report to path (nothing when path is empty); IoError when it
/// cannot.
void write_json(const std::string& path, const nlohmann::ordered_json& report);

/// Runs a benchmark of one matrix: builds `source` in the value type --type names, and writes
/// the report bench(A) returns to --json.
template <typename Bench>
int run_on_matrix(const ExecOptions& run, const MatrixSource& source, Bench&& bench)
{
    return with_value_type(run.type, [&]<typename V>(std::type_identity<V>) {
        write_json(run.json, bench(source.build<V>()));
        return exit_ok;
    });
}

}  // namespace loom::cli
