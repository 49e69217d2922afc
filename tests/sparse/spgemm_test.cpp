// SpGEMM: the reference against a dense triple loop, every backend against the reference
// (plain and Jacobi-fused products, sorted and unsorted output, numeric reuse), shared real
// matrices, and the argument checks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/sparse/spgemm.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"
#include "support/types.hpp"
#include "support/typed_fixture.hpp"

namespace {

using loom::dim2;
using loom::size_type;
namespace matrix = loom::matrix;
namespace sparse = loom::sparse;

/// Whether repeated numeric calls on exec compute values only (every backend but the
/// reference, the oracle, which always runs the full phase).
bool has_values_only_path(const std::shared_ptr<const loom::Executor>& exec)
{
    return exec->kind() != loom::ExecKind::reference;
}

/// Numeric calls of a handle that compute values only without a previous full call: 1 when
/// its symbolic phase wrote C's columns too (CUDA, every row short), else 0.
template <typename Handle>
size_type from_symbolic(const Handle& handle)
{
    return handle.columns_from_symbolic() ? 1 : 0;
}

/// The values-only path a backend takes within the memory limit: a record (OpenMP: every
/// multiply-add's position; CUDA: where every entry's multiply-adds come from). Over the limit CUDA looks the
/// light rows' products up in C's known columns and OpenMP runs the full phase.
loom::sparse::SpgemmValuesPath values_only_path(const std::shared_ptr<const loom::Executor>&)
{
    return loom::sparse::SpgemmValuesPath::recorded;
}

/// A product's operands: A is rows x inner, B inner x cols.
struct ProductSpec {
    size_type rows;
    size_type inner;
    size_type cols;
    double a_per_row;
    double b_per_row;
    bool dense_row = false;   ///< one row of A holding every column (a long row of C)
    bool sorted = true;
    bool duplicates = false;
    std::uint64_t seed = 1;
};

/// Awkward shapes: empty and degenerate operands, 31/32/33, rectangles both ways, unsorted
/// rows with duplicates, a product large enough for the OpenMP kernels to split it, and
/// long rows (a dense row of A) that reach the GPU's widest shared tables and its bitmap
/// path for rows too long for them (B narrow enough for a bitmap in shared memory).
std::vector<ProductSpec> product_specs()
{
    return {
        {0, 0, 0, 1, 1},
        {0, 5, 3, 2, 2},
        {4, 0, 3, 2, 2},
        {5, 3, 0, 2, 2},
        {1, 1, 1, 1, 1},
        {2, 3, 4, 2, 2, false, false, true, 2},
        {31, 32, 33, 4, 4, true, true, false, 3},
        {32, 33, 31, 4, 4, false, false, true, 4},
        {33, 31, 32, 0.5, 6, true, false, false, 5},
        {100, 100, 100, 4, 4, true, false, true, 6},
        {1, 50, 7, 20, 3, false, true, true, 7},
        {50, 1, 50, 1, 20, false, true, false, 8},
        {200, 300, 150, 6, 5, false, false, true, 9},
        {3000, 3000, 3000, 8, 8, false, true, false, 10},
        {4000, 4000, 4000, 2, 4, true, true, false, 11},
        {5000, 5000, 5000, 2, 4, true, false, true, 12},
    };
}

/// A copy of A (on the host) with every row's entries, in stored order, passed through
/// edit(row, entries) first.
template <typename V, typename I, typename Edit>
matrix::Csr<V, I> edit_rows(const matrix::Csr<V, I>& A, Edit&& edit)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto vals = A.values().to_host();
    std::vector<I> e_ptrs{0};
    std::vector<I> e_cols;
    std::vector<V> e_vals;
    std::vector<std::pair<I, V>> entries;
    for (size_type r = 0; r < A.rows(); ++r) {
        entries.clear();
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) entries.emplace_back(cols[k], vals[k]);
        edit(r, entries);
        for (const auto& [c, v] : entries) {
            e_cols.push_back(c);
            e_vals.push_back(v);
        }
        e_ptrs.push_back(static_cast<I>(e_cols.size()));
    }
    return matrix::Csr<V, I>::from_host(A.executor(), A.size(), e_ptrs, e_cols, e_vals);
}

/// I - omega D^-1 A, formed explicitly on the host (the diagonal entry of I comes
/// first, A's entries after it, so rows may hold a column twice).
template <typename V, typename I>
matrix::Csr<V, I> jacobi_operator(const matrix::Csr<V, I>& A, V omega,
                                  const std::vector<V>& d_inv)
{
    return edit_rows(A, [&](size_type r, std::vector<std::pair<I, V>>& entries) {
        for (auto& entry : entries) entry.second = -omega * d_inv[r] * entry.second;
        entries.insert(entries.begin(), {static_cast<I>(r), V{1}});
    });
}

template <typename T>
class Spgemm : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr;
    using Handle = sparse::SpgemmHandle<V, I>;

    static double tolerance() { return loom::test::tolerance<V>() * 10; }

    std::pair<Csr, Csr> operands(const ProductSpec& s) const
    {
        auto A = loom::test::random_csr<V, I>(
            this->ref, {s.rows, s.inner, s.a_per_row, s.dense_row, s.sorted, s.duplicates, s.seed});
        auto B = loom::test::random_csr<V, I>(
            this->ref, {s.inner, s.cols, s.b_per_row, false, s.sorted, s.duplicates, s.seed + 100});
        return {std::move(A), std::move(B)};
    }

    static std::string describe(const ProductSpec& s)
    {
        return std::to_string(s.rows) + "x" + std::to_string(s.inner) + " * " +
               std::to_string(s.inner) + "x" + std::to_string(s.cols) + " seed " +
               std::to_string(s.seed);
    }

    /// C's rows on the host, each sorted by column (or as stored, to check the order).
    static std::vector<std::vector<std::pair<I, V>>> rows_of(const Csr& C, bool sort = true)
    {
        const auto ptrs = C.row_ptrs().to_host();
        const auto cols = C.col_idxs().to_host();
        const auto vals = C.values().to_host();
        std::vector<std::vector<std::pair<I, V>>> rows(static_cast<std::size_t>(C.rows()));
        for (size_type r = 0; r < C.rows(); ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) rows[r].emplace_back(cols[k], vals[k]);
            if (sort) {
                std::sort(rows[r].begin(), rows[r].end(),
                          [](const auto& a, const auto& b) { return a.first < b.first; });
            }
        }
        return rows;
    }

    /// C equals expected: same size and row pointers, the same columns in every row (in
    /// ascending order when `sorted`, as a set otherwise) and values within rounding.
    static void expect_same(const Csr& C, const Csr& expected, bool sorted = true)
    {
        ASSERT_EQ(C.size(), expected.size());
        ASSERT_EQ(C.nnz(), expected.nnz());
        EXPECT_EQ(C.row_ptrs().to_host(), expected.row_ptrs().to_host());
        if (sorted) {
            for (const auto& row : rows_of(C, false)) {
                for (std::size_t k = 1; k < row.size(); ++k) {
                    ASSERT_LT(row[k - 1].first, row[k].first) << "row not sorted";
                }
            }
        }
        const auto actual = rows_of(C);
        const auto wanted = rows_of(expected);
        std::vector<V> a, w;
        for (std::size_t r = 0; r < actual.size(); ++r) {
            ASSERT_EQ(actual[r].size(), wanted[r].size()) << "row " << r;
            for (std::size_t k = 0; k < actual[r].size(); ++k) {
                ASSERT_EQ(actual[r][k].first, wanted[r][k].first) << "row " << r;
                a.push_back(actual[r][k].second);
                w.push_back(wanted[r][k].second);
            }
        }
        LOOM_EXPECT_NEAR_VECTORS(a, w, tolerance());
    }

    /// The product through a handle on exec.
    static Csr product(std::shared_ptr<const loom::Executor> exec, const Csr& A, const Csr& B,
                       sparse::SpgemmOptions options = {})
    {
        const Csr A_exec(exec, A);
        const Csr B_exec(exec, B);
        Handle handle(options);
        Csr C;
        sparse::spgemm_symbolic(handle, A_exec, B_exec, C);
        sparse::spgemm_numeric(handle, A_exec, B_exec, C);
        return C;
    }

    /// A copy of M with new random values in the same pattern.
    static Csr with_new_values(const Csr& M, std::uint64_t seed)
    {
        std::mt19937_64 rng(seed);
        std::vector<V> values(static_cast<std::size_t>(M.nnz()));
        for (auto& v : values) v = loom::test::random_value<V>(rng);
        Csr copy(M);
        copy.values() = loom::Array<V>(M.executor(), values);
        return copy;
    }
};

TYPED_TEST_SUITE(Spgemm, loom::test::ValueIndexTypes);

