// CSR utilities: the reference against dense computations, every backend against the
// reference (bit for bit where the operation does no arithmetic or sums in a fixed order),
// and the argument checks.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "support/csr_checks.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::sparse::ColumnOrder;

/// Awkward shapes: empty, tiny, around a warp, rectangular both ways, a dense row, unsorted
/// rows and duplicates, and one matrix large enough for the backends to split their work.
std::vector<loom::test::PatternSpec> specs()
{
    auto shapes = loom::test::awkward_shapes();
    shapes.push_back({5000, 3000, 7});
    return loom::test::specs_of(shapes, 11, [](std::size_t i, loom::test::PatternSpec& spec) {
        spec.dense_row = i % 2 == 1;
        spec.sorted = i % 3 == 2;
        spec.duplicates = i % 4 != 3;
    });
}

template <typename T>
class CsrUtils : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr, typename Base::Dense;

    /// Whether A is small enough to be checked against dense arithmetic in little time.
    static bool small(const Csr& A) { return A.size().count() <= 100000; }

    static Dense column(std::shared_ptr<const loom::Executor> exec, size_type rows,
                        std::uint64_t seed)
    {
        return loom::test::random_dense<V>(std::move(exec), dim2{rows, 1}, seed);
    }

    /// Calls f(spec, A_ref, A_exec) for every spec and backend.
    template <typename F>
    void for_each_case(F&& f)
    {
        for (const auto& spec : specs()) {
            const auto A = loom::test::random_csr<V, I>(this->ref, spec);
            for (const auto& exec : loom::test::backends()) {
                SCOPED_TRACE(exec->name() + " " + std::to_string(spec.rows) + "x" +
                             std::to_string(spec.cols) + " seed " + std::to_string(spec.seed));
                f(spec, A, Csr(exec, A));
            }
        }
    }
};

TYPED_TEST_SUITE(CsrUtils, loom::test::ValueIndexTypes);

TYPED_TEST(CsrUtils, ReferenceTransposeIsTheDenseTranspose)
{
    using V = typename TestFixture::V;
    for (const auto& spec : specs()) {
        const auto A = loom::test::random_csr<V, typename TestFixture::I>(this->ref, spec);
        if (!TestFixture::small(A)) continue;
        const auto T = sparse::transpose(A);
        const auto H = sparse::conj_transpose(A);
        ASSERT_EQ(T.size(), A.size().transposed());
        EXPECT_EQ(sparse::column_order(T) == ColumnOrder::unordered, false);
        const auto a = loom::test::dense_of(A);
        const auto t = loom::test::dense_of(T);
        const auto h = loom::test::dense_of(H);
        for (size_type i = 0; i < A.rows(); ++i) {
            for (size_type j = 0; j < A.cols(); ++j) {
                EXPECT_EQ(t[j * A.rows() + i], a[i * A.cols() + j]);
                EXPECT_EQ(h[j * A.rows() + i], loom::conj(a[i * A.cols() + j]));
            }
        }
    }
}

TYPED_TEST(CsrUtils, TransposeKeepsDuplicatesInStoredOrder)
{
    LOOM_TYPED_TEST_TYPES;
    // Row 0 holds column 1 twice (values 1 then 2), row 1 holds column 1 once (value 3).
    const auto A = TestFixture::Csr::from_host(this->ref, {2, 3}, {0, 3, 4}, {1, 0, 1, 1},
                                               {V{1}, V{5}, V{2}, V{3}});
    const auto T = sparse::transpose(A);
    EXPECT_EQ(T.row_ptrs().to_host(), (std::vector<I>{0, 1, 4, 4}));
    EXPECT_EQ(T.col_idxs().to_host(), (std::vector<I>{0, 0, 0, 1}));
    EXPECT_EQ(T.values().to_host(), (std::vector<V>{V{5}, V{1}, V{2}, V{3}}));
    for (const auto& exec : loom::test::backends()) {
        loom::test::expect_same_csr(sparse::transpose(typename TestFixture::Csr(exec, A)), T);
    }
}

