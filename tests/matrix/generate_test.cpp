#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/generate.hpp"
#include "support/csr_checks.hpp"
#include "support/executors.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


/// Value and index types every build instantiates.
using Value = std::tuple_element_t<0, test::value_tuple>;
using Index = std::tuple_element_t<0, test::index_tuple>;

/// Columns strictly increasing in every row: sorted and without repeats.
template <typename V, typename I>
void expect_strictly_sorted_rows(const HostCsr<V, I>& A)
{
    for (size_type r = 0; r < A.size.rows; ++r) {
        const auto first = A.cols.begin() + A.ptrs[r], last = A.cols.begin() + A.ptrs[r + 1];
        ASSERT_TRUE(std::adjacent_find(first, last, std::greater_equal<I>()) == last)
            << "row " << r;
    }
}

template <typename V, typename I>
void expect_symmetric(const HostCsr<V, I>& A)
{
    std::map<std::pair<I, I>, V> entries;
    for (size_type r = 0; r < A.size.rows; ++r) {
        for (auto k = A.ptrs[r]; k < A.ptrs[r + 1]; ++k) {
            entries[{static_cast<I>(r), A.cols[k]}] = A.values[k];
        }
    }
    for (const auto& [pos, value] : entries) {
        const auto mirror = entries.find({pos.second, pos.first});
        ASSERT_NE(mirror, entries.end());
        EXPECT_EQ(mirror->second, value);
    }
}

template <typename T>
class Generate : public loom::test::TypedFixture<T> {};
TYPED_TEST_SUITE(Generate, test::ValueIndexTypes);

TYPED_TEST(Generate, Poisson2dFivePoint)
{
    LOOM_TYPED_TEST_TYPES;
    for (const size_type n : {0, 1, 2, 3, 7}) {
        const auto A = host_csr(matrix::poisson2d<V, I>(test::reference(), n));
        ASSERT_EQ(A.size, (dim2{n * n, n * n}));
        EXPECT_EQ(static_cast<size_type>(A.cols.size()), n == 0 ? 0 : 5 * n * n - 4 * n);
        expect_strictly_sorted_rows(A);
        expect_symmetric(A);
        for (size_type y = 0; y < n; ++y) {
            for (size_type x = 0; x < n; ++x) {
                const auto r = y * n + x;
                const auto neighbours = (x > 0) + (x + 1 < n) + (y > 0) + (y + 1 < n);
                EXPECT_EQ(A.row_length(r), 1 + neighbours);
                EXPECT_EQ(A.row_sum(r), V(static_cast<remove_complex_t<V>>(4 - neighbours)));
            }
        }
    }
    // The 2 x 2 grid spelled out.
    const auto B = host_csr(matrix::poisson2d<V, I>(test::reference(), 2));
    EXPECT_EQ(B.ptrs, (std::vector<I>{0, 3, 6, 9, 12}));
    EXPECT_EQ(B.cols, (std::vector<I>{0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3}));
    EXPECT_EQ(B.values[0], V{4});
    EXPECT_EQ(B.values[1], V{-1});
}

TYPED_TEST(Generate, Poisson2dNinePoint)
{
    LOOM_TYPED_TEST_TYPES;
    for (const size_type n : {1, 2, 5}) {
        const auto A = host_csr(matrix::poisson2d<V, I>(test::reference(), n, 9));
        EXPECT_EQ(static_cast<size_type>(A.cols.size()), (3 * n - 2) * (3 * n - 2));
        expect_strictly_sorted_rows(A);
        expect_symmetric(A);
        if (n == 5) {
            const auto center = 2 * n + 2;
            EXPECT_EQ(A.row_length(center), 9);
            EXPECT_EQ(A.row_sum(center), V{0});
            EXPECT_EQ(A.values[A.ptrs[center] + 4], V{8});
            EXPECT_EQ(A.row_length(0), 4);
        }
    }
}

