// A plain-text table for benchmark reports: the first column left-aligned (names), the
// others right-aligned (numbers), every column as wide as its widest cell.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace loom::bench {

class Table {
public:
    explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}

    /// Missing trailing cells print empty.
    void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

    void print(std::FILE* out = stdout) const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace loom::bench
