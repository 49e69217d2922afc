// Which row holds a given item, for kernels that split work by entries (nonzeros, products)
// rather than by rows: a binary search over non-decreasing row starts, in host and device code.
#pragma once

#include "loom/base/export.hpp"
#include "loom/launch/macros.hpp"

LOOM_PUBLIC_BEGIN
namespace loom {

/// The last row r of [0, rows) with start(r) <= value (start non-decreasing in r): the row
/// that holds item `value` when row r's items begin at start(r). 0 when rows == 0.
template <typename Start>
LOOM_HOST_DEVICE inline long long last_row_starting_by(long long rows, long long value,
                                                       Start start)
{
    long long lo = 0;
    long long hi = rows - 1;
    while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (start(mid) <= value) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/// The row holding entry k (< nnz) of a CSR matrix: never an empty row.
template <typename I>
LOOM_HOST_DEVICE inline long long row_of_entry(const I* row_ptrs, long long rows, long long k)
{
    return last_row_starting_by(rows, k, [row_ptrs](long long r) {
        return static_cast<long long>(row_ptrs[r]);
    });
}

}  // namespace loom
LOOM_PUBLIC_END