TYPED_TEST(Spgemm, ReferenceMatchesDenseTripleLoop)
{
    using V = typename TestFixture::V;
    for (const auto& spec : product_specs()) {
        if (spec.rows * spec.inner > 100000 || spec.inner * spec.cols > 100000) continue;
        SCOPED_TRACE(this->describe(spec));
        const auto [A, B] = this->operands(spec);
        const auto C = sparse::spgemm(A, B);
        // the dense product, and the structural pattern: (i, j) wherever A(i, k) and
        // B(k, j) are stored for some k
        std::vector<V> dense(static_cast<std::size_t>(spec.rows * spec.cols), V{});
        std::vector<char> pattern(dense.size(), 0);
        const auto a = this->rows_of(A, false);
        const auto b = this->rows_of(B, false);
        for (size_type i = 0; i < spec.rows; ++i) {
            for (const auto& [k, a_ik] : a[i]) {
                for (const auto& [j, b_kj] : b[k]) {
                    dense[i * spec.cols + j] += a_ik * b_kj;
                    pattern[i * spec.cols + j] = 1;
                }
            }
        }
        std::vector<V> from_c(dense.size(), V{});
        std::vector<char> c_pattern(dense.size(), 0);
        const auto c = this->rows_of(C, false);
        for (size_type i = 0; i < spec.rows; ++i) {
            for (std::size_t k = 0; k < c[i].size(); ++k) {
                const auto [j, value] = c[i][k];
                ASSERT_EQ(c_pattern[i * spec.cols + j], 0) << "duplicate in row " << i;
                if (k > 0) ASSERT_LT(c[i][k - 1].first, j) << "row " << i << " not sorted";
                c_pattern[i * spec.cols + j] = 1;
                from_c[i * spec.cols + j] = value;
            }
        }
        EXPECT_EQ(c_pattern, pattern);
        LOOM_EXPECT_NEAR_VECTORS(from_c, dense, this->tolerance());
    }
}

TYPED_TEST(Spgemm, BackendsMatchReference)
{
    for (const auto& spec : product_specs()) {
        const auto [A, B] = this->operands(spec);
        const auto expected = sparse::spgemm(A, B);
        for (const auto& exec : loom::test::backends()) {
            SCOPED_TRACE(exec->name() + " " + this->describe(spec));
            const auto C = this->product(exec, A, B);
            EXPECT_EQ(C.executor()->name(), exec->name());
            this->expect_same(C, expected);
            // unsorted output: the same entries in any order within rows
            this->expect_same(this->product(exec, A, B, {.sort_output = false}), expected, false);
        }
    }
}

TYPED_TEST(Spgemm, ConvenienceMatchesHandle)
{
    using Csr = typename TestFixture::Csr;
    const ProductSpec spec{300, 200, 100, 5, 5, true, false, true, 21};
    const auto [A, B] = this->operands(spec);
    const auto expected = sparse::spgemm(A, B);
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const auto C = sparse::spgemm(Csr(exec, A), Csr(exec, B));
        this->expect_same(C, expected);
    }
}

TYPED_TEST(Spgemm, HandleReportsTheSymbolicPhase)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const ProductSpec spec{40, 30, 20, 3, 4, true, false, true, 22};
    const auto [A, B] = this->operands(spec);
    // multiply-adds: the lengths of the B rows that A's entries select
    const auto a_ptrs = A.row_ptrs().to_host();
    const auto a_cols = A.col_idxs().to_host();
    const auto b_ptrs = B.row_ptrs().to_host();
    std::vector<loom::int64> flops(A.rows(), 0);
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = a_ptrs[r]; k < a_ptrs[r + 1]; ++k) {
            flops[r] += b_ptrs[a_cols[k] + 1] - b_ptrs[a_cols[k]];
        }
    }
    const auto total = std::accumulate(flops.begin(), flops.end(), loom::int64{0});
    const auto expected = sparse::spgemm(A, B);
    for (auto exec : loom::test::backends()) {
        for (auto e : {exec, this->ref}) {
            SCOPED_TRACE(e->name());
            sparse::SpgemmHandle<V, I> handle;
            EXPECT_FALSE(handle.analyzed());
            EXPECT_THROW(handle.result_nnz(), loom::BadInput);
            const matrix::Csr<V, I> A_e(e, A), B_e(e, B);
            matrix::Csr<V, I> C;
            sparse::spgemm_symbolic(handle, A_e, B_e, C);
            EXPECT_TRUE(handle.analyzed());
            EXPECT_FALSE(handle.jacobi());
            EXPECT_EQ(handle.algorithm(), sparse::SpgemmAlgorithm::native);
            EXPECT_EQ(handle.result_size(), (dim2{40, 20}));
            EXPECT_EQ(handle.result_nnz(), expected.nnz());
            EXPECT_EQ(handle.multiply_adds(), total);
            EXPECT_EQ(handle.row_flops().to_host(), flops);
            EXPECT_EQ(handle.row_ptrs().to_host(), expected.row_ptrs().to_host());
            EXPECT_EQ(C.size(), (dim2{40, 20}));
            EXPECT_EQ(C.nnz(), expected.nnz());
            EXPECT_EQ(C.row_ptrs().to_host(), expected.row_ptrs().to_host());
        }
    }
}

TYPED_TEST(Spgemm, NumericReuseAfterValuesChange)
{
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const ProductSpec spec{500, 400, 300, 6, 5, true, false, true, 23};
    const auto [A, B] = this->operands(spec);
    for (auto exec : loom::test::backends()) {
        for (auto e : {exec, this->ref}) {
            for (const bool sorted : {true, false}) {
                SCOPED_TRACE(e->name() + (sorted ? " sorted" : " unsorted"));
                Csr A_e(e, A);
                Csr B_e(e, B);
                Handle handle({.sort_output = sorted});
                Csr C;
                sparse::spgemm_symbolic(handle, A_e, B_e, C);
                sparse::spgemm_numeric(handle, A_e, B_e, C);
                this->expect_same(C, sparse::spgemm(A, B), sorted);
                // new values in place, same arrays
                const auto A2 = this->with_new_values(A, 31);
                const auto B2 = this->with_new_values(B, 32);
                A_e.values() = loom::Array<typename TestFixture::V>(e, A2.values());
                B_e.values() = loom::Array<typename TestFixture::V>(e, B2.values());
                sparse::spgemm_numeric(handle, A_e, B_e, C);
                this->expect_same(C, sparse::spgemm(A2, B2), sorted);
                // new matrices (other arrays) with the same patterns, twice
                const auto A3 = this->with_new_values(A, 33);
                for (int repeat = 0; repeat < 2; ++repeat) {
                    sparse::spgemm_numeric(handle, Csr(e, A3), B_e, C);
                    this->expect_same(C, sparse::spgemm(A3, B2), sorted);
                }
            }
        }
    }
}

TYPED_TEST(Spgemm, SquareOfOneMatrix)
{
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const auto A = loom::test::random_csr<typename TestFixture::V, typename TestFixture::I>(
        this->ref, {700, 700, 5, true, false, true, 24});
    const auto expected = sparse::spgemm(A, A);
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const Csr A_e(exec, A);
        Handle handle;
        Csr C;
        sparse::spgemm_symbolic(handle, A_e, A_e, C);
        sparse::spgemm_numeric(handle, A_e, A_e, C);
        this->expect_same(C, expected);
    }
}

/// A size.rows x size.cols matrix whose rows each hold per_row random distinct columns, sorted,
/// with random values drawn from rng: a very wide matrix when size.cols is large.
template <typename V, typename I>
matrix::Csr<V, I> scattered_rows(std::shared_ptr<const loom::Executor> exec, dim2 size,
                                 std::size_t per_row, std::mt19937_64& rng)
{
    std::uniform_int_distribution<size_type> column(0, size.cols - 1);
    std::vector<I> ptrs{0}, cols;
    std::vector<V> values;
    for (size_type r = 0; r < size.rows; ++r) {
        std::set<I> row;
        while (row.size() < per_row) row.insert(static_cast<I>(column(rng)));
        for (auto c : row) {
            cols.push_back(c);
            values.push_back(loom::test::random_value<V>(rng));
        }
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    return matrix::Csr<V, I>::from_host(std::move(exec), size, ptrs, cols, values);
}

/// B far wider than shared memory or a dense accumulator per thread can cover: the OpenMP
/// hashed accumulator and the GPU's two-level hash for a row of ~7000 entries (in its
/// shared-memory level for double, overflowing into global memory for complex<double>).
TYPED_TEST(Spgemm, VeryWideRightOperand)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    constexpr size_type inner = 600;
    constexpr size_type cols = 20'000'000;
    std::mt19937_64 rng(25);
    const auto B = scattered_rows<V, I>(this->ref, {inner, cols}, 12, rng);
    // enough rows for several OpenMP threads, each with a hashed accumulator
    const auto A =
        loom::test::random_csr<V, I>(this->ref, {3000, inner, 5, true, false, false, 26});
    const auto expected = sparse::spgemm(A, B);
    for (const auto& exec : loom::test::backends()) {
        for (const bool sorted : {true, false}) {
            SCOPED_TRACE(exec->name());
            this->expect_same(this->product(exec, A, B, {.sort_output = sorted}), expected,
                              sorted);
        }
    }
}

