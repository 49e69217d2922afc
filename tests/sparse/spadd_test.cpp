// SpAdd: the reference against dense sums, every backend against the reference (the pattern
// exactly, the values to rounding), numeric reuse, pattern changes, bad input, cuSPARSE.
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/matrix/io.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"
#include "support/csr_checks.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::sparse::ColumnOrder;
using loom::sparse::SpaddAlgorithm;

/// Pairs (A, B) of one shape: awkward sizes, rectangles, empty rows, a dense row (long enough
/// for the block-wide and global paths of the CUDA kernels), unsorted rows, duplicates.
std::vector<std::pair<loom::test::PatternSpec, loom::test::PatternSpec>> spec_pairs()
{
    std::vector<std::pair<loom::test::PatternSpec, loom::test::PatternSpec>> result;
    std::uint64_t seed = 21;
    const auto add = [&](size_type rows, size_type cols, double a_per_row, double b_per_row) {
        const auto i = result.size();
        loom::test::PatternSpec a{rows, cols, a_per_row, i % 3 == 1, i % 2 == 0, i % 4 == 1,
                                  seed++};
        loom::test::PatternSpec b{rows, cols, b_per_row, i % 5 == 2, i % 3 != 2, i % 4 == 2,
                                  seed++};
        result.emplace_back(a, b);
    };
    for (const auto n : loom::test::awkward_sizes()) add(n, n, 4, 3);
    add(31, 100, 3, 9);
    add(100, 31, 3, 0);
    add(1, 33, 8, 8);
    add(33, 1, 0.5, 0.5);
    add(0, 7, 1, 1);
    add(7, 0, 1, 1);
    add(300, 3000, 150, 140);  // rows past a warp's capacity, a dense row past a block's
    result.back().first.dense_row = true;
    add(4000, 4000, 30, 30);
    return result;
}

template <typename T>
class Spadd : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::Csr;

    /// The distinct (row, column) pairs of A and B.
    static size_type union_size(const Csr& A, const Csr& B)
    {
        std::set<std::pair<size_type, size_type>> entries;
        for (const auto* M : {&A, &B}) {
            const auto ptrs = M->row_ptrs().to_host();
            const auto cols = M->col_idxs().to_host();
            for (size_type r = 0; r < M->rows(); ++r) {
                for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) entries.emplace(r, cols[k]);
            }
        }
        return static_cast<size_type>(entries.size());
    }

    static bool has_duplicates(const Csr& M)
    {
        return sparse::column_order(M) != ColumnOrder::increasing &&
               [&] {
                   auto copy = M;
                   sparse::merge_duplicates(copy);
                   return copy.nnz() != M.nnz();
               }();
    }

    /// Values of a random matrix with M's pattern.
    static Csr with_new_values(const Csr& M, std::uint64_t seed)
    {
        std::mt19937_64 rng(seed);
        std::vector<V> values(static_cast<std::size_t>(M.nnz()));
        for (auto& v : values) v = loom::test::random_value<V>(rng);
        Csr result(M);
        result.values() = loom::Array<V>(M.executor(), values);
        return result;
    }

    void expect_sum(V alpha, const Csr& A, V beta, const Csr& B, const Csr& C)
    {
        const auto a = loom::test::dense_of(A);
        const auto b = loom::test::dense_of(B);
        std::vector<V> expected(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) expected[i] = alpha * a[i] + beta * b[i];
        LOOM_EXPECT_NEAR_VECTORS(loom::test::dense_of(C), expected, loom::test::tolerance<V>());
    }
};

TYPED_TEST_SUITE(Spadd, loom::test::ValueIndexTypes);

TYPED_TEST(Spadd, ReferenceIsTheDenseSum)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto& [a_spec, b_spec] : spec_pairs()) {
        if (a_spec.rows * a_spec.cols > 200000) continue;
        const auto A = loom::test::random_csr<V, I>(this->ref, a_spec);
        const auto B = loom::test::random_csr<V, I>(this->ref, b_spec);
        const auto C = sparse::spadd(V{2}, A, V{-0.5}, B);
        EXPECT_EQ(sparse::column_order(C), ColumnOrder::increasing);
        EXPECT_EQ(C.nnz(), TestFixture::union_size(A, B));
        this->expect_sum(V{2}, A, V{-0.5}, B, C);
    }
}

TYPED_TEST(Spadd, BackendsMatchTheReference)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto& [a_spec, b_spec] : spec_pairs()) {
        const auto A = loom::test::random_csr<V, I>(this->ref, a_spec);
        const auto B = loom::test::random_csr<V, I>(this->ref, b_spec);
        const V alpha{1.5};
        const V beta{-3};
        const auto expected = sparse::spadd(alpha, A, beta, B);
        // Without duplicates every real entry of C is one or two rounded products: the same
        // bits everywhere (complex products may be contracted into fused multiply-adds).
        const bool exact = !loom::is_complex_v<V> && !TestFixture::has_duplicates(A) &&
                           !TestFixture::has_duplicates(B);
        for (const auto& exec : loom::test::backends()) {
            SCOPED_TRACE(exec->name() + " " + std::to_string(a_spec.rows) + "x" +
                         std::to_string(a_spec.cols) + " seed " + std::to_string(a_spec.seed));
            const auto C = sparse::spadd(alpha, Csr(exec, A), beta, Csr(exec, B));
            if (exact) {
                loom::test::expect_same_csr(C, expected);
            } else {
                loom::test::expect_close_csr(C, expected);
            }
        }
    }
}

