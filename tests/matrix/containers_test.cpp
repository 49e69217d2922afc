// Coo, Ell and Sellp: construction, copies across executors, validation of sizes and
// indices (failures leave the caller's data as it was), and apply through SpMV.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace {

using loom::dim2;
using loom::size_type;
namespace matrix = loom::matrix;

/// Runs statement, expects it to throw E, and returns the message.
template <typename E, typename F>
std::string message_of(F&& statement)
{
    try {
        statement();
    } catch (const E& error) {
        return error.what();
    } catch (const std::exception& other) {
        ADD_FAILURE() << "threw another error: " << other.what();
        return {};
    }
    ADD_FAILURE() << "did not throw";
    return {};
}

template <typename T>
class Containers : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::Coo;

    /// 3 x 4 with an empty row, an unsorted row and a duplicate.
    Coo small_coo(std::shared_ptr<const loom::Executor> exec) const
    {
        return Coo::from_host(std::move(exec), {3, 4}, {2, 0, 2, 2, 0}, {3, 1, 0, 3, 0},
                              {V{1}, V{2}, V{3}, V{4}, V{5}});
    }
};

TYPED_TEST_SUITE(Containers, loom::test::ValueIndexTypes);

TYPED_TEST(Containers, CooHoldsWhatItWasGiven)
{
    LOOM_TYPED_TEST_TYPES;
    const auto coo = this->small_coo(this->ref);
    EXPECT_EQ(coo.size(), (dim2{3, 4}));
    EXPECT_EQ(coo.nnz(), 5);
    EXPECT_EQ(coo.row_idxs().to_host(), (std::vector<I>{2, 0, 2, 2, 0}));
    EXPECT_EQ(coo.col_idxs().to_host(), (std::vector<I>{3, 1, 0, 3, 0}));
    EXPECT_EQ(coo.values().to_host(), (std::vector<V>{1, 2, 3, 4, 5}));
    const typename TestFixture::Coo empty(this->ref, {0, 0});
    EXPECT_EQ(empty.nnz(), 0);
    EXPECT_NO_THROW(empty.validate());
}

TYPED_TEST(Containers, CopiesCrossExecutors)
{
    const auto coo = this->small_coo(this->ref);
    const auto csr = matrix::to_csr(coo);
    const auto ell = matrix::to_ell(csr);
    const auto sellp = matrix::to_sellp(csr, 2, 2);
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        const typename TestFixture::Coo coo_there(exec, coo);
        const typename TestFixture::Ell ell_there(exec, ell);
        const typename TestFixture::Sellp sellp_there(exec, sellp);
        EXPECT_EQ(coo_there.executor(), exec);
        EXPECT_EQ(ell_there.executor(), exec);
        EXPECT_EQ(sellp_there.executor(), exec);
        // A copy stays on its source's executor; back on the host it holds the same arrays.
        const auto coo_copy = coo_there;
        EXPECT_EQ(coo_copy.executor(), exec);
        const typename TestFixture::Coo coo_back(this->ref, coo_copy);
        EXPECT_EQ(coo_back.row_idxs().to_host(), coo.row_idxs().to_host());
        EXPECT_EQ(coo_back.col_idxs().to_host(), coo.col_idxs().to_host());
        EXPECT_EQ(coo_back.values().to_host(), coo.values().to_host());
        const typename TestFixture::Ell ell_back(this->ref, typename TestFixture::Ell(ell_there));
        EXPECT_EQ(ell_back.width(), ell.width());
        EXPECT_EQ(ell_back.stride(), ell.stride());
        EXPECT_EQ(ell_back.col_idxs().to_host(), ell.col_idxs().to_host());
        EXPECT_EQ(ell_back.values().to_host(), ell.values().to_host());
        const typename TestFixture::Sellp sellp_back(this->ref,
                                                     typename TestFixture::Sellp(sellp_there));
        EXPECT_EQ(sellp_back.slice_size(), 2);
        EXPECT_EQ(sellp_back.stride_factor(), 2);
        EXPECT_EQ(sellp_back.slice_lengths().to_host(), sellp.slice_lengths().to_host());
        EXPECT_EQ(sellp_back.slice_sets().to_host(), sellp.slice_sets().to_host());
        EXPECT_EQ(sellp_back.col_idxs().to_host(), sellp.col_idxs().to_host());
        EXPECT_EQ(sellp_back.values().to_host(), sellp.values().to_host());
    }
}