/// Rows of C with 5k .. 40k distinct columns out of 9 M, on the GPU: those of 5k .. 35k
/// entries are sparse enough for the two-level hash, and overflow its shared-memory first
/// level into the global second level (numeric from 9k, symbolic from 17k); the row of 40k
/// uses a global-memory bitmap. Sorted and unsorted output, numeric reuse, and the
/// Jacobi-fused product.
TYPED_TEST(Spgemm, LongRowsOverflowSharedTables)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    constexpr size_type n = 4000;
    constexpr size_type cols = 9'000'000;
    std::mt19937_64 rng(41);
    const auto B = scattered_rows<V, I>(this->ref, {n, cols}, 10, rng);
    // every 400th row of A holds the first `length` columns (plus its random ones): rows of
    // C of about 10 * length entries
    const std::vector<size_type> lengths{500, 900, 1500, 2500, 4000, 3500, 1200, 700, 3000, 2000};
    const auto A =
        edit_rows(loom::test::random_csr<V, I>(this->ref, {n, n, 2, false, false, false, 42}),
                  [&](size_type r, std::vector<std::pair<I, V>>& entries) {
                      if (r % 400 != 0) return;
                      for (size_type c = 0; c < lengths[static_cast<std::size_t>(r / 400)]; ++c) {
                          entries.emplace_back(static_cast<I>(c), loom::test::random_value<V>(rng));
                      }
                  });
    const auto expected = sparse::spgemm(A, B);
    const auto A2 = this->with_new_values(A, 43);
    const auto expected2 = sparse::spgemm(A2, B);
    const V omega{0.6};
    std::vector<V> d_inv(static_cast<std::size_t>(n));
    for (auto& d : d_inv) d = V{1} + loom::test::random_value<V>(rng) * V{0.5};
    const auto expected_jacobi = sparse::spgemm(jacobi_operator(A, omega, d_inv), B);
    for (const auto& exec : loom::test::backends()) {
        for (const bool sorted : {true, false}) {
            SCOPED_TRACE(exec->name() + (sorted ? " sorted" : " unsorted"));
            const Csr A_e(exec, A);
            const Csr B_e(exec, B);
            Handle handle({.sort_output = sorted});
            Csr C;
            sparse::spgemm_symbolic(handle, A_e, B_e, C);
            sparse::spgemm_numeric(handle, A_e, B_e, C);
            this->expect_same(C, expected, sorted);
            sparse::spgemm_numeric(handle, Csr(exec, A2), B_e, C);
            this->expect_same(C, expected2, sorted);
            Handle jacobi({.sort_output = sorted});
            Csr J;
            sparse::spgemm_jacobi_symbolic(jacobi, A_e, B_e, J);
            sparse::spgemm_jacobi_numeric(jacobi, omega, loom::Array<V>(exec, d_inv), A_e, B_e, J);
            this->expect_same(J, expected_jacobi, sorted);
        }
    }
}

TYPED_TEST(Spgemm, JacobiFusedMatchesExplicitProduct)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const V omega{0.7};
    struct Case {
        size_type n;
        size_type cols;
        double a_per_row;
        bool dense_row;
        bool duplicates;
    };
    for (const auto& c : {Case{0, 3, 1, false, false}, Case{1, 1, 1, false, false},
                          Case{33, 31, 4, true, true}, Case{300, 200, 6, false, true},
                          Case{2000, 8000, 3, true, false}}) {
        const auto seed = static_cast<std::uint64_t>(c.n);
        std::mt19937_64 rng(seed + 5);
        const auto A = loom::test::random_csr<V, I>(
            this->ref, {c.n, c.n, c.a_per_row, c.dense_row, false, c.duplicates, seed + 1});
        const auto B =
            loom::test::random_csr<V, I>(this->ref, {c.n, c.cols, 3, false, true, false, seed + 2});
        std::vector<V> d_inv(static_cast<std::size_t>(c.n));
        for (auto& d : d_inv) d = V{1} + loom::test::random_value<V>(rng) * V{0.5};
        const auto expected = sparse::spgemm(jacobi_operator(A, omega, d_inv), B);
        auto execs = loom::test::backends();
        execs.push_back(this->ref);
        for (const auto& exec : execs) {
            SCOPED_TRACE(exec->name() + " n " + std::to_string(c.n));
            const Csr A_e(exec, A);
            const Csr B_e(exec, B);
            const loom::Array<V> d_array(exec, d_inv);
            // the Dense overload, with a row stride of 2
            std::vector<V> strided(static_cast<std::size_t>(2 * c.n), V{});
            for (size_type i = 0; i < c.n; ++i) strided[2 * i] = d_inv[i];
            auto d_dense = matrix::Dense<V>(exec, dim2{c.n, 1}, 2);
            if (c.n > 0) {
                d_dense.values() =
                    loom::Array<V>(exec, std::vector<V>(strided.begin(), strided.end() - 1));
            }
            for (const bool sorted : {true, false}) {
                Handle handle({.sort_output = sorted});
                Csr C;
                sparse::spgemm_jacobi_symbolic(handle, A_e, B_e, C);
                EXPECT_TRUE(handle.jacobi());
                sparse::spgemm_jacobi_numeric(handle, omega, d_array, A_e, B_e, C);
                this->expect_same(C, expected, sorted);
                sparse::spgemm_jacobi_numeric(handle, omega, d_dense, A_e, B_e, C);
                this->expect_same(C, expected, sorted);
            }
            this->expect_same(sparse::spgemm_jacobi(omega, d_array, A_e, B_e), expected);
        }
    }
}

/// Whether some row of M holds columns that are not strictly ascending.
template <typename V, typename I>
bool has_unsorted_row(const matrix::Csr<V, I>& M)
{
    const auto ptrs = M.row_ptrs().to_host();
    const auto cols = M.col_idxs().to_host();
    for (size_type r = 0; r < M.rows(); ++r) {
        for (auto k = ptrs[r] + 1; k < ptrs[r + 1]; ++k) {
            if (cols[k - 1] >= cols[k]) return true;
        }
    }
    return false;
}

/// A square random matrix whose row r ends with an extra (unsorted, often duplicate) diagonal
/// entry 4: the summed diagonal is at least 2 in every row.
template <typename V, typename I>
matrix::Csr<V, I> with_strong_diagonal(const matrix::Csr<V, I>& A)
{
    return edit_rows(A, [](size_type r, std::vector<std::pair<I, V>>& entries) {
        entries.emplace_back(static_cast<I>(r), V{4});
    });
}

/// The overloads that take D from A itself: 1 / (sum of A's stored (i, i) entries).
TYPED_TEST(Spgemm, JacobiFusedWithDiagonalOfA)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const V omega{2.0 / 3.0};
    for (const size_type n : {size_type{1}, size_type{33}, size_type{700}}) {
        const auto A = with_strong_diagonal(loom::test::random_csr<V, I>(
            this->ref, {n, n, 5, n > 100, false, true, static_cast<std::uint64_t>(n) + 60}));
        const auto B = loom::test::random_csr<V, I>(
            this->ref, {n, n + 7, 4, false, true, false, static_cast<std::uint64_t>(n) + 61});
        std::vector<V> d_inv(static_cast<std::size_t>(n), V{});
        const auto ptrs = A.row_ptrs().to_host();
        const auto cols = A.col_idxs().to_host();
        const auto vals = A.values().to_host();
        for (size_type r = 0; r < n; ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                if (cols[k] == static_cast<I>(r)) d_inv[r] += vals[k];
            }
            d_inv[r] = V{1} / d_inv[r];
        }
        const auto expected = sparse::spgemm(jacobi_operator(A, omega, d_inv), B);
        auto execs = loom::test::backends();
        execs.push_back(this->ref);
        for (const auto& exec : execs) {
            SCOPED_TRACE(exec->name() + " n " + std::to_string(n));
            const Csr A_e(exec, A);
            const Csr B_e(exec, B);
            Handle handle;
            Csr C;
            sparse::spgemm_jacobi_symbolic(handle, A_e, B_e, C);
            sparse::spgemm_jacobi_numeric(handle, omega, A_e, B_e, C);
            this->expect_same(C, expected);
            // reuse after a value change: A scaled by 2 keeps D^-1 A, so C stays the same
            Csr A2(A_e);
            auto doubled = A.values().to_host();
            for (auto& v : doubled) v *= V{2};
            A2.values() = loom::Array<V>(exec, doubled);
            sparse::spgemm_jacobi_numeric(handle, omega, A2, B_e, C);
            this->expect_same(C, expected);
            this->expect_same(sparse::spgemm_jacobi(omega, A_e, B_e), expected);
        }
    }
}

