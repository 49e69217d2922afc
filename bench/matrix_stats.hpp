// Row-length statistics of a CSR matrix: what `loom info` prints and what picks formats.
#pragma once

#include <algorithm>

#include "loom/matrix/csr.hpp"

namespace loom::bench {

struct RowStats {
    size_type min = 0;
    size_type max = 0;
    double mean = 0;
    size_type empty = 0;  ///< rows without a stored entry
};

/// Reads A's row pointers (copied to the host first when A lives on a GPU).
template <typename V, typename I>
RowStats row_stats(const matrix::Csr<V, I>& A)
{
    RowStats stats;
    if (A.rows() == 0) return stats;
    const auto ptrs = A.row_ptrs().to_host();
    stats.min = ptrs[1] - ptrs[0];
    for (size_type r = 0; r < A.rows(); ++r) {
        const size_type length = ptrs[r + 1] - ptrs[r];
        stats.min = std::min(stats.min, length);
        stats.max = std::max(stats.max, length);
        stats.empty += length == 0;
    }
    stats.mean = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
    return stats;
}

}  // namespace loom::bench
