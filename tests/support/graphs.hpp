// Small graphs given by their edges, for the exact answers of the graph kernels' tests.
#pragma once

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::test {

/// The undirected graph on n vertices with these edges: a matrix of ones storing both
/// directions of every edge, columns sorted within each row.
template <typename V, typename I>
matrix::Csr<V, I> undirected_graph(std::shared_ptr<const Executor> exec, size_type n,
                                   const std::vector<std::pair<I, I>>& edges)
{
    std::vector<std::vector<I>> rows(static_cast<std::size_t>(n));
    for (const auto& [a, b] : edges) {
        rows[a].push_back(b);
        rows[b].push_back(a);
    }
    std::vector<I> ptrs{0};
    std::vector<I> cols;
    for (auto& row : rows) {
        std::sort(row.begin(), row.end());
        cols.insert(cols.end(), row.begin(), row.end());
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    return matrix::Csr<V, I>::from_host(std::move(exec), {n, n}, ptrs, cols,
                                        std::vector<V>(cols.size(), V{1}));
}

}  // namespace loom::test