/// A zero or missing diagonal entry has no D^-1: BadInput naming the row, C untouched.
TYPED_TEST(Spgemm, JacobiFusedRefusesZeroDiagonal)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    using Entries = std::vector<std::pair<I, V>>;
    constexpr size_type n = 40;
    const auto strong = with_strong_diagonal(
        loom::test::random_csr<V, I>(this->ref, {n, n, 3, false, true, false, 70}));
    const auto B = loom::test::random_csr<V, I>(this->ref, {n, 9, 3, false, true, false, 71});
    // row 17 without its diagonal: drop every (17, 17) entry
    const auto missing = edit_rows(strong, [](size_type r, Entries& entries) {
        if (r != 17) return;
        std::erase_if(entries, [](const auto& entry) { return entry.first == I{17}; });
    });
    // row 5's diagonal entries summing to zero (the same pattern as `strong`)
    const auto cancelling = edit_rows(strong, [](size_type r, Entries& entries) {
        if (r != 5) return;
        for (auto& entry : entries) {
            if (entry.first == I{5}) entry.second = V{};
        }
    });
    auto execs = loom::test::backends();
    execs.push_back(this->ref);
    for (const auto& exec : execs) {
        SCOPED_TRACE(exec->name());
        const Csr B_e(exec, B);
        const std::vector<std::pair<const Csr*, int>> bad_diagonals{{&missing, 17},
                                                                    {&cancelling, 5}};
        for (const auto& [bad, row] : bad_diagonals) {
            const Csr A_e(exec, *bad);
            Handle handle;
            Csr C;
            sparse::spgemm_jacobi_symbolic(handle, A_e, B_e, C);
            const loom::Array<V> ones(exec, std::vector<V>(n, V{1}));
            sparse::spgemm_jacobi_numeric(handle, V{0.5}, ones, A_e, B_e, C);
            const Csr before(this->ref, C);
            try {
                sparse::spgemm_jacobi_numeric(handle, V{0.5}, A_e, B_e, C);
                ADD_FAILURE() << "no error for a zero diagonal in row " << row;
            } catch (const loom::BadInput& e) {
                EXPECT_NE(std::string(e.what()).find("row " + std::to_string(row)),
                          std::string::npos)
                    << e.what();
            }
            EXPECT_EQ(C.col_idxs().to_host(), before.col_idxs().to_host());
            EXPECT_EQ(C.values().to_host(), before.values().to_host());
            EXPECT_THROW(sparse::spgemm_jacobi(V{0.5}, A_e, B_e), loom::BadInput);
        }
    }
}

/// Repeated numeric calls with sorted rows compute values only once C's columns are those the
/// handle wrote, over light rows (narrow B, addressed directly; wide B, hashed) and long rows
/// (up to the bitmap path): every value rewritten (C's values are poisoned first) and equal
/// to the reference. OpenMP and CUDA from their records (CUDA with and without determinism:
/// the record's sums are ordered either way). The reference never does.
TYPED_TEST(Spgemm, NumericWithKnownColumnsComputesValuesOnly)
{
    using V = typename TestFixture::V;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const std::vector<ProductSpec> specs{
        {200, 300, 150, 6, 5, false, false, true, 81},
        {3000, 3000, 3000, 8, 8, false, true, false, 82},
        {5000, 5000, 5000, 2, 4, true, false, true, 83},
    };
    auto execs = loom::test::backends();
    execs.push_back(this->ref);
    for (const auto& spec : specs) {
        const auto [A, B] = this->operands(spec);
        for (const auto& exec : execs) {
            for (const bool deterministic : {true, false}) {
                if (!deterministic && exec->is_host()) continue;  // the same path either way
                SCOPED_TRACE(exec->name() + " " + this->describe(spec) +
                             (deterministic ? "" : " non-deterministic"));
                const bool fast = has_values_only_path(exec);
                const Csr B_e(exec, B);
                Handle handle({.deterministic = deterministic});
                Csr C;
                sparse::spgemm_symbolic(handle, Csr(exec, A), B_e, C);
                sparse::spgemm_numeric(handle, Csr(exec, A), B_e, C);
                const size_type early = from_symbolic(handle);
                EXPECT_EQ(handle.values_only_calls(), early);
                this->expect_same(C, sparse::spgemm(A, B));
                for (int repeat = 1; repeat <= 2; ++repeat) {
                    const auto A2 = this->with_new_values(A, 90 + repeat);
                    C.values().fill(V{1234.5});
                    sparse::spgemm_numeric(handle, Csr(exec, A2), B_e, C);
                    EXPECT_EQ(handle.values_only_calls(), early + (fast ? repeat : 0));
                    if (!fast) {
                        EXPECT_EQ(handle.values_path(), sparse::SpgemmValuesPath::full);
                    } else if (repeat == 1) {
                        // CUDA's first values-only call may still search (and keep) positions
                        EXPECT_NE(handle.values_path(), sparse::SpgemmValuesPath::full);
                    } else {
                        EXPECT_EQ(handle.values_path(), values_only_path(exec));
                    }
                    this->expect_same(C, sparse::spgemm(A2, B));
                }
            }
        }
    }
}

/// C's columns changed by the caller between numeric calls (one column, or a C of the
/// right size that no numeric call wrote): the full phase runs and C is right again.
TYPED_TEST(Spgemm, NumericWithChangedColumnsRunsFullPhase)
{
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const ProductSpec spec{500, 400, 300, 6, 5, true, false, true, 84};
    const auto [A, B] = this->operands(spec);
    const auto expected = sparse::spgemm(A, B);
    auto execs = loom::test::backends();
    execs.push_back(this->ref);
    for (const auto& exec : execs) {
        for (const auto check : {loom::PatternCheck::cached, loom::PatternCheck::always}) {
            SCOPED_TRACE(exec->name() +
                         (check == loom::PatternCheck::cached ? " cached" : " always"));
            const Csr A_e(exec, A);
            const Csr B_e(exec, B);
            Handle handle({.pattern_check = check});
            Csr C;
            sparse::spgemm_symbolic(handle, A_e, B_e, C);
            sparse::spgemm_numeric(handle, A_e, B_e, C);
            // values only: OpenMP and CUDA hold a record now, which must not be used below
            sparse::spgemm_numeric(handle, A_e, B_e, C);
            const size_type early = from_symbolic(handle);
            const size_type before = has_values_only_path(exec) ? 1 : 0;
            EXPECT_EQ(handle.values_only_calls(), early + before);
            // one column of a middle row replaced by another valid column
            auto cols = C.col_idxs().to_host();
            const auto ptrs = C.row_ptrs().to_host();
            const auto k = ptrs[250];
            ASSERT_LT(k, ptrs[251]);
            cols[k] = static_cast<I>(cols[k] == 0 ? 1 : 0);
            C.col_idxs() = loom::Array<I>(exec, cols);
            sparse::spgemm_numeric(handle, A_e, B_e, C);
            EXPECT_EQ(handle.values_only_calls(), early + before);
            EXPECT_EQ(handle.values_path(), sparse::SpgemmValuesPath::full);
            this->expect_same(C, expected);
            // C's columns restored by that full call: values only again, from the record
            sparse::spgemm_numeric(handle, A_e, B_e, C);
            EXPECT_EQ(handle.values_only_calls(), early + 2 * before);
            if (before > 0) EXPECT_EQ(handle.values_path(), values_only_path(exec));
            this->expect_same(C, expected);
            // another C of the same size, never written by a numeric call
            Csr other(exec, C.size(), C.nnz());
            other.col_idxs().fill(I{0});
            sparse::spgemm_numeric(handle, A_e, B_e, other);
            EXPECT_EQ(handle.values_only_calls(), early + 2 * before);
            EXPECT_EQ(handle.values_path(), sparse::SpgemmValuesPath::full);
            this->expect_same(other, expected);
            // A's pattern changed after the record was made: refused, C untouched; a new
            // symbolic phase makes a new record, for the new pattern
            auto a_cols = A.col_idxs().to_host();
            ASSERT_FALSE(a_cols.empty());
            a_cols[0] = static_cast<I>(a_cols[0] == 0 ? 1 : 0);
            const Csr A_changed = Csr::from_host(exec, A.size(), A.row_ptrs().to_host(), a_cols,
                                                 A.values().to_host());
            const auto values_before = C.values().to_host();
            EXPECT_THROW(sparse::spgemm_numeric(handle, A_changed, B_e, C), loom::BadInput);
            EXPECT_EQ(C.values().to_host(), values_before);
            sparse::spgemm_symbolic(handle, A_changed, B_e, C);
            for (int repeat = 0; repeat < 3; ++repeat) {
                sparse::spgemm_numeric(handle, A_changed, B_e, C);
                this->expect_same(C, sparse::spgemm(Csr(this->ref, A_changed), B));
            }
            EXPECT_EQ(handle.values_only_calls(), from_symbolic(handle) + 2 * before);
            if (before > 0) EXPECT_EQ(handle.values_path(), values_only_path(exec));
        }
        // a handle that declines the reuse writes columns on every call
        Handle full({.reuse_columns = false});
        Csr C;
        sparse::spgemm_symbolic(full, Csr(exec, A), Csr(exec, B), C);
        for (int repeat = 0; repeat < 2; ++repeat) {
            sparse::spgemm_numeric(full, Csr(exec, A), Csr(exec, B), C);
            this->expect_same(C, expected);
        }
        EXPECT_EQ(full.values_only_calls(), 0);
    }
}

