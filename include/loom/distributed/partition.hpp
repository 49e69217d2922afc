// Partition: which rank owns each global row (and, the matrices being square, each column).
// Kept as runs of consecutive rows with one owner, so a contiguous block partition costs one
// run per rank whatever n; a rank's rows are numbered locally in increasing global order.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/types.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::distributed {

class Partition {
public:
    Partition() = default;

    /// `parts` contiguous blocks of rows whose sizes differ by at most one (lower ranks larger).
    static Partition contiguous(size_type rows, int parts);
    /// Contiguous blocks of the given sizes (some may be 0): part p owns sizes[p] rows.
    static Partition from_sizes(const std::vector<size_type>& sizes);
    /// Row r owned by part_of_row[r]. BadInput naming the first row whose part is not in
    /// [0, parts) (a row owned by no rank).
    static Partition from_parts(const std::vector<int>& part_of_row, int parts);

    size_type global_rows() const noexcept { return begins_.empty() ? 0 : begins_.back(); }
    int parts() const noexcept { return static_cast<int>(part_sizes_.size()); }
    /// Rows owned by `part`.
    size_type local_rows(int part) const { return part_sizes_.at(part); }
    /// Whether every part's rows are one block, in rank order.
    bool is_contiguous() const noexcept;

    /// The owner of global row `row` (OutOfRange outside [0, global_rows())).
    int owner(size_type row) const;
    /// The position of `row` among its owner's rows.
    size_type local_index(size_type row) const;
    /// The global rows `part` owns, in local order.
    std::vector<size_type> rows_of(int part) const;

    friend bool operator==(const Partition&, const Partition&) = default;

private:
    std::size_t run_of(size_type row) const;

    std::vector<size_type> begins_;        ///< run k is rows [begins_[k], begins_[k + 1])
    std::vector<int> run_parts_;           ///< owner of run k
    std::vector<size_type> run_locals_;    ///< local index of run k's first row in its owner
    std::vector<size_type> part_sizes_;
};

}  // namespace loom::distributed

LOOM_PUBLIC_END