TYPED_TEST(Generate, Poisson3dSevenAndTwentySevenPoint)
{
    LOOM_TYPED_TEST_TYPES;
    for (const size_type n : {0, 1, 2, 4}) {
        const auto A = host_csr(matrix::poisson3d<V, I>(test::reference(), n));
        ASSERT_EQ(A.size.rows, n * n * n);
        EXPECT_EQ(static_cast<size_type>(A.cols.size()), n == 0 ? 0 : 7 * n * n * n - 6 * n * n);
        expect_strictly_sorted_rows(A);
        expect_symmetric(A);
        const auto B = host_csr(matrix::poisson3d<V, I>(test::reference(), n, 27));
        const auto side = n == 0 ? 0 : 3 * n - 2;
        EXPECT_EQ(static_cast<size_type>(B.cols.size()), side * side * side);
        expect_strictly_sorted_rows(B);
        expect_symmetric(B);
    }
    const size_type n = 4;
    const auto A = host_csr(matrix::poisson3d<V, I>(test::reference(), n));
    const auto B = host_csr(matrix::poisson3d<V, I>(test::reference(), n, 27));
    for (size_type z = 1; z + 1 < n; ++z) {
        for (size_type y = 1; y + 1 < n; ++y) {
            for (size_type x = 1; x + 1 < n; ++x) {
                const auto r = (z * n + y) * n + x;
                EXPECT_EQ(A.row_length(r), 7);
                EXPECT_EQ(A.row_sum(r), V{0});
                EXPECT_EQ(A.values[A.ptrs[r] + 3], V{6});
                EXPECT_EQ(B.row_length(r), 27);
                EXPECT_EQ(B.row_sum(r), V{0});
                EXPECT_EQ(B.values[B.ptrs[r] + 13], V{26});
            }
        }
    }
    EXPECT_EQ(A.row_sum(0), V{3});  // a corner keeps 3 of its 6 neighbours
}

TYPED_TEST(Generate, RandomUniformRows)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto [rows, cols, per_row] : std::vector<std::array<size_type, 3>>{
             {0, 5, 3}, {1, 1, 1}, {33, 0, 4}, {31, 32, 5}, {100, 40, 35}, {50, 7, 10},
             {200, 100000, 9}}) {
        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
        const auto A =
            host_csr(matrix::random_uniform<V, I>(test::reference(), rows, cols, per_row, 3));
        ASSERT_EQ(A.size, (dim2{rows, cols}));
        for (size_type r = 0; r < rows; ++r) EXPECT_EQ(A.row_length(r), std::min(per_row, cols));
        expect_strictly_sorted_rows(A);
        for (const auto& v : A.values) {
            EXPECT_LE(std::abs(std::real(v)), 1);
            EXPECT_LE(std::abs(std::imag(v)), 1);
        }
    }
}

TYPED_TEST(Generate, RandomIsDeterministicPerSeed)
{
    LOOM_TYPED_TEST_TYPES;
    const auto a = host_csr(matrix::random_uniform<V, I>(test::reference(), 300, 200, 20, 5));
    const auto b = host_csr(matrix::random_uniform<V, I>(test::reference(), 300, 200, 20, 5));
    const auto c = host_csr(matrix::random_uniform<V, I>(test::reference(), 300, 200, 20, 6));
    EXPECT_EQ(a, b);
    EXPECT_NE(a.cols, c.cols);
    const auto p = host_csr(matrix::power_law<V, I>(test::reference(), 2000, 6, 9));
    const auto q = host_csr(matrix::power_law<V, I>(test::reference(), 2000, 6, 9));
    EXPECT_EQ(p, q);
}

TYPED_TEST(Generate, PowerLawRowLengths)
{
    LOOM_TYPED_TEST_TYPES;
    const size_type rows = 10000;
    for (const double avg : {1.0, 8.0, 25.0}) {
        const auto A = host_csr(matrix::power_law<V, I>(test::reference(), rows, avg, 1));
        ASSERT_EQ(A.size, (dim2{rows, rows}));
        expect_strictly_sorted_rows(A);
        const double mean = static_cast<double>(A.cols.size()) / rows;
        EXPECT_NEAR(mean, avg, 0.03 * avg);
        size_type longest = 0, empty = 0;
        for (size_type r = 0; r < rows; ++r) {
            longest = std::max(longest, A.row_length(r));
            empty += A.row_length(r) == 0;
        }
        // Heavy-tailed: some rows far longer than the mean, yet none longer than the matrix.
        EXPECT_GT(static_cast<double>(longest), 50 * avg);
        EXPECT_LE(longest, rows);
        if (avg == 1.0) EXPECT_GT(empty, rows / 4);
    }
    // A steeper tail is less skewed; an average of a full row fills every row.
    const auto steep = host_csr(matrix::power_law<V, I>(test::reference(), rows, 8, 1, 3.5));
    EXPECT_NEAR(static_cast<double>(steep.cols.size()) / rows, 8, 0.03 * 8);
    const auto full = host_csr(matrix::power_law<V, I>(test::reference(), 40, 40, 1));
    EXPECT_EQ(static_cast<size_type>(full.cols.size()), 40 * 40);
    const auto nearly_full = host_csr(matrix::power_law<V, I>(test::reference(), 400, 300, 1));
    EXPECT_NEAR(static_cast<double>(nearly_full.cols.size()) / 400, 300, 0.03 * 300);
}