/// Unsorted rows never take the values-only path (their order may change between calls);
/// the Jacobi-fused product does, with the same kernels as the plain one.
TYPED_TEST(Spgemm, ValuesOnlyPathSortedPlainAndJacobi)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    // the dense row: 3000 multiply-adds, a heavy row of the CUDA record (the others light)
    const ProductSpec spec{600, 600, 350, 5, 5, true, false, true, 85};
    const auto [A, B] = this->operands(spec);
    auto execs = loom::test::backends();
    execs.push_back(this->ref);
    for (const auto& exec : execs) {
        SCOPED_TRACE(exec->name());
        const Csr A_e(exec, A);
        const Csr B_e(exec, B);
        {
            Handle handle({.sort_output = false});
            Csr C;
            sparse::spgemm_symbolic(handle, A_e, B_e, C);
            for (int repeat = 0; repeat < 3; ++repeat) {
                sparse::spgemm_numeric(handle, A_e, B_e, C);
                this->expect_same(C, sparse::spgemm(A, B), false);
            }
            EXPECT_EQ(handle.values_only_calls(), 0);
        }
        const V omega{0.75};
        const auto J = with_strong_diagonal(A);
        const auto d_of = [](const Csr& M) {
            std::vector<V> d(static_cast<std::size_t>(M.rows()), V{});
            const auto ptrs = M.row_ptrs().to_host();
            const auto cols = M.col_idxs().to_host();
            const auto vals = M.values().to_host();
            for (size_type r = 0; r < M.rows(); ++r) {
                for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                    if (cols[k] == static_cast<I>(r)) d[r] += vals[k];
                }
                d[r] = V{1} / d[r];
            }
            return d;
        };
        Handle handle;
        Csr C;
        const Csr J_e(exec, J);
        sparse::spgemm_jacobi_symbolic(handle, J_e, B_e, C);
        sparse::spgemm_jacobi_numeric(handle, omega, J_e, B_e, C);
        this->expect_same(C, sparse::spgemm(jacobi_operator(J, omega, d_of(J)), B));
        const size_type early = from_symbolic(handle);
        EXPECT_EQ(handle.values_only_calls(), early);
        // new values, J's pattern (A's with the diagonal appended)
        const auto J2 = with_strong_diagonal(this->with_new_values(A, 86));
        const auto B2 = this->with_new_values(B, 87);
        C.values().fill(V{-7});
        sparse::spgemm_jacobi_numeric(handle, omega, Csr(exec, J2), Csr(exec, B2), C);
        EXPECT_EQ(handle.values_only_calls(), early + (has_values_only_path(exec) ? 1 : 0));
        this->expect_same(C, sparse::spgemm(jacobi_operator(J2, omega, d_of(J2)), B2));
    }
}

/// The same bits: values compared by their representation (-0 is not +0).
template <typename V>
bool same_bits(const std::vector<V>& a, const std::vector<V>& b)
{
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0);
}

/// A repeated numeric call computes values only (OpenMP: from what the first one recorded;
/// CUDA: from the record the first values-only call makes, and, with no memory for a record,
/// light rows looked up in C's columns, the others in full), and they are bitwise those of a
/// fresh handle's full phase on the same operands (both deterministic, the default), on every
/// awkward shape and on generated real matrices (27-point stencil, power-law), plain and
/// Jacobi-fused.
TYPED_TEST(Spgemm, ValuesOnlyEqualFreshNumericBitwise)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    std::vector<std::pair<Csr, Csr>> cases;
    for (const auto& spec : product_specs()) {
        // the long rows of the last spec stand for those of the two before it (CI time)
        if (spec.rows < 3000 || spec.rows == 5000) cases.push_back(this->operands(spec));
    }
    const auto stencil = matrix::generate_csr<V, I>(this->ref, "poisson3d:6:27");
    const auto powerlaw = matrix::generate_csr<V, I>(this->ref, "powerlaw:2000:8:3");
    cases.emplace_back(stencil, stencil);
    cases.emplace_back(powerlaw, powerlaw);
    for (const auto& exec : loom::test::backends()) {
        // CUDA without memory for a record: the known-columns lookup (OpenMP: the full phase)
        const std::vector<size_type> limits{sparse::SpgemmOptions{}.reuse_memory_limit, 0};
        for (const auto& [A, B] : cases) {
            for (const auto limit : limits) {
                if (limit == 0 && exec->is_host()) continue;
                SCOPED_TRACE(exec->name() + " " + loom::to_string(A.size()) + " * " +
                             loom::to_string(B.size()) + " limit " + std::to_string(limit));
                Handle handle({.deterministic = true, .reuse_memory_limit = limit});
                Csr C;
                sparse::spgemm_symbolic(handle, Csr(exec, A), Csr(exec, B), C);
                sparse::spgemm_numeric(handle, Csr(exec, A), Csr(exec, B), C);
                if (!handle.columns_from_symbolic()) {
                    EXPECT_EQ(handle.values_path(), sparse::SpgemmValuesPath::full);
                    // OpenMP records in the full phase, CUDA in the first values-only one
                    EXPECT_EQ(handle.recorded_bytes() > 0, C.nnz() > 0 && exec->is_host());
                }
                const auto first_bits = C.values().to_host();
                const auto A2 = this->with_new_values(A, 5);
                const auto B2 = this->with_new_values(B, 6);
                C.values().fill(V{-3});
                sparse::spgemm_numeric(handle, Csr(exec, A2), Csr(exec, B2), C);
                if (C.nnz() > 0) {
                    // values only; CUDA's first such call may still search (and keep)
                    EXPECT_NE(handle.values_path(), sparse::SpgemmValuesPath::full);
                    EXPECT_EQ(handle.recorded_bytes() > 0, limit > 0);
                }
                // a fresh handle's full phase (columns not reused, so not from the symbolic one)
                const auto fresh =
                    this->product(exec, A2, B2, {.reuse_columns = false, .deterministic = true});
                EXPECT_EQ(C.col_idxs().to_host(), fresh.col_idxs().to_host());
                EXPECT_TRUE(same_bits(C.values().to_host(), fresh.values().to_host()));
                this->expect_same(C, sparse::spgemm(A2, B2));
                // back to the first values (CUDA: from the record that call made): the bits
                // of the first, full call
                sparse::spgemm_numeric(handle, Csr(exec, A), Csr(exec, B), C);
                EXPECT_TRUE(same_bits(C.values().to_host(), first_bits));
                if (C.nnz() > 0) {
                    EXPECT_EQ(handle.values_path(),
                              limit == 0 ? sparse::SpgemmValuesPath::known_columns
                                         : values_only_path(exec));
                }
            }
        }
        SCOPED_TRACE(exec->name() + " Jacobi");
        const V omega{0.5};
        const std::vector<V> d(static_cast<std::size_t>(stencil.rows()), V{0.25});
        const loom::Array<V> d_e(exec, d);
        const Csr S(exec, stencil);
        Handle handle({.deterministic = true});
        Csr C;
        sparse::spgemm_jacobi_symbolic(handle, S, S, C);
        sparse::spgemm_jacobi_numeric(handle, omega, d_e, S, S, C);
        const Csr S2(exec, this->with_new_values(stencil, 7));
        sparse::spgemm_jacobi_numeric(handle, omega, d_e, S2, S2, C);
        EXPECT_EQ(handle.values_path(), values_only_path(exec));
        Handle fresh_handle({.deterministic = true});
        Csr fresh;
        sparse::spgemm_jacobi_symbolic(fresh_handle, S2, S2, fresh);
        sparse::spgemm_jacobi_numeric(fresh_handle, omega, d_e, S2, S2, fresh);
        EXPECT_TRUE(same_bits(C.values().to_host(), fresh.values().to_host()));
        const Csr S2_ref(this->ref, S2);
        this->expect_same(C, sparse::spgemm_jacobi(omega, loom::Array<V>(this->ref, d), S2_ref,
                                                   S2_ref));
    }
}

