#include "bench_support.hpp"

#include <fstream>

#include <fmt/core.h>

namespace loom::cli {

void BenchRun::add_to(CLI::App& sub, bool copy_bandwidth)
{
    add_exec_options(sub, *this, {.exec = true, .type = TypeOption::named, .json = true});
    sub.add_option("--reps", reps, "Timed samples; the median is reported")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    if (!copy_bandwidth) return;
    sub.add_option("--copy-mib", copy_mib,
                   "MiB copied to measure the bandwidth (default 512 host, 1024 GPU)")
        ->check(CLI::PositiveNumber);
}

void write_json(const std::string& path, const nlohmann::ordered_json& report)
{
    if (path.empty()) return;
    std::ofstream out(path);
    out << report.dump(2) << '\n';
    if (!out) throw IoError("loom bench", "cannot write '" + path + "'");
    fmt::print("\nwrote {}\n", path);
}

}  // namespace loom::cli