TEST(Generate, PowerLawIsTheSameOnEveryPlatform)
{
    // The generator uses its own RNG and exact arithmetic for the default exponent: these
    // numbers must never change (benchmarks compare runs by seed).
    const auto A = host_csr(matrix::power_law<Value, Index>(test::reference(), 1000, 5, 42));
    const auto col_sum = std::accumulate(A.cols.begin(), A.cols.end(), int64{0});
    EXPECT_EQ(static_cast<int64>(A.cols.size()), 5002);
    EXPECT_EQ(col_sum, 2492977);
}

/// Entries per column of A.
template <typename V, typename I>
std::vector<size_type> column_counts(const HostCsr<V, I>& A)
{
    std::vector<size_type> counts(static_cast<std::size_t>(A.size.cols), 0);
    for (const auto c : A.cols) ++counts[static_cast<std::size_t>(c)];
    return counts;
}

TYPED_TEST(Generate, RmatSizesAndRanges)
{
    LOOM_TYPED_TEST_TYPES;
    for (const int scale : {0, 1, 5, 10}) {
        for (const size_type edge_factor : {0, 1, 16}) {
            for (const bool symmetric : {false, true}) {
                SCOPED_TRACE(std::to_string(scale) + ":" + std::to_string(edge_factor) +
                             (symmetric ? " symmetric" : ""));
                matrix::RmatOptions options;
                options.symmetric = options.permute = symmetric;
                const auto A =
                    host_csr(matrix::rmat<V, I>(test::reference(), scale, edge_factor, options));
                const size_type n = size_type{1} << scale;
                ASSERT_EQ(A.size, (dim2{n, n}));
                ASSERT_EQ(static_cast<size_type>(A.ptrs.size()), n + 1);
                const auto nnz = static_cast<size_type>(A.cols.size());
                EXPECT_EQ(A.ptrs.back(), nnz);
                // Repeats merged: at most the edges drawn, and never more than n^2.
                EXPECT_LE(nnz, std::min(n * n, (symmetric ? 2 : 1) * edge_factor * n));
                if (edge_factor > 0) EXPECT_GT(nnz, 0);
                for (const auto c : A.cols) {
                    ASSERT_GE(c, 0);
                    ASSERT_LT(c, n);
                }
                expect_strictly_sorted_rows(A);
                if (symmetric) expect_symmetric(A);
                for (const auto& v : A.values) {
                    EXPECT_LE(std::abs(std::real(v)), 1);
                    EXPECT_LE(std::abs(std::imag(v)), 1);
                }
            }
        }
    }
    // One vertex: every edge is the self-loop (0, 0), merged into one entry.
    const auto one = host_csr(matrix::rmat<V, I>(test::reference(), 0, 5));
    EXPECT_EQ(one.cols, (std::vector<I>{0}));
}

TYPED_TEST(Generate, RmatIsDeterministicPerSeed)
{
    LOOM_TYPED_TEST_TYPES;
    const auto ref = test::reference();
    for (const bool symmetric : {false, true}) {
        matrix::RmatOptions options;
        options.symmetric = options.permute = symmetric;
        options.seed = 5;
        const auto a = host_csr(matrix::rmat<V, I>(ref, 9, 8, options));
        const auto b = host_csr(matrix::rmat<V, I>(ref, 9, 8, options));
        options.seed = 6;
        const auto c = host_csr(matrix::rmat<V, I>(ref, 9, 8, options));
        EXPECT_EQ(a, b);
        EXPECT_NE(a.cols, c.cols);
    }
}