TYPED_TEST(Containers, CopyAssignmentKeepsTheTargetExecutor)
{
    const auto coo = this->small_coo(this->ref);
    const auto ell = matrix::to_ell(coo);
    const auto sellp = matrix::to_sellp(coo);
    for (const auto& exec : loom::test::backends()) {
        typename TestFixture::Coo coo_there(exec, {1, 1});
        coo_there = coo;
        EXPECT_EQ(coo_there.executor(), exec);
        EXPECT_EQ(coo_there.values().to_host(), coo.values().to_host());
        typename TestFixture::Ell ell_there(exec, {1, 1}, 1);
        ell_there = ell;
        EXPECT_EQ(ell_there.executor(), exec);
        EXPECT_EQ(ell_there.col_idxs().to_host(), ell.col_idxs().to_host());
        typename TestFixture::Sellp sellp_there(exec, {1, 1}, 0);
        sellp_there = sellp;
        EXPECT_EQ(sellp_there.executor(), exec);
        EXPECT_EQ(sellp_there.slice_sets().to_host(), sellp.slice_sets().to_host());
    }
    typename TestFixture::Coo unset;
    unset = coo;
    EXPECT_EQ(unset.executor(), this->ref);
}

TYPED_TEST(Containers, CooIndexOutOfRangeNamesTheEntry)
{
    LOOM_TYPED_TEST_TYPES;
    const std::vector<I> rows{0, 1, 2, 3};
    const std::vector<I> good_cols{0, 1, 2, 1};
    const std::vector<I> bad_cols{0, 1, -1, 1};
    const std::vector<V> values{1, 2, 3, 4};
    const auto execs = loom::test::all_executors();
    for (const auto& exec : execs) {
        const auto row_error = message_of<loom::OutOfRange>([&] {
            TestFixture::Coo::from_host(exec, {3, 3}, rows, good_cols, values);
        });
        EXPECT_NE(row_error.find("row index of entry 3"), std::string::npos) << row_error;
        const auto col_error = message_of<loom::OutOfRange>([&] {
            TestFixture::Coo::from_host(exec, {4, 3}, rows, bad_cols, values);
        });
        EXPECT_NE(col_error.find("column index of entry 2"), std::string::npos) << col_error;
    }
    EXPECT_EQ(rows, (std::vector<I>{0, 1, 2, 3}));
    EXPECT_EQ(bad_cols, (std::vector<I>{0, 1, -1, 1}));
}

TYPED_TEST(Containers, CooArraysOfDifferentLengthsAreBadInput)
{
    LOOM_TYPED_TEST_TYPES;
    const loom::Array<I> rows(this->ref, {0, 1});
    const loom::Array<I> cols(this->ref, {0, 1, 1});
    const loom::Array<V> values(this->ref, {V{1}, V{2}});
    EXPECT_THROW(typename TestFixture::Coo(this->ref, {2, 2}, rows, cols, values), loom::BadInput);
    // The caller's arrays were copied in, not taken.
    EXPECT_EQ(rows.to_host(), (std::vector<I>{0, 1}));
    EXPECT_EQ(cols.to_host(), (std::vector<I>{0, 1, 1}));
    EXPECT_THROW(typename TestFixture::Coo(this->ref, {-1, 2}, 0), loom::BadInput);
}

TYPED_TEST(Containers, CsrWithDecreasingRowPointersIsBadInput)
{
    LOOM_TYPED_TEST_TYPES;
    const std::vector<I> ptrs{0, 2, 1, 3};
    EXPECT_THROW(TestFixture::Csr::from_host(this->ref, {3, 3}, ptrs, {0, 1, 2},
                                             {V{1}, V{2}, V{3}}),
                 loom::BadInput);
    EXPECT_EQ(ptrs, (std::vector<I>{0, 2, 1, 3}));
}

