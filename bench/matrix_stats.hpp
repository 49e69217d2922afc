// Row-length statistics of a CSR matrix (what `loom info` prints and what picks formats), and
// an estimate of the x traffic its SpMV gathers cause (`loom bench spmv`).
#pragma once

#include <algorithm>
#include <vector>

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

/// An estimate of the x traffic of an SpMV with a gather cache of 32-byte sectors that does
/// not outlive a warp's loads: for each run of 32 consecutive stored entries (the entries
/// a warp of the stream and merge-path kernels loads at once), the distinct sectors of x its
/// columns touch, times 32 bytes. Between cols * value_size (x read once, perfect reuse) and
/// nnz * 32 (every gather a sector of its own, the uniform random case).
template <typename V, typename I>
double x_sector_bytes(const matrix::Csr<V, I>& A, std::size_t value_size)
{
    constexpr std::size_t sector = 32;
    constexpr std::size_t warp = 32;
    const auto cols = A.col_idxs().to_host();
    const auto per_sector = std::max<std::size_t>(sector / value_size, 1);
    double sectors = 0;
    std::vector<std::size_t> touched;
    for (std::size_t first = 0; first < cols.size(); first += warp) {
        const auto end = std::min(cols.size(), first + warp);
        touched.clear();
        for (auto k = first; k < end; ++k) {
            touched.push_back(static_cast<std::size_t>(cols[k]) / per_sector);
        }
        std::sort(touched.begin(), touched.end());
        sectors += static_cast<double>(std::unique(touched.begin(), touched.end()) -
                                       touched.begin());
    }
    return sectors * sector;
}

}  // namespace loom::bench