TYPED_TEST(Spadd, RealMatrixPlusItsTranspose)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    for (const std::string name : {"west0989", "sherman1", "add32"}) {
        if (!loom::test::have_shared_matrix(name)) continue;
        const auto path = loom::test::shared_matrix_path(name);
        const auto A = matrix::read_csr<V, I>(this->ref, path);
        const auto At = sparse::transpose(A);
        const auto C = sparse::spadd(V{1}, A, V{1}, At);
        if (A.size().count() <= 1000000) this->expect_sum(V{1}, A, V{1}, At, C);
        for (const auto& exec : loom::test::backends()) {
            const auto C_exec = sparse::spadd(V{1}, Csr(exec, A), V{1}, Csr(exec, At));
            EXPECT_EQ(C_exec.col_idxs().to_host(), C.col_idxs().to_host()) << name;
            LOOM_EXPECT_NEAR_VECTORS(C_exec.values().to_host(), C.values().to_host(),
                                     loom::test::tolerance<V>());
        }
    }
}

TYPED_TEST(Spadd, NumericIsReusableForNewValues)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A0 = loom::test::random_csr<V, I>(this->ref, {200, 150, 5, true, false, true, 3});
    const auto B0 = loom::test::random_csr<V, I>(this->ref, {200, 150, 4, false, true, false, 4});
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        Csr A(exec, A0);
        Csr B(exec, B0);
        sparse::SpaddHandle<V, I> handle;
        Csr C;
        sparse::spadd_symbolic(handle, A, B, C);
        EXPECT_TRUE(handle.analyzed());
        EXPECT_EQ(handle.algorithm(), SpaddAlgorithm::native);
        sparse::spadd_numeric(handle, V{1}, A, V{1}, B, C);
        this->expect_sum(V{1}, A, V{1}, B, C);
        // New values in the same arrays, then in new matrices with the same patterns.
        A.values() = TestFixture::with_new_values(A, 7).values();
        sparse::spadd_numeric(handle, V{-1}, A, V{2}, B, C);
        this->expect_sum(V{-1}, A, V{2}, B, C);
        const auto A2 = TestFixture::with_new_values(A, 8);
        const auto B2 = TestFixture::with_new_values(B, 9);
        sparse::spadd_numeric(handle, V{0.5}, A2, V{0.25}, B2, C);
        this->expect_sum(V{0.5}, A2, V{0.25}, B2, C);
    }
}

TYPED_TEST(Spadd, PatternChangesAreRejected)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A0 = loom::test::random_csr<V, I>(this->ref, {50, 40, 4, false, true, false, 5});
    const auto B0 = loom::test::random_csr<V, I>(this->ref, {50, 40, 4, false, true, false, 6});
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const Csr A(exec, A0);
        const Csr B(exec, B0);
        sparse::SpaddHandle<V, I> handle;
        Csr C;
        EXPECT_THROW(sparse::spadd_numeric(handle, V{1}, A, V{1}, B, C), loom::BadInput);
        sparse::spadd_symbolic(handle, A, B, C);
        sparse::spadd_numeric(handle, V{1}, A, V{1}, B, C);
        const auto before = C.values().to_host();

        // Same number of entries, one column moved.
        auto cols = A0.col_idxs().to_host();
        cols[0] = (cols[0] + 1) % 40;
        const Csr moved(exec, Csr::from_host(this->ref, A0.size(), A0.row_ptrs().to_host(), cols,
                                             A0.values().to_host()));
        EXPECT_THROW(sparse::spadd_numeric(handle, V{2}, moved, V{1}, B, C), loom::BadInput);
        // Another number of entries; another shape.
        const Csr other(exec, loom::test::random_csr<V, I>(this->ref, {50, 40, 6}));
        EXPECT_THROW(sparse::spadd_numeric(handle, V{2}, A, V{1}, other, C), loom::BadInput);
        const Csr wide(exec, loom::test::random_csr<V, I>(this->ref, {50, 41, 4}));
        EXPECT_THROW(sparse::spadd_numeric(handle, V{2}, A, V{1}, wide, C), loom::BadInput);
        // A result that is not the symbolic phase's.
        Csr not_c(exec, A0);
        EXPECT_THROW(sparse::spadd_numeric(handle, V{2}, A, V{1}, B, not_c), loom::BadInput);
        EXPECT_EQ(C.values().to_host(), before);

        // A pattern rewritten through the matrix is caught: that drops its cached fingerprint.
        sparse::SpaddHandle<V, I> plain;
        Csr A_mutable(A);
        sparse::spadd_symbolic(plain, A_mutable, B, C);
        A_mutable.col_idxs() = loom::Array<I>(exec, cols);
        EXPECT_THROW(sparse::spadd_numeric(plain, V{1}, A_mutable, V{1}, B, C), loom::BadInput);

        // Written through a pointer kept from before: caught when the handle verifies.
        sparse::SpaddHandle<V, I> verifying({.pattern_check = loom::PatternCheck::always});
        Csr A_raw(A);
        I* raw_cols = A_raw.col_idxs().data();
        sparse::spadd_symbolic(verifying, A_raw, B, C);
        sparse::spadd_numeric(verifying, V{1}, A_raw, V{1}, B, C);
        exec->copy_from(*this->ref, sizeof(I) * cols.size(), cols.data(), raw_cols);
        EXPECT_THROW(sparse::spadd_numeric(verifying, V{1}, A_raw, V{1}, B, C), loom::BadInput);
    }
}