TYPED_TEST(CsrUtils, TransposeMatchesReference)
{
    this->for_each_case([&](const auto&, const auto& A, const auto& A_exec) {
        loom::test::expect_same_csr(sparse::transpose(A_exec), sparse::transpose(A));
        loom::test::expect_same_csr(sparse::conj_transpose(A_exec), sparse::conj_transpose(A));
    });
}

TYPED_TEST(CsrUtils, TransposeOfTransposeIsTheSortedOriginal)
{
    // Transposition is a stable counting sort, so twice is A with its rows stably sorted.
    this->for_each_case([&](const auto&, const auto& A, const auto& A_exec) {
        auto sorted = A;
        sparse::sort_columns(sorted);
        loom::test::expect_same_csr(sparse::transpose(sparse::transpose(A_exec)), sorted);
        loom::test::expect_same_csr(sparse::conj_transpose(sparse::conj_transpose(A_exec)), sorted);
        if (sparse::column_order(A) != ColumnOrder::unordered) {
            loom::test::expect_same_csr(sparse::transpose(sparse::transpose(A)), A);
        }
    });
}

TYPED_TEST(CsrUtils, ColumnOrderOfSmallCases)
{
    LOOM_TYPED_TEST_TYPES;
    const auto make = [&](std::vector<typename TestFixture::I> ptrs,
                          std::vector<typename TestFixture::I> cols) {
        return Csr::from_host(this->ref, {static_cast<size_type>(ptrs.size() - 1), 5}, ptrs, cols,
                              std::vector<V>(cols.size(), V{1}));
    };
    // A row start below the previous row's end is fine; inside a row it is not.
    const auto increasing = make({0, 2, 2, 4}, {3, 4, 0, 1});
    const auto repeated = make({0, 2, 2, 4}, {3, 4, 1, 1});
    const auto unordered = make({0, 2, 2, 4}, {3, 4, 2, 1});
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        EXPECT_EQ(sparse::column_order(Csr(exec, increasing)), ColumnOrder::increasing);
        EXPECT_EQ(sparse::column_order(Csr(exec, repeated)), ColumnOrder::nondecreasing);
        EXPECT_EQ(sparse::column_order(Csr(exec, unordered)), ColumnOrder::unordered);
    }
    EXPECT_EQ(sparse::column_order(increasing), ColumnOrder::increasing);
    EXPECT_EQ(sparse::column_order(repeated), ColumnOrder::nondecreasing);
    EXPECT_EQ(sparse::column_order(unordered), ColumnOrder::unordered);
}

TYPED_TEST(CsrUtils, ColumnOrderMatchesReference)
{
    this->for_each_case([&](const auto&, const auto& A, const auto& A_exec) {
        EXPECT_EQ(sparse::column_order(A_exec), sparse::column_order(A));
    });
}

TYPED_TEST(CsrUtils, SortColumnsSortsAndKeepsTheMatrix)
{
    this->for_each_case([&](const auto&, const auto& A, const auto& A_exec) {
        auto sorted = A;
        sparse::sort_columns(sorted);
        EXPECT_NE(sparse::column_order(sorted), ColumnOrder::unordered);
        EXPECT_EQ(sorted.row_ptrs().to_host(), A.row_ptrs().to_host());
        if (TestFixture::small(A)) EXPECT_EQ(loom::test::dense_of(sorted), loom::test::dense_of(A));
        auto sorted_exec = A_exec;
        sparse::sort_columns(sorted_exec);
        loom::test::expect_same_csr(sorted_exec, sorted);
    });
}

TYPED_TEST(CsrUtils, MergeDuplicatesSumsThemInStoredOrder)
{
    using V = typename TestFixture::V;
    this->for_each_case([&](const auto&, const auto& A, const auto& A_exec) {
        auto merged = A;
        sparse::merge_duplicates(merged);
        EXPECT_EQ(sparse::column_order(merged), ColumnOrder::increasing);
        if (TestFixture::small(A)) {
            LOOM_EXPECT_NEAR_VECTORS(loom::test::dense_of(merged), loom::test::dense_of(A),
                                     loom::test::tolerance<V>());
        }
        auto merged_exec = A_exec;
        sparse::merge_duplicates(merged_exec);
        loom::test::expect_same_csr(merged_exec, merged);
    });
}

