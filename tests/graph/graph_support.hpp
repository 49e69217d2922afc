// Host-side graph checks for the graph tests: adjacency of a matrix's symmetrized pattern,
// distances up to 2, and the graphs with awkward shapes every graph kernel is tried on.
#pragma once

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/matrix/csr.hpp"
#include "loom/matrix/generate.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace loom::test {

/// Neighbours of every vertex in pattern(A) + pattern(A^T), without self-loops, sorted.
template <typename V, typename I>
std::vector<std::vector<size_type>> adjacency(const matrix::Csr<V, I>& A)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    std::vector<std::vector<size_type>> result(A.rows());
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (cols[k] == r) continue;
            result[r].push_back(cols[k]);
            result[cols[k]].push_back(r);
        }
    }
    for (auto& row : result) {
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
    }
    return result;
}

/// The vertices within distance 2 of v (v included).
inline std::vector<size_type> within_2(const std::vector<std::vector<size_type>>& graph,
                                       size_type v)
{
    std::vector<size_type> result{v};
    for (const auto u : graph[v]) {
        result.push_back(u);
        result.insert(result.end(), graph[u].begin(), graph[u].end());
    }
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    return result;
}

/// A random renumbering of 0 .. n - 1.
template <typename I>
std::vector<I> random_permutation(size_type n, unsigned seed)
{
    std::vector<I> perm(n);
    std::iota(perm.begin(), perm.end(), I{0});
    std::shuffle(perm.begin(), perm.end(), std::mt19937(seed));
    return perm;
}

/// A named graph for the tests.
template <typename V, typename I>
struct NamedGraph {
    std::string name;
    matrix::Csr<V, I> A;
};

/// Empty, edgeless, a star, self-loops only, a path, asymmetric and random patterns around a
/// warp's width (unsorted rows and duplicates included), 2D and 3D Poisson.
template <typename V, typename I>
std::vector<NamedGraph<V, I>> awkward_graphs(std::shared_ptr<const Executor> exec)
{
    std::vector<NamedGraph<V, I>> result;
    const auto from_edges = [&](std::string name, size_type n,
                                const std::vector<std::pair<I, I>>& edges) {
        std::vector<I> ptrs(n + 1, 0);
        std::vector<I> cols;
        auto sorted = edges;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [r, c] : sorted) {
            ++ptrs[r + 1];
            cols.push_back(c);
        }
        for (size_type r = 0; r < n; ++r) ptrs[r + 1] += ptrs[r];
        result.push_back(
            {std::move(name), matrix::Csr<V, I>::from_host(exec, {n, n}, ptrs, cols,
                                                           std::vector<V>(cols.size(), V{1}))});
    };
    from_edges("empty", 0, {});
    from_edges("one vertex", 1, {});
    from_edges("isolated vertices", 10, {});
    std::vector<std::pair<I, I>> star;
    for (I v = 1; v < 40; ++v) {
        star.push_back({0, v});
        star.push_back({v, 0});
    }
    from_edges("star", 40, star);
    std::vector<std::pair<I, I>> loops;
    for (I v = 0; v < 33; ++v) loops.push_back({v, v});
    from_edges("self-loops only", 33, loops);
    std::vector<std::pair<I, I>> path;
    for (I v = 0; v + 1 < 31; ++v) {
        path.push_back({v, v});
        path.push_back({v, v + 1});  // one direction only: asymmetric
    }
    from_edges("asymmetric path", 31, path);
    std::uint64_t seed = 5;
    for (const size_type n : {31, 32, 33, 1000}) {
        for (const double per_row : {1.5, 6.0}) {
            PatternSpec spec{n, n, per_row, n > 32, n == 32, n != 31, seed++};
            result.push_back({"random " + std::to_string(n) + " x" + std::to_string(per_row),
                              random_csr<V, I>(exec, spec)});
        }
    }
    result.push_back({"poisson2d 17", matrix::poisson2d<V, I>(exec, 17)});
    result.push_back({"poisson3d 12", matrix::poisson3d<V, I>(exec, 12)});
    result.push_back({"poisson3d 9 27-point", matrix::poisson3d<V, I>(exec, 9, 27)});
    return result;
}

/// order(A) (a permutation, as graph::amd and graph::rcm give) computed on each backend on
/// a copy of A: held there and equal to `expected`, the reference's.
template <typename V, typename I, typename Order>
void expect_same_order_on_backends(const matrix::Csr<V, I>& A, Order order,
                                   const std::vector<I>& expected, const std::string& name)
{
    for (const auto& exec : backends()) {
        const matrix::Csr<V, I> B(exec, A);
        const auto other = order(B);
        EXPECT_EQ(other.executor(), B.executor()) << name;
        EXPECT_EQ(other.to_host(), expected) << name << " on " << exec->name();
    }
}

}  // namespace loom::test
