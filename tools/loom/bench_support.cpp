#include "bench_support.hpp"

#include <fstream>

#include <fmt/core.h>

namespace loom::cli {

void write_json(const std::string& path, const nlohmann::ordered_json& report)
{
    if (path.empty()) return;
    std::ofstream out(path);
    out << report.dump(2) << '\n';
    if (!out) throw IoError("loom bench", "cannot write '" + path + "'");
    fmt::print("\nwrote {}\n", path);
}

}  // namespace loom::cli