/// Rows of C led by one long B row (on power-law products, the rows over 32 k entries):
/// every 10th row of A selects one of 5 rows of B of about 4800 entries, beside short rows
/// that meet its columns (entries of several multiply-adds, whose order counts); the 5 long
/// rows of A select mostly short B rows. Repeated calls (CUDA: from the record), plain and
/// Jacobi-fused, give the bits of a fresh handle's full phase.
TYPED_TEST(Spgemm, RowsLedByLongBRowsBitwise)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    constexpr size_type n = 6000;
    constexpr size_type long_rows = 5;
    std::mt19937_64 rng(61);
    const auto M = edit_rows(
        loom::test::random_csr<V, I>(this->ref, {n, n, 3, false, true, false, 62}),
        [&](size_type r, std::vector<std::pair<I, V>>& entries) {
            std::map<I, V> row(entries.begin(), entries.end());
            if (r < long_rows) {
                for (size_type c = 0; c < n; ++c) {
                    if ((c * 7 + r) % 10 < 8) row[static_cast<I>(c)] = loom::test::random_value<V>(rng);
                }
            } else if (r % 10 == 0) {
                row[static_cast<I>(r / 10 % long_rows)] = loom::test::random_value<V>(rng);
            }
            entries.assign(row.begin(), row.end());
        });
    const auto M2 = this->with_new_values(M, 63);
    const V omega{0.6};
    std::vector<V> d_inv(static_cast<std::size_t>(n));
    for (auto& d : d_inv) d = V{1} + loom::test::random_value<V>(rng) * V{0.5};
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const Csr M_e(exec, M);
        const Csr M2_e(exec, M2);
        const loom::Array<V> d_e(exec, d_inv);
        for (const bool jacobi : {false, true}) {
            SCOPED_TRACE(jacobi ? "Jacobi" : "plain");
            const auto symbolic = [&](Handle& handle, Csr& C) {
                if (jacobi) {
                    sparse::spgemm_jacobi_symbolic(handle, M_e, M_e, C);
                } else {
                    sparse::spgemm_symbolic(handle, M_e, M_e, C);
                }
            };
            const auto numeric = [&](Handle& handle, const Csr& X, Csr& C) {
                if (jacobi) {
                    sparse::spgemm_jacobi_numeric(handle, omega, d_e, X, X, C);
                } else {
                    sparse::spgemm_numeric(handle, X, X, C);
                }
            };
            Handle handle({.deterministic = true});
            Csr C;
            symbolic(handle, C);
            numeric(handle, M_e, C);
            const auto first_bits = C.values().to_host();
            C.values().fill(V{-3});
            numeric(handle, M2_e, C);
            Handle fresh_handle({.reuse_columns = false, .deterministic = true});
            Csr fresh;
            symbolic(fresh_handle, fresh);
            numeric(fresh_handle, M2_e, fresh);
            EXPECT_EQ(C.col_idxs().to_host(), fresh.col_idxs().to_host());
            EXPECT_TRUE(same_bits(C.values().to_host(), fresh.values().to_host()));
            if (!jacobi) this->expect_same(C, sparse::spgemm(M2, M2));
            C.values().fill(V{-3});
            numeric(handle, M_e, C);
            EXPECT_TRUE(same_bits(C.values().to_host(), first_bits));
            EXPECT_EQ(handle.values_path(), values_only_path(exec));
            EXPECT_GT(handle.recorded_bytes(), size_type{0});
        }
    }
}

/// CUDA's symbolic phase also writes C's columns when every row is short (sorted output,
/// reuse_columns): right before any numeric call, and the first numeric call then computes
/// values only, bit for bit those of the full phase, in the one-shot product too. Host
/// backends never do, nor handles with unsorted output or without reuse_columns.
TYPED_TEST(Spgemm, SymbolicColumnsWhenEveryRowIsShort)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const auto stencil = matrix::generate_csr<V, I>(this->ref, "poisson3d:5:27");
    std::vector<std::pair<Csr, Csr>> cases{{stencil, stencil}};
    cases.push_back(this->operands({200, 300, 150, 6, 5, false, true, false, 89}));
    for (const auto& exec : loom::test::backends()) {
        for (const auto& [A, B] : cases) {
            const Csr A_e(exec, A);
            const Csr B_e(exec, B);
            const auto expected = sparse::spgemm(A, B);
            const auto full = this->product(exec, A, B, {.reuse_columns = false});
            for (const sparse::SpgemmOptions options :
                 {sparse::SpgemmOptions{}, sparse::SpgemmOptions{.sort_output = false},
                  sparse::SpgemmOptions{.reuse_columns = false}}) {
                SCOPED_TRACE(exec->name() + " " + loom::to_string(A.size()) +
                             (options.sort_output ? "" : " unsorted") +
                             (options.reuse_columns ? "" : " no reuse"));
                const bool early =
                    !exec->is_host() && options.sort_output && options.reuse_columns;
                Handle handle(options);
                Csr C;
                sparse::spgemm_symbolic(handle, A_e, B_e, C);
                EXPECT_EQ(handle.columns_from_symbolic(), early);
                // CUDA: with the columns, the record of the products' positions (B's rows
                // strictly ascending), so that the first numeric call runs from it
                EXPECT_EQ(handle.recorded_bytes() > 0, early);
                if (early) EXPECT_EQ(C.col_idxs().to_host(), expected.col_idxs().to_host());
                sparse::spgemm_numeric(handle, A_e, B_e, C);
                EXPECT_EQ(handle.values_only_calls(), early ? 1 : 0);
                if (early) EXPECT_EQ(handle.values_path(), sparse::SpgemmValuesPath::recorded);
                this->expect_same(C, expected, options.sort_output);
                if (options.sort_output) {
                    EXPECT_TRUE(same_bits(C.values().to_host(), full.values().to_host()));
                }
            }
            EXPECT_TRUE(same_bits(sparse::spgemm(A_e, B_e).values().to_host(),
                                  full.values().to_host()));
        }
    }
}

/// Products with heavy rows (over 4096 entries) in a B of 2 M columns: CUDA's symbolic phase
/// also writes their columns (from bitmaps of B's columns, the rows split over many blocks:
/// rows sparse in B, which the numeric phase hashes, and dense ones) and the record, so that
/// the first numeric call computes values only, bit for bit a fresh full phase's; the
/// one-shot product too. A long row of A (6000 entries, ~60 k multiply-adds) and rows that
/// select a B row of 40 k entries split into pieces inside one entry; Jacobi-fused as well.
/// Without memory for a record the symbolic phase leaves the columns to the numeric one. The
/// full numeric phase (reuse_columns off) gives these rows values through a record of its
/// own, or through their own kernels without memory for it: the same bits every way.
TYPED_TEST(Spgemm, HeavyRowsColumnsFromSymbolic)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    constexpr size_type n = 6000;
    constexpr size_type cols = 2'000'000;
    std::mt19937_64 rng(91);
    // B: 10 random columns per row, row 7 holds 40 k
    auto B = edit_rows(scattered_rows<V, I>(this->ref, {n, cols}, 10, rng),
                       [&](size_type r, std::vector<std::pair<I, V>>& entries) {
                           if (r != 7) return;
                           entries.clear();
                           for (size_type c = 0; c < 40'000; ++c) {
                               entries.emplace_back(static_cast<I>(c * 50 + 3),
                                                    loom::test::random_value<V>(rng));
                           }
                       });
    // A: 2 per row; row 0 selects 6000 rows of B (a bitmap row), rows 1..3 select 700 (hash
    // rows of ~7 k entries), every 500th row selects B's row 7 beside its own
    const auto A = edit_rows(
        loom::test::random_csr<V, I>(this->ref, {n, n, 2, false, true, false, 92}),
        [&](size_type r, std::vector<std::pair<I, V>>& entries) {
            std::map<I, V> row(entries.begin(), entries.end());
            const size_type selected = r == 0 ? n : (r <= 3 ? 700 : 0);
            for (size_type c = 0; c < selected; ++c) {
                row[static_cast<I>((c * 13 + r) % n)] = loom::test::random_value<V>(rng);
            }
            if (r % 500 == 0) row[7] = loom::test::random_value<V>(rng);
            entries.assign(row.begin(), row.end());
        });
    const auto A2 = this->with_new_values(A, 93);
    const auto expected = sparse::spgemm(A, B);
    const auto expected2 = sparse::spgemm(A2, B);
    ASSERT_GT(expected.row_ptrs().to_host()[1], 40'000);
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const Csr A_e(exec, A);
        const Csr A2_e(exec, A2);
        const Csr B_e(exec, B);
        const bool early = !exec->is_host();
        const auto full = this->product(exec, A, B, {.reuse_columns = false});
        const auto full2 = this->product(exec, A2, B, {.reuse_columns = false});
        this->expect_same(full, expected);
        // the full phase without a record for its heavy rows: their own kernels
        const auto kernels =
            this->product(exec, A, B, {.reuse_columns = false, .reuse_memory_limit = 0});
        EXPECT_EQ(kernels.col_idxs().to_host(), full.col_idxs().to_host());
        EXPECT_TRUE(same_bits(kernels.values().to_host(), full.values().to_host()));
        Handle handle;
        Csr C;
        sparse::spgemm_symbolic(handle, A_e, B_e, C);
        EXPECT_EQ(handle.columns_from_symbolic(), early);
        EXPECT_EQ(handle.recorded_bytes() > 0, early);
        if (early) EXPECT_EQ(C.col_idxs().to_host(), expected.col_idxs().to_host());
        sparse::spgemm_numeric(handle, A_e, B_e, C);
        EXPECT_EQ(handle.values_only_calls(), early ? 1 : 0);
        if (early) EXPECT_EQ(handle.values_path(), sparse::SpgemmValuesPath::recorded);
        this->expect_same(C, expected);
        EXPECT_TRUE(same_bits(C.values().to_host(), full.values().to_host()));
        C.values().fill(V{-3});
        sparse::spgemm_numeric(handle, A2_e, B_e, C);
        EXPECT_EQ(C.col_idxs().to_host(), full2.col_idxs().to_host());
        EXPECT_TRUE(same_bits(C.values().to_host(), full2.values().to_host()));
        // one-shot: a record for its single numeric call
        EXPECT_TRUE(same_bits(sparse::spgemm(A_e, B_e).values().to_host(),
                              full.values().to_host()));
        // no memory for a record: the numeric phase writes the columns
        Handle small({.reuse_memory_limit = 0});
        Csr S;
        sparse::spgemm_symbolic(small, A_e, B_e, S);
        EXPECT_FALSE(small.columns_from_symbolic());
        sparse::spgemm_numeric(small, A_e, B_e, S);
        EXPECT_TRUE(same_bits(S.values().to_host(), full.values().to_host()));
        // Jacobi-fused (A square: the identity's products first in every row)
        const V omega{0.5};
        const auto P_ref = this->with_new_values(A, 94);
        const Csr P(exec, P_ref);
        const Csr& Q = B_e;
        std::vector<V> d_inv(static_cast<std::size_t>(n), V{0.25});
        const loom::Array<V> d_e(exec, d_inv);
        Handle jacobi;
        Csr J;
        sparse::spgemm_jacobi_symbolic(jacobi, P, Q, J);
        EXPECT_EQ(jacobi.columns_from_symbolic(), early);
        sparse::spgemm_jacobi_numeric(jacobi, omega, d_e, P, Q, J);
        Handle jacobi_full({.reuse_columns = false});
        Csr JF;
        sparse::spgemm_jacobi_symbolic(jacobi_full, P, Q, JF);
        sparse::spgemm_jacobi_numeric(jacobi_full, omega, d_e, P, Q, JF);
        EXPECT_EQ(J.col_idxs().to_host(), JF.col_idxs().to_host());
        EXPECT_TRUE(same_bits(J.values().to_host(), JF.values().to_host()));
        EXPECT_TRUE(same_bits(sparse::spgemm_jacobi(omega, d_e, P, Q).values().to_host(),
                              JF.values().to_host()));
        // the full phase's heavy rows through their own kernels (no memory for the record
        // it would make) give the same bits
        Handle jacobi_kernels({.reuse_columns = false, .reuse_memory_limit = 0});
        Csr JK;
        sparse::spgemm_jacobi_symbolic(jacobi_kernels, P, Q, JK);
        sparse::spgemm_jacobi_numeric(jacobi_kernels, omega, d_e, P, Q, JK);
        EXPECT_TRUE(same_bits(JK.values().to_host(), JF.values().to_host()));
        this->expect_same(J, sparse::spgemm(jacobi_operator(P_ref, omega, d_inv), B));
    }
}