TEST(Generate, RmatDegreesAreSkewedInRowsAndColumns)
{
    using V = Value;
    using I = Index;
    const int scale = 14;
    const size_type n = size_type{1} << scale, edge_factor = 16;
    const auto A = host_csr(matrix::rmat<V, I>(test::reference(), scale, edge_factor));
    const double mean = static_cast<double>(A.cols.size()) / static_cast<double>(n);
    // Repeats merged: fewer entries than edges drawn, but most edges are distinct.
    EXPECT_GT(mean, 0.7 * edge_factor);
    EXPECT_LT(mean, 1.0 * edge_factor);
    size_type longest = 0, empty = 0, quadrant[2][2] = {};
    for (size_type r = 0; r < n; ++r) {
        longest = std::max(longest, A.row_length(r));
        empty += A.row_length(r) == 0;
        for (auto k = A.ptrs[r]; k < A.ptrs[r + 1]; ++k) {
            ++quadrant[r >= n / 2][A.cols[k] >= n / 2];
        }
    }
    const auto counts = column_counts(A);
    const auto widest = *std::max_element(counts.begin(), counts.end());
    // Heavy tails on both sides (b = c: the same law for out- and in-degrees), and vertex 0,
    // the id with no one bit, is the largest hub in both.
    EXPECT_GT(static_cast<double>(longest), 40 * mean);
    EXPECT_GT(static_cast<double>(widest), 40 * mean);
    EXPECT_EQ(longest, A.row_length(0));
    EXPECT_EQ(widest, counts[0]);
    EXPECT_GT(empty, n / 10);
    // The first level's quadrants keep R-MAT's probabilities 0.57, 0.19, 0.19, 0.05, up to
    // the repeats merged (most of them in the dense top-left).
    const double total = static_cast<double>(A.cols.size());
    EXPECT_NEAR(quadrant[0][0] / total, 0.57, 0.05);
    EXPECT_NEAR(quadrant[0][1] / total, 0.19, 0.03);
    EXPECT_NEAR(quadrant[1][0] / total, 0.19, 0.03);
    EXPECT_NEAR(quadrant[1][1] / total, 0.05, 0.02);

    // Renumbered (graph500): the same degrees, the hubs no longer at small ids.
    const auto G = host_csr(matrix::generate_csr<V, I>(test::reference(), "graph500:14:16"));
    size_type hub = 0;
    for (size_type r = 0; r < n; ++r) {
        if (G.row_length(r) > G.row_length(hub)) hub = r;
    }
    EXPECT_NE(hub, 0);
    EXPECT_GT(static_cast<double>(G.row_length(hub)),
              40 * static_cast<double>(G.cols.size()) / static_cast<double>(n));
}

TEST(Generate, RmatIsTheSameOnEveryPlatform)
{
    // Own RNG, integer thresholds: these numbers must never change (benchmarks compare runs
    // by seed).
    const auto A = host_csr(matrix::rmat<Value, Index>(test::reference(), 10, 8));
    const auto col_sum = std::accumulate(A.cols.begin(), A.cols.end(), int64{0});
    EXPECT_EQ(static_cast<int64>(A.cols.size()), 6736);
    EXPECT_EQ(col_sum, 1812293);
}

TEST(Generate, OnEveryBackend)
{
    using V = Value;
    using I = Index;
    for (const auto& exec : test::backends()) {
        for (const auto spec : {"poisson3d:5:27", "powerlaw:500:4:3", "random:40:30:5",
                                "rmat:9:6:2", "graph500:8:4"}) {
            const auto A = matrix::generate_csr<V, I>(exec, spec);
            EXPECT_EQ(A.executor(), exec);
            EXPECT_EQ(host_csr(A), host_csr(matrix::generate_csr<V, I>(test::reference(), spec)))
                << exec->name() << " " << spec;
        }
    }
}