TYPED_TEST(CsrUtils, ExtractDiagonal)
{
    using V = typename TestFixture::V;
    this->for_each_case([&](const auto&, const auto& A, const auto& A_exec) {
        const size_type n = std::min(A.rows(), A.cols());
        const auto diagonal = sparse::extract_diagonal(A);
        ASSERT_EQ(diagonal.size(), (dim2{n, 1}));
        // The diagonal entries, summed in stored order.
        const auto ptrs = A.row_ptrs().to_host();
        const auto cols = A.col_idxs().to_host();
        const auto values = A.values().to_host();
        std::vector<V> expected(n);
        for (size_type i = 0; i < n; ++i) {
            for (auto k = ptrs[i]; k < ptrs[i + 1]; ++k) {
                if (cols[k] == i) expected[i] += values[k];
            }
        }
        LOOM_EXPECT_NEAR_VECTORS(diagonal.to_host(), expected, loom::test::tolerance<V>());
        LOOM_EXPECT_NEAR_VECTORS(sparse::extract_diagonal(A_exec).to_host(), diagonal.to_host(),
                                 loom::test::tolerance<V>());
        // Into a strided column of an existing matrix, which keeps its other column.
        auto target = loom::test::random_dense<V>(A_exec.executor(), {n, 2}, 5);
        const auto before = target.to_host();
        auto first = target.column(0);
        sparse::extract_diagonal(A_exec, first);
        const auto after = target.to_host();
        for (size_type i = 0; i < n; ++i) {
            EXPECT_EQ(after[2 * i + 1], before[2 * i + 1]);
            EXPECT_LE(std::abs(after[2 * i] - expected[i]),
                      loom::test::tolerance<V>() * std::max(1.0, double(std::abs(expected[i]))));
        }
    });
}

TYPED_TEST(CsrUtils, ScaleDiagonalRowsAndColumns)
{
    using V = typename TestFixture::V;
    this->for_each_case([&](const auto& spec, const auto& A, const auto& A_exec) {
        const auto s_rows = TestFixture::column(this->ref, A.rows(), spec.seed);
        const auto s_cols = TestFixture::column(this->ref, A.cols(), spec.seed + 1);
        const V factor{-2.5};

        auto expected = A;
        sparse::scale_diagonal(expected, factor);
        sparse::scale_rows(expected, s_rows);
        sparse::scale_columns(expected, s_cols);
        // The reference against dense arithmetic: s_r(i) * a(i, j) * s_c(j), diagonal scaled.
        if (TestFixture::small(A)) {
            const auto a = loom::test::dense_of(A);
            const auto e = loom::test::dense_of(expected);
            for (size_type i = 0; i < A.rows(); ++i) {
                for (size_type j = 0; j < A.cols(); ++j) {
                    const V d = i == j ? factor : V{1};
                    const V want = s_rows.at(i, 0) * (d * a[i * A.cols() + j]) * s_cols.at(j, 0);
                    EXPECT_LE(std::abs(e[i * A.cols() + j] - want),
                              10 * loom::test::tolerance<V>() *
                                  std::max(1.0, double(std::abs(want))));
                }
            }
        }

        auto actual = A_exec;
        sparse::scale_diagonal(actual, factor);
        sparse::scale_rows(actual, typename TestFixture::Dense(A_exec.executor(), s_rows));
        sparse::scale_columns(actual, typename TestFixture::Dense(A_exec.executor(), s_cols));
        loom::test::expect_close_csr(actual, expected);
    });
}

