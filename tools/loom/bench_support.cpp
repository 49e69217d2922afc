#include "bench_support.hpp"

#include <fmt/core.h>

#include "output_file.hpp"

namespace loom::cli {

void BenchRun::add_to(CLI::App& sub, bool copy_bandwidth)
{
    add_exec_options(sub, *this, {.exec = true, .type = TypeOption::named, .json = true});
    sub.add_option("--reps", reps, "Timed samples; the median is reported")
        ->check(positive_number())
        ->capture_default_str();
    if (!copy_bandwidth) return;
    sub.add_option("--copy-mib", copy_mib,
                   "MiB copied to measure the bandwidth (default 512 host, 1024 GPU)")
        ->check(positive_number());
}

void write_json(const std::string& path, const nlohmann::ordered_json& report)
{
    if (path.empty()) return;
    write_text_output(path, report.dump(2) + '\n');
    fmt::print("\nwrote {}\n", path);
}

}  // namespace loom::cli
