// Comparisons of CSR matrices for the sparse tests: the same arrays bit for bit, or the same
// pattern with values equal to rounding (another summation order, fused multiply-adds).
#pragma once

#include <gtest/gtest.h>

#include "loom/matrix/csr.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace loom::test {

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
