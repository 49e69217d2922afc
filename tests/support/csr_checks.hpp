// Comparisons of CSR matrices for the sparse tests: the same arrays bit for bit, or the same
// pattern with values equal to rounding (another summation order, fused multiply-adds).
#pragma once

#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "loom/matrix/csr.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace loom::test {

/// A CSR matrix's arrays in host memory, compared as a whole (==) or array by array.
template <typename V, typename I>
struct HostCsr {
    dim2 size;
    std::vector<I> ptrs;
    std::vector<I> cols;
    std::vector<V> values;
    bool operator==(const HostCsr&) const = default;

    size_type row_length(size_type r) const { return ptrs[r + 1] - ptrs[r]; }
    V row_sum(size_type r) const
    {
        return std::accumulate(values.begin() + ptrs[r], values.begin() + ptrs[r + 1], V{});
    }
};

/// A's arrays copied to the host, A checked to be a valid CSR matrix first.
template <typename V, typename I>
HostCsr<V, I> host_csr(const matrix::Csr<V, I>& A)
{
    EXPECT_NO_THROW(A.validate());
    return {A.size(), A.row_ptrs().to_host(), A.col_idxs().to_host(), A.values().to_host()};
}

/// Same size, row pointers, column indices and values.
template <typename V, typename I>
void expect_same_csr(const matrix::Csr<V, I>& actual, const matrix::Csr<V, I>& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    EXPECT_EQ(actual.row_ptrs().to_host(), expected.row_ptrs().to_host());
    EXPECT_EQ(actual.col_idxs().to_host(), expected.col_idxs().to_host());
    EXPECT_EQ(actual.values().to_host(), expected.values().to_host());
}

/// Same size and pattern; values within tolerance<V>() (relative_error).
template <typename V, typename I>
void expect_close_csr(const matrix::Csr<V, I>& actual, const matrix::Csr<V, I>& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    EXPECT_EQ(actual.row_ptrs().to_host(), expected.row_ptrs().to_host());
    EXPECT_EQ(actual.col_idxs().to_host(), expected.col_idxs().to_host());
    LOOM_EXPECT_NEAR_VECTORS(actual.values().to_host(), expected.values().to_host(),
                             tolerance<V>());
}

}  // namespace loom::test