TYPED_TEST(Generate, SpecsNameTheGenerators)
{
    LOOM_TYPED_TEST_TYPES;
    const auto ref = test::reference();
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "poisson3d:3")),
              host_csr(matrix::poisson3d<V, I>(ref, 3)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "poisson3d:3:27")),
              host_csr(matrix::poisson3d<V, I>(ref, 3, 27)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "poisson2d:4")),
              host_csr(matrix::poisson2d<V, I>(ref, 4)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "poisson2d:4:9")),
              host_csr(matrix::poisson2d<V, I>(ref, 4, 9)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "powerlaw:300:2.5")),
              host_csr(matrix::power_law<V, I>(ref, 300, 2.5)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "powerlaw:300:4:7")),
              host_csr(matrix::power_law<V, I>(ref, 300, 4, 7)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "random:30:20:4")),
              host_csr(matrix::random_uniform<V, I>(ref, 30, 20, 4)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "random:30:20:4:8")),
              host_csr(matrix::random_uniform<V, I>(ref, 30, 20, 4, 8)));
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "rmat:7:5")),
              host_csr(matrix::rmat<V, I>(ref, 7, 5)));
    matrix::RmatOptions graph500;
    graph500.symmetric = graph500.permute = true;
    graph500.seed = 3;
    EXPECT_EQ(host_csr(matrix::generate_csr<V, I>(ref, "graph500:7:5:3")),
              host_csr(matrix::rmat<V, I>(ref, 7, 5, graph500)));
}

TEST(Generate, BadSpecsAreBadInputNamingTheSpec)
{
    using V = Value;
    for (const std::string spec :
         {"", "poisson3d", "poisson3d:", "poisson3d:x", "poisson3d:4:9", "poisson3d:4:7:1",
          "poisson2d:4:7", "poisson3d:-2", "poisson3d:2.5", "powerlaw:10", "powerlaw:10:20",
          "powerlaw:10:2:x", "random:1:2", "random:3:3:1:2:3", "random:-1:3:1", "laplace:4",
          "rmat:10", "rmat:32:4", "rmat:-1:4", "rmat:10:-2", "rmat:10:4:1:1", "graph500:4:x",
          "rmat:2.5:4"}) {
        try {
            matrix::generate_csr<V, Index>(test::reference(), spec);
            ADD_FAILURE() << "no BadInput for '" << spec << "'";
        } catch (const BadInput& e) {
            EXPECT_NE(std::string(e.what()).find("'" + spec + "'"), std::string::npos) << e.what();
        }
    }
}

TEST(Generate, BadArguments)
{
    using V = Value;
    const auto ref = test::reference();
    EXPECT_THROW((matrix::poisson2d<V, Index>(ref, 3, 7)), BadInput);
    EXPECT_THROW((matrix::poisson3d<V, Index>(ref, 3, 9)), BadInput);
    EXPECT_THROW((matrix::poisson3d<V, Index>(ref, -1)), BadInput);
    EXPECT_THROW((matrix::random_uniform<V, Index>(ref, 3, -3, 1)), BadInput);
    EXPECT_THROW((matrix::power_law<V, Index>(ref, 10, 11)), BadInput);
    EXPECT_THROW((matrix::power_law<V, Index>(ref, 10, 2, 1, 1.0)), BadInput);
    EXPECT_THROW((matrix::rmat<V, Index>(ref, 32, 1)), BadInput);
    EXPECT_THROW((matrix::rmat<V, Index>(ref, 4, -1)), BadInput);
    matrix::RmatOptions skewed;
    skewed.a = 0.9;
    EXPECT_THROW((matrix::rmat<V, Index>(ref, 4, 2, skewed)), BadInput);
#if LOOM_HAS_INT32
    // 1300^3 rows do not fit int32: refused before anything is allocated.
    EXPECT_THROW((matrix::poisson3d<V, int32>(ref, 1300)), NotSupported);
    EXPECT_THROW((matrix::random_uniform<V, int32>(ref, 1 << 20, 1 << 20, 4096)), NotSupported);
    // 2^31 vertices, or 2^28 * 16 edges, do not fit int32.
    EXPECT_THROW((matrix::rmat<V, int32>(ref, 31, 1)), NotSupported);
    EXPECT_THROW((matrix::rmat<V, int32>(ref, 28, 16)), NotSupported);
#endif
}

}  // namespace
}  // namespace loom::test