TYPED_TEST(Spadd, BadInput)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = loom::test::random_csr<V, I>(this->ref, {10, 8, 3});
    const auto B = loom::test::random_csr<V, I>(this->ref, {10, 9, 3});
    sparse::SpaddHandle<V, I> handle;
    Csr C = A;
    EXPECT_THROW(sparse::spadd_symbolic(handle, A, B, C), loom::DimensionMismatch);
    EXPECT_FALSE(handle.analyzed());
    EXPECT_EQ(C.col_idxs().to_host(), A.col_idxs().to_host());
    EXPECT_THROW(sparse::spadd_symbolic(handle, Csr{}, A, C), loom::BadInput);
    for (const auto& exec : loom::test::backends()) {
        if (exec->same_memory_as(*this->ref)) continue;  // host executors share memory
        EXPECT_THROW(sparse::spadd_symbolic(handle, A, Csr(exec, A), C), loom::BadInput);
    }
    // cuSPARSE runs on CUDA executors only.
    sparse::SpaddHandle<V, I> vendor({SpaddAlgorithm::vendor});
    EXPECT_THROW(sparse::spadd_symbolic(vendor, A, A, C), loom::NotSupported);
    EXPECT_EQ(sparse::parse_spadd_algorithm("cusparse"), SpaddAlgorithm::vendor);
    EXPECT_THROW(sparse::parse_spadd_algorithm("fast"), loom::BadInput);
}

TYPED_TEST(Spadd, OutputAliasingAnInputIsBadInput)
{
    LOOM_TYPED_TEST_TYPES;
    // spadd_symbolic(h, C, A, C) + spadd_numeric(h, 1, C, 1, A, C) returned A, not 2A.
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const Csr A(exec, loom::test::random_csr<V, I>(this->ref, {12, 12, 3}));
        Csr C(A);
        const auto before = C.values().to_host();
        sparse::SpaddHandle<V, I> handle;
        EXPECT_THROW(sparse::spadd_symbolic(handle, C, A, C), loom::BadInput);
        EXPECT_THROW(sparse::spadd_symbolic(handle, A, C, C), loom::BadInput);
        EXPECT_EQ(C.values().to_host(), before);  // untouched
        // A handle analysed for separate matrices, then asked to write into an input.
        Csr D;
        sparse::spadd_symbolic(handle, C, A, D);
        EXPECT_THROW(sparse::spadd_numeric(handle, V{1}, C, V{1}, A, C), loom::BadInput);
        EXPECT_EQ(C.values().to_host(), before);
        // A view of an input's arrays is the input too.
        auto view = Csr(exec, {12, 12}, A.nnz());
        view.values() = loom::Array<V>::view(exec, A.nnz(), const_cast<V*>(A.values().const_data()));
        EXPECT_THROW(sparse::spadd_numeric(handle, V{1}, C, V{1}, A, view), loom::BadInput);
    }
}

TYPED_TEST(Spadd, CusparseMatchesNative)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A0 = loom::test::random_csr<V, I>(this->ref, {500, 400, 6, true, true, false, 1});
    const auto B0 = loom::test::random_csr<V, I>(this->ref, {500, 400, 5, false, true, false, 2});
    const Csr A(cuda, A0);
    const Csr B(cuda, B0);
    sparse::SpaddHandle<V, I> handle({SpaddAlgorithm::vendor});
    Csr C;
    if constexpr (sizeof(I) != 4) {
        EXPECT_THROW(sparse::spadd_symbolic(handle, A, B, C), loom::NotSupported);
        return;
    }
    sparse::spadd_symbolic(handle, A, B, C);
    EXPECT_EQ(handle.algorithm(), SpaddAlgorithm::vendor);
    sparse::spadd_numeric(handle, V{2}, A, V{-1}, B, C);
    const auto expected = sparse::spadd(V{2}, A0, V{-1}, B0);
    loom::test::expect_close_csr(C, expected);
    // Unsorted rows are not for cuSPARSE.
    const Csr unsorted(cuda, loom::test::random_csr<V, I>(this->ref, {500, 400, 6, false, false}));
    EXPECT_THROW(sparse::spadd_symbolic(handle, unsorted, B, C), loom::NotSupported);
}

}  // namespace
}  // namespace loom::test