TYPED_TEST(Containers, EllSizes)
{
    const typename TestFixture::Ell ell(this->ref, {5, 3}, 2);
    EXPECT_EQ(ell.width(), 2);
    EXPECT_EQ(ell.stride(), 5);
    EXPECT_EQ(ell.slots(), 10);
    const typename TestFixture::Ell padded(this->ref, {5, 3}, 2, 8);
    EXPECT_EQ(padded.stride(), 8);
    EXPECT_EQ(padded.slots(), 16);
    const typename TestFixture::Ell empty(this->ref, {0, 0}, 0);
    EXPECT_EQ(empty.slots(), 0);
    EXPECT_NO_THROW(empty.validate());
    EXPECT_THROW(typename TestFixture::Ell(this->ref, {5, 3}, -1), loom::BadInput);
    EXPECT_THROW(typename TestFixture::Ell(this->ref, {5, 3}, 2, 4), loom::BadInput);
    EXPECT_THROW(typename TestFixture::Ell(this->ref, {-5, 3}, 2), loom::BadInput);
}

TYPED_TEST(Containers, EllValidateNamesTheSlot)
{
    using I = typename TestFixture::I;
    auto ell = matrix::to_ell(this->small_coo(this->ref));
    EXPECT_NO_THROW(ell.validate());
    // Slot 1 of row 2 (at 1 * stride + 2) gets a column past the end.
    ell.col_idxs().data()[1 * ell.stride() + 2] = I{4};
    const auto error = message_of<loom::OutOfRange>([&] { ell.validate(); });
    EXPECT_NE(error.find("slot 1 in row 2"), std::string::npos) << error;
}

TYPED_TEST(Containers, SellpSizes)
{
    const typename TestFixture::Sellp sellp(this->ref, {70, 3}, 5, 32, 1);
    EXPECT_EQ(sellp.num_slices(), 3);
    EXPECT_EQ(sellp.slice_sets().size(), 4);
    EXPECT_EQ(sellp.slots(), 5 * 32);
    // Without slot columns every slice is empty: a valid zero matrix.
    const typename TestFixture::Sellp zero(this->ref, {70, 3}, 0, 16, 4);
    EXPECT_NO_THROW(zero.validate());
    EXPECT_EQ(matrix::to_csr(zero).nnz(), 0);
    EXPECT_THROW(typename TestFixture::Sellp(this->ref, {70, 3}, 5, 0), loom::BadInput);
    EXPECT_THROW(typename TestFixture::Sellp(this->ref, {70, 3}, 5, 32, 0), loom::BadInput);
    EXPECT_THROW(typename TestFixture::Sellp(this->ref, {70, 3}, -5), loom::BadInput);
    EXPECT_THROW(typename TestFixture::Sellp(this->ref, {70, -3}, 5), loom::BadInput);
}

TYPED_TEST(Containers, SellpValidateChecksSlices)
{
    using I = typename TestFixture::I;
    const auto good = matrix::to_sellp(this->small_coo(this->ref), 2, 2);
    EXPECT_NO_THROW(good.validate());
    auto bad_sets = good;
    bad_sets.slice_sets().data()[1] += 1;
    EXPECT_THROW(bad_sets.validate(), loom::BadInput);
    auto bad_length = good;
    bad_length.slice_lengths().data()[0] = 3;  // not a multiple of the stride factor 2
    EXPECT_THROW(bad_length.validate(), loom::BadInput);
    auto bad_col = good;
    bad_col.col_idxs().data()[0] = I{-7};
    const auto error = message_of<loom::OutOfRange>([&] { bad_col.validate(); });
    EXPECT_NE(error.find("slot 0 in row 0"), std::string::npos) << error;
}

TYPED_TEST(Containers, ApplyMatchesCsr)
{
    LOOM_TYPED_TEST_TYPES;
    const auto execs = loom::test::all_executors();
    const auto t = loom::test::random_triplets<V, I>({45, 38, 4, true, false, true, 9});
    for (const auto& exec : execs) {
        SCOPED_TRACE(exec->name());
        const auto coo = TestFixture::Coo::from_host(exec, t.size, t.rows, t.cols, t.values);
        const auto csr = matrix::to_csr(coo);
        const auto b = loom::test::random_dense<V>(exec, {38, 2}, 4);
        typename TestFixture::Dense expected(exec, dim2{45, 2});
        csr.apply(b, expected);
        const auto check = [&](const loom::LinOp<V>& op) {
            typename TestFixture::Dense x(exec, dim2{45, 2});
            op.apply(b, x);
            LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), loom::test::tolerance<V>());
        };
        check(coo);
        check(matrix::to_ell(csr));
        check(matrix::to_sellp(csr, 4, 2));
    }
}

}  // namespace