/// OpenMP and CUDA handles record only within SpgemmOptions::reuse_memory_limit (and with
/// reuse_columns); without a record OpenMP runs the full phase on every call and CUDA looks
/// its light rows up in C's columns, with the same result. The reference records nothing.
TYPED_TEST(Spgemm, RecordFollowsTheMemoryLimit)
{
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    const auto [A, B] = this->operands({200, 300, 150, 6, 5, false, false, true, 88});
    const auto expected = sparse::spgemm(A, B);
    auto execs = loom::test::backends();
    execs.push_back(this->ref);
    for (const auto& exec : execs) {
        SCOPED_TRACE(exec->name());
        const Csr A_e(exec, A);
        const Csr B_e(exec, B);
        const auto run = [&](sparse::SpgemmOptions options) {
            Handle handle(options);
            Csr C;
            sparse::spgemm_symbolic(handle, A_e, B_e, C);
            for (int repeat = 0; repeat < 3; ++repeat) {
                sparse::spgemm_numeric(handle, A_e, B_e, C);
                this->expect_same(C, expected);
            }
            return handle;
        };
        const auto small = run({.deterministic = true, .reuse_memory_limit = 16});
        EXPECT_EQ(small.recorded_bytes(), 0);
        const bool lookup = !exec->is_host();
        EXPECT_EQ(small.values_only_calls(), from_symbolic(small) + (lookup ? 2 : 0));
        EXPECT_EQ(small.values_path(), lookup ? sparse::SpgemmValuesPath::known_columns
                                              : sparse::SpgemmValuesPath::full);
        const auto declined = run({.reuse_columns = false, .deterministic = true});
        EXPECT_EQ(declined.recorded_bytes(), 0);
        EXPECT_EQ(declined.values_only_calls(), 0);
        const auto recording = run({.deterministic = true});
        if (lookup) {
            // at least a byte per multiply-add (short rows: their position in C's row; long
            // rows: an (A entry, B entry) pair)
            EXPECT_GE(recording.recorded_bytes(), recording.multiply_adds());
            EXPECT_EQ(recording.values_only_calls(), from_symbolic(recording) + 2);
            EXPECT_EQ(recording.values_path(), sparse::SpgemmValuesPath::recorded);
        } else if (has_values_only_path(exec)) {
            EXPECT_GE(recording.recorded_bytes(),
                      recording.multiply_adds() * static_cast<size_type>(sizeof(I)));
            EXPECT_EQ(recording.values_only_calls(), 2);
            EXPECT_EQ(recording.values_path(), sparse::SpgemmValuesPath::recorded);
        } else {
            EXPECT_EQ(recording.recorded_bytes(), 0);
            EXPECT_EQ(recording.values_only_calls(), 0);
        }
    }
    EXPECT_STREQ(sparse::to_string(sparse::SpgemmValuesPath::recorded), "recorded");
}

