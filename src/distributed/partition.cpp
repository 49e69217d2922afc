#include "loom/distributed/partition.hpp"

#include <algorithm>
#include <string>

#include "loom/base/error.hpp"

namespace loom::distributed {
namespace {

constexpr const char* where_parts = "loom::distributed::Partition::from_parts";

}  // namespace

Partition Partition::contiguous(size_type rows, int parts)
{
    if (parts <= 0 || rows < 0) {
        throw BadInput("loom::distributed::Partition::contiguous",
                       std::to_string(rows) + " rows in " + std::to_string(parts) +
                           " parts: need rows >= 0 and parts >= 1");
    }
    std::vector<size_type> sizes(parts, rows / parts);
    for (size_type p = 0; p < rows % parts; ++p) ++sizes[p];
    return from_sizes(sizes);
}

Partition Partition::from_sizes(const std::vector<size_type>& sizes)
{
    if (sizes.empty()) throw BadInput("loom::distributed::Partition::from_sizes", "no parts");
    Partition p;
    p.part_sizes_ = sizes;
    p.begins_.push_back(0);
    for (std::size_t part = 0; part < sizes.size(); ++part) {
        if (sizes[part] < 0) {
            throw BadInput("loom::distributed::Partition::from_sizes",
                           "part " + std::to_string(part) + " has a negative size");
        }
        if (sizes[part] == 0) continue;
        p.run_parts_.push_back(static_cast<int>(part));
        p.run_locals_.push_back(0);
        p.begins_.push_back(p.begins_.back() + sizes[part]);
    }
    return p;
}

Partition Partition::from_parts(const std::vector<int>& part_of_row, int parts)
{
    if (parts <= 0) throw BadInput(where_parts, "need at least one part");
    Partition p;
    p.part_sizes_.assign(parts, 0);
    p.begins_.push_back(0);
    const auto n = static_cast<size_type>(part_of_row.size());
    for (size_type row = 0; row < n; ++row) {
        const int part = part_of_row[row];
        if (part < 0 || part >= parts) {
            throw BadInput(where_parts, "row " + std::to_string(row) + " is given part " +
                                            std::to_string(part) + ", owned by no rank of " +
                                            std::to_string(parts));
        }
        if (row == 0 || part != part_of_row[row - 1]) {
            if (row > 0) p.begins_.push_back(row);
            p.run_parts_.push_back(part);
            p.run_locals_.push_back(p.part_sizes_[part]);
        }
        ++p.part_sizes_[part];
    }
    if (n > 0) p.begins_.push_back(n);
    return p;
}

bool Partition::is_contiguous() const noexcept
{
    return std::is_sorted(run_parts_.begin(), run_parts_.end()) &&
           std::adjacent_find(run_parts_.begin(), run_parts_.end()) == run_parts_.end();
}

std::size_t Partition::run_of(size_type row) const
{
    if (row < 0 || row >= global_rows()) {
        throw OutOfRange("loom::distributed::Partition", "row", row, global_rows());
    }
    const auto next = std::upper_bound(begins_.begin(), begins_.end(), row);
    return static_cast<std::size_t>(next - begins_.begin()) - 1;
}

int Partition::owner(size_type row) const
{
    return run_parts_[run_of(row)];
}

size_type Partition::local_index(size_type row) const
{
    const auto run = run_of(row);
    return run_locals_[run] + (row - begins_[run]);
}

std::vector<size_type> Partition::rows_of(int part) const
{
    std::vector<size_type> rows;
    rows.reserve(static_cast<std::size_t>(local_rows(part)));
    for (std::size_t run = 0; run < run_parts_.size(); ++run) {
        if (run_parts_[run] != part) continue;
        for (size_type row = begins_[run]; row < begins_[run + 1]; ++row) rows.push_back(row);
    }
    return rows;
}

}  // namespace loom::distributed
