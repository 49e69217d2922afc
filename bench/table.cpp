#include "bench/table.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace loom::bench {

void Table::print(std::FILE* out) const
{
    std::vector<std::size_t> widths(header_.size());
    const auto widen = [&](const std::vector<std::string>& cells) {
        for (std::size_t c = 0; c < std::min(cells.size(), widths.size()); ++c) {
            widths[c] = std::max(widths[c], cells[c].size());
        }
    };
    widen(header_);
    for (const auto& row : rows_) widen(row);

    const auto print_row = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (std::size_t c = 0; c < widths.size(); ++c) {
            const std::string& cell = c < cells.size() ? cells[c] : std::string{};
            line += c == 0 ? fmt::format("{:<{}}", cell, widths[c])
                           : fmt::format("  {:>{}}", cell, widths[c]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        fmt::print(out, "{}\n", line);
    };
    print_row(header_);
    std::size_t total = 0;
    for (auto w : widths) total += w + 2;
    fmt::print(out, "{}\n", std::string(total > 2 ? total - 2 : 0, '-'));
    for (const auto& row : rows_) print_row(row);
}

}  // namespace loom::bench