TYPED_TEST(Spgemm, BadInputsAreRefused)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    auto execs = loom::test::backends();
    execs.push_back(this->ref);
    const auto [A0, B0] = this->operands({30, 20, 10, 3, 3, false, true, false, 27});
    for (const auto& exec : execs) {
        SCOPED_TRACE(exec->name());
        const Csr A(exec, A0);
        const Csr B(exec, B0);
        Handle handle;
        Csr C;

        // inner dimensions differ
        const Csr wrong(exec, loom::test::random_csr<V, I>(this->ref, {21, 10, 2}));
        EXPECT_THROW(sparse::spgemm_symbolic(handle, A, wrong, C), loom::DimensionMismatch);
        EXPECT_THROW(sparse::spgemm(A, wrong), loom::DimensionMismatch);
        EXPECT_FALSE(handle.analyzed());

        // numeric before symbolic
        EXPECT_THROW(sparse::spgemm_numeric(handle, A, B, C), loom::BadInput);

        sparse::spgemm_symbolic(handle, A, B, C);
        sparse::spgemm_numeric(handle, A, B, C);
        const auto cols_before = C.col_idxs().to_host();
        const auto vals_before = C.values().to_host();
        const auto unchanged = [&] {
            EXPECT_EQ(C.col_idxs().to_host(), cols_before);
            EXPECT_EQ(C.values().to_host(), vals_before);
        };
        EXPECT_THROW(sparse::spgemm_numeric(handle, A, wrong, C), loom::DimensionMismatch);

        // patterns changed between symbolic and numeric
        auto ptrs = B0.row_ptrs().to_host();
        auto cols = B0.col_idxs().to_host();
        auto vals = B0.values().to_host();
        {  // one entry more
            auto more_ptrs = ptrs;
            auto more_cols = cols;
            auto more_vals = vals;
            more_cols.insert(more_cols.begin(), I{0});
            more_vals.insert(more_vals.begin(), V{1});
            for (std::size_t r = 1; r < more_ptrs.size(); ++r) ++more_ptrs[r];
            const Csr B1(exec, Csr::from_host(this->ref, B0.size(), more_ptrs, more_cols,
                                              more_vals));
            EXPECT_THROW(sparse::spgemm_numeric(handle, A, B1, C), loom::BadInput);
            unchanged();
        }
        {  // one column moved
            auto moved = cols;
            moved[moved.size() / 2] = static_cast<I>((moved[moved.size() / 2] + 1) % B0.cols());
            const Csr B2(exec, Csr::from_host(this->ref, B0.size(), ptrs, moved, vals));
            EXPECT_THROW(sparse::spgemm_numeric(handle, A, B2, C), loom::BadInput);
            unchanged();
        }
        {  // an entry moved to the next row: same count, other row pointers
            auto shifted = ptrs;
            std::size_t r = 1;
            while (r + 1 < shifted.size() && shifted[r] == shifted[r - 1]) ++r;
            --shifted[r];
            const Csr B3(exec, Csr::from_host(this->ref, B0.size(), shifted, cols, vals));
            EXPECT_THROW(sparse::spgemm_numeric(handle, A, B3, C), loom::BadInput);
            unchanged();
        }
        {  // A's pattern changed
            const Csr A1(exec, loom::test::random_csr<V, I>(this->ref, {30, 20, 3, false, true,
                                                                         false, 99}));
            EXPECT_THROW(sparse::spgemm_numeric(handle, A1, B, C), loom::BadInput);
            unchanged();
        }
        {  // a C that is not the symbolic result
            Csr other(exec, dim2{30, 10}, C.nnz() + 1);
            EXPECT_THROW(sparse::spgemm_numeric(handle, A, B, other), loom::BadInput);
        }
        // the Jacobi phases do not mix with the plain ones
        const loom::Array<V> d_inv(exec, std::vector<V>(30, V{1}));
        const Csr square(exec, loom::test::random_csr<V, I>(this->ref, {30, 30, 3}));
        const Csr square_b(exec, loom::test::random_csr<V, I>(this->ref, {30, 10, 3}));
        EXPECT_THROW(sparse::spgemm_jacobi_numeric(handle, V{1}, d_inv, square, square_b, C),
                     loom::BadInput);
        unchanged();
        Handle jacobi;
        Csr J;
        EXPECT_THROW(sparse::spgemm_jacobi_symbolic(jacobi, A, B, J), loom::DimensionMismatch);
        sparse::spgemm_jacobi_symbolic(jacobi, square, square_b, J);
        EXPECT_THROW(sparse::spgemm_numeric(jacobi, square, square_b, J), loom::BadInput);
        const loom::Array<V> short_d(exec, std::vector<V>(29, V{1}));
        EXPECT_THROW(sparse::spgemm_jacobi_numeric(jacobi, V{1}, short_d, square, square_b, J),
                     loom::DimensionMismatch);
        const matrix::Dense<V> two_columns(exec, dim2{30, 2});
        EXPECT_THROW(
            sparse::spgemm_jacobi_numeric(jacobi, V{1}, two_columns, square, square_b, J),
            loom::DimensionMismatch);
        EXPECT_THROW(sparse::spgemm_jacobi(V{1}, short_d, square, square_b),
                     loom::DimensionMismatch);

        // cuSPARSE is the vendor algorithm on CUDA only, and has no Jacobi product
        Handle vendor({.algorithm = sparse::SpgemmAlgorithm::vendor});
        if (exec->is_host()) {
            EXPECT_THROW(sparse::spgemm_symbolic(vendor, A, B, C), loom::NotSupported);
            EXPECT_THROW(sparse::spgemm(A, B, {.algorithm = sparse::SpgemmAlgorithm::vendor}),
                         loom::NotSupported);
        }
        EXPECT_THROW(sparse::spgemm_jacobi_symbolic(vendor, square, square_b, J),
                     loom::NotSupported);
    }
}

TEST(SpgemmOptions, AlgorithmNamesRoundTrip)
{
    for (const auto a : {sparse::SpgemmAlgorithm::automatic, sparse::SpgemmAlgorithm::native,
                         sparse::SpgemmAlgorithm::vendor}) {
        EXPECT_EQ(sparse::parse_spgemm_algorithm(sparse::to_string(a)), a);
    }
    EXPECT_EQ(sparse::parse_spgemm_algorithm("auto"), sparse::SpgemmAlgorithm::automatic);
    EXPECT_THROW(sparse::parse_spgemm_algorithm("esc"), loom::BadInput);
}

/// cuSPARSE against the native kernels (skipped without a GPU).
TYPED_TEST(Spgemm, VendorMatchesNative)
{
    using Csr = typename TestFixture::Csr;
    using Handle = typename TestFixture::Handle;
    LOOM_CUDA_OR_SKIP(cuda);
    for (const auto& spec : product_specs()) {
        SCOPED_TRACE(this->describe(spec));
        const auto [A, B] = this->operands(spec);
        if (!spec.sorted || spec.duplicates) {  // cuSPARSE needs sorted rows: refused
            if (A.nnz() == 0 || B.nnz() == 0 || B.cols() == 0) continue;  // native's
            if (!has_unsorted_row(A) && !has_unsorted_row(B)) continue;
            Handle handle({.algorithm = sparse::SpgemmAlgorithm::vendor});
            Csr C;
            EXPECT_THROW(sparse::spgemm_symbolic(handle, Csr(cuda, A), Csr(cuda, B), C),
                         loom::BadInput);
            continue;
        }
        const auto expected = sparse::spgemm(A, B);
        const Csr A_c(cuda, A);
        const Csr B_c(cuda, B);
        try {
            Handle handle({.algorithm = sparse::SpgemmAlgorithm::vendor});
            Csr C;
            sparse::spgemm_symbolic(handle, A_c, B_c, C);
            sparse::spgemm_numeric(handle, A_c, B_c, C);
            this->expect_same(C, expected);
            const auto A2 = this->with_new_values(A, 41);
            sparse::spgemm_numeric(handle, Csr(cuda, A2), B_c, C);
            this->expect_same(C, sparse::spgemm(A2, B));
            this->expect_same(
                sparse::spgemm(A_c, B_c, {.algorithm = sparse::SpgemmAlgorithm::vendor}),
                expected);
        } catch (const loom::NotSupported& e) {
            // e.g. 64-bit indices, where cuSPARSE's SpGEMM refuses
            std::printf("cuSPARSE declined %s: %s\n", this->describe(spec).c_str(), e.what());
        }
    }
}

// ----------------------------------------------------------------- shared real matrices

TEST(SpgemmSharedMatrices, SquareMatchesReference)
{
#if LOOM_HAS_DOUBLE && LOOM_HAS_INT32
    {
        LOOM_SKIP_WITHOUT_SHARED_MATRICES();
        const auto ref = loom::test::reference();
        int found = 0;
        for (const char* name : {"bcsstk01", "west0989", "dwt_607", "lund_a", "add32",
                                 "bp_1600", "gr_30_30", "sherman1", "mcfe", "e05r0000",
                                 "rdb968"}) {
            if (!loom::test::have_shared_matrix(name)) continue;
            const auto path = loom::test::shared_matrix_path(name);
            ++found;
            SCOPED_TRACE(name);
            const auto A = matrix::read_csr<double, loom::int32>(ref, path);
            if (A.rows() != A.cols()) continue;
            const auto expected = sparse::spgemm(A, A);
            for (const auto& exec : loom::test::backends()) {
                SCOPED_TRACE(exec->name());
                const matrix::Csr<double, loom::int32> A_e(exec, A);
                sparse::SpgemmHandle<double, loom::int32> handle;
                matrix::Csr<double, loom::int32> C;
                sparse::spgemm_symbolic(handle, A_e, A_e, C);
                sparse::spgemm_numeric(handle, A_e, A_e, C);
                EXPECT_EQ(C.row_ptrs().to_host(), expected.row_ptrs().to_host());
                EXPECT_EQ(C.col_idxs().to_host(), expected.col_idxs().to_host());
                LOOM_EXPECT_NEAR_VECTORS(C.values().to_host(), expected.values().to_host(),
                                         1e-12);
            }
            // the Jacobi-fused product where A has a nonzero diagonal (the smoother of a
            // prolongator P = A here), against (I - w D^-1 A) A formed explicitly
            const auto d = A.values().to_host();
            std::vector<double> d_inv(static_cast<std::size_t>(A.rows()), 0.0);
            const auto ptrs = A.row_ptrs().to_host();
            const auto cols = A.col_idxs().to_host();
            for (loom::size_type r = 0; r < A.rows(); ++r) {
                for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                    if (cols[k] == r) d_inv[r] += d[k];
                }
            }
            if (std::count(d_inv.begin(), d_inv.end(), 0.0) > 0) continue;
            for (auto& v : d_inv) v = 1.0 / v;
            const auto smoothed = sparse::spgemm(jacobi_operator(A, 2.0 / 3.0, d_inv), A);
            for (const auto& exec : loom::test::backends()) {
                SCOPED_TRACE(exec->name() + " Jacobi");
                const matrix::Csr<double, loom::int32> A_e(exec, A);
                const auto C = sparse::spgemm_jacobi(2.0 / 3.0, A_e, A_e);
                EXPECT_EQ(C.row_ptrs().to_host(), smoothed.row_ptrs().to_host());
                EXPECT_EQ(C.col_idxs().to_host(), smoothed.col_idxs().to_host());
                LOOM_EXPECT_NEAR_VECTORS(C.values().to_host(), smoothed.values().to_host(),
                                         1e-12);
            }
        }
        if (found == 0) {
            GTEST_SKIP() << "none of its matrices is in " << loom::test::shared_matrix_folder();
        }
    }
#else
    GTEST_SKIP() << "needs double values and int32 indices";
#endif
}

}  // namespace