TYPED_TEST(CsrUtils, DropSmallEntries)
{
    using V = typename TestFixture::V;
    using R = loom::remove_complex_t<V>;
    this->for_each_case([&](const auto&, const auto& A, const auto& A_exec) {
        for (const bool keep_diagonal : {true, false}) {
            auto expected = A;
            sparse::drop_small_entries(expected, R(0.5), keep_diagonal);
            // What stays: every entry >= 0.5 in magnitude, and the diagonal when asked, in order.
            const auto ptrs = A.row_ptrs().to_host();
            const auto cols = A.col_idxs().to_host();
            const auto values = A.values().to_host();
            std::vector<typename TestFixture::I> kept_cols;
            std::vector<V> kept_values;
            for (size_type r = 0; r < A.rows(); ++r) {
                for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                    if (std::abs(values[k]) >= R(0.5) || (keep_diagonal && cols[k] == r)) {
                        kept_cols.push_back(cols[k]);
                        kept_values.push_back(values[k]);
                    }
                }
            }
            EXPECT_EQ(expected.col_idxs().to_host(), kept_cols);
            EXPECT_EQ(expected.values().to_host(), kept_values);

            auto actual = A_exec;
            sparse::drop_small_entries(actual, R(0.5), keep_diagonal);
            loom::test::expect_same_csr(actual, expected);
        }
    });
}

TYPED_TEST(CsrUtils, DropKeepsNotANumber)
{
    using V = typename TestFixture::V;
    using R = loom::remove_complex_t<V>;
    const V nan{std::numeric_limits<R>::quiet_NaN()};
    auto A = TestFixture::Csr::from_host(this->ref, {1, 3}, {0, 3}, {0, 1, 2},
                                         {V{0.1}, nan, V{2}});
    for (const auto& exec : loom::test::backends()) {
        typename TestFixture::Csr B(exec, A);
        sparse::drop_small_entries(B, R(1), false);
        EXPECT_EQ(B.col_idxs().to_host(), (std::vector<typename TestFixture::I>{1, 2}));
    }
    sparse::drop_small_entries(A, R(1), false);
    EXPECT_EQ(A.col_idxs().to_host(), (std::vector<typename TestFixture::I>{1, 2}));
}

TYPED_TEST(CsrUtils, BadInputLeavesTheMatrixAlone)
{
    using V = typename TestFixture::V;
    using R = loom::remove_complex_t<V>;
    const auto A = loom::test::random_csr<V, typename TestFixture::I>(this->ref, {10, 7, 3});
    auto B = A;
    EXPECT_THROW(sparse::scale_rows(B, TestFixture::column(this->ref, 7, 1)),
                 loom::DimensionMismatch);
    EXPECT_THROW(sparse::scale_columns(B, TestFixture::column(this->ref, 10, 1)),
                 loom::DimensionMismatch);
    EXPECT_THROW(sparse::scale_rows(B, typename TestFixture::Dense(this->ref, dim2{10, 2})),
                 loom::DimensionMismatch);
    auto wrong = TestFixture::column(this->ref, 8, 1);
    EXPECT_THROW(sparse::extract_diagonal(A, wrong), loom::DimensionMismatch);
    EXPECT_THROW(sparse::drop_small_entries(B, R(-1)), loom::BadInput);
    EXPECT_THROW(sparse::drop_small_entries(B, std::numeric_limits<R>::quiet_NaN()),
                 loom::BadInput);
    loom::test::expect_same_csr(B, A);
    typename TestFixture::Csr empty;
    EXPECT_THROW(sparse::transpose(empty), loom::BadInput);
    EXPECT_THROW(sparse::sort_columns(empty), loom::BadInput);
}

TYPED_TEST(CsrUtils, OperandsOnAnotherExecutorAreRejected)
{
    using V = typename TestFixture::V;
    if (!loom::OmpExecutor::available() && !loom::CudaExecutor::available()) {
        GTEST_SKIP() << "one executor only";
    }
    auto A = loom::test::random_csr<V, typename TestFixture::I>(this->ref, {10, 10, 3});
    for (const auto& exec : loom::test::backends()) {
        if (exec->same_memory_as(*this->ref)) continue;
        EXPECT_THROW(sparse::scale_rows(A, TestFixture::column(exec, 10, 1)), loom::BadInput);
    }
}

}  // namespace
}  // namespace loom::test
