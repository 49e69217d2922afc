// Views of external memory that hold its owner alive (Array::view's keep-alive): released
// exactly when the last holder goes away, whatever the view was moved into.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmv.hpp"
#include "support/executors.hpp"

namespace {

/// External memory whose destructor records that it was released.
struct Owner {
    Owner(std::vector<double> values, bool& released) : data(std::move(values)), released(released)
    {}
    ~Owner() { released = true; }
    std::vector<double> data;
    bool& released;
};

/// A view of the owner's memory holding the only other reference to it.
loom::Array<double> view_owning(std::vector<double> values, bool& released)
{
    auto owner = std::make_shared<Owner>(std::move(values), released);
    return loom::Array<double>::view(loom::test::reference(), owner->data.size(),
                                     owner->data.data(), owner);
}

TEST(ArrayKeepAlive, ReleasedWhenTheViewDies)
{
    bool released = false;
    {
        auto view = view_owning({1, 2, 3}, released);
        EXPECT_FALSE(released);
        EXPECT_FALSE(view.is_owning());
        EXPECT_EQ(view.to_host(), (std::vector<double>{1, 2, 3}));
    }
    EXPECT_TRUE(released);
}

TEST(ArrayKeepAlive, TravelsWithMoves)
{
    bool released = false;
    auto view = view_owning({1, 2}, released);
    auto moved = std::move(view);
    loom::Array<double> assigned;
    assigned = std::move(moved);
    EXPECT_FALSE(released);
    moved = loom::Array<double>();
    view = loom::Array<double>();
    EXPECT_FALSE(released);
    assigned = loom::Array<double>();
    EXPECT_TRUE(released);
}

TEST(ArrayKeepAlive, CopiesAreDeepAndDoNotHoldIt)
{
    bool released = false;
    loom::Array<double> copy;
    {
        auto view = view_owning({4, 5}, released);
        copy = view;
    }
    EXPECT_TRUE(released);
    EXPECT_TRUE(copy.is_owning());
    EXPECT_EQ(copy.to_host(), (std::vector<double>{4, 5}));
}

TEST(ArrayKeepAlive, ReleasedWhenTheViewStopsViewing)
{
    bool released = false;
    auto view = view_owning({1, 2, 3}, released);
    view.resize_and_reset(5);
    EXPECT_TRUE(released);
    EXPECT_TRUE(view.is_owning());
}

TEST(ArrayKeepAlive, AssigningValuesOfTheSameSizeKeepsViewing)
{
    bool released = false;
    auto view = view_owning({1, 2}, released);
    const loom::Array<double> values(loom::test::reference(), {7, 8});
    view = values;
    EXPECT_FALSE(released);
    EXPECT_FALSE(view.is_owning());
    EXPECT_EQ(view.to_host(), (std::vector<double>{7, 8}));
}

TEST(ArrayKeepAlive, NegativeSizeIsBadInput)
{
    double x = 0;
    EXPECT_THROW(loom::Array<double>::view(loom::test::reference(), -1, &x), loom::BadInput);
}

TEST(ArrayKeepAlive, CsrBuiltFromViewsKeepsTheOwnersAlive)
{
    using Csr = loom::matrix::Csr<double, loom::int32>;
    const auto ref = loom::test::reference();
    // [[2, 0], [1, 3]] in external CSR arrays, each with its own owner.
    auto row_ptrs = std::make_shared<std::vector<loom::int32>>(std::vector<loom::int32>{0, 1, 3});
    auto col_idxs = std::make_shared<std::vector<loom::int32>>(std::vector<loom::int32>{0, 0, 1});
    bool values_released = false;
    auto values = view_owning({2, 1, 3}, values_released);
    std::weak_ptr<std::vector<loom::int32>> rows_alive = row_ptrs;
    {
        Csr A(ref, {2, 2}, loom::Array<loom::int32>::view(ref, 3, row_ptrs->data(), row_ptrs),
              loom::Array<loom::int32>::view(ref, 3, col_idxs->data(), col_idxs),
              std::move(values));
        row_ptrs.reset();
        col_idxs.reset();
        EXPECT_FALSE(rows_alive.expired());
        EXPECT_FALSE(values_released);
        auto x = loom::matrix::Dense<double>::from_host(ref, {2, 1}, {1, 1});
        loom::matrix::Dense<double> y(ref, {2, 1});
        loom::sparse::spmv(loom::sparse::Mode::none, 1.0, A, x, 0.0, y);
        EXPECT_EQ(y.to_host(), (std::vector<double>{2, 4}));
    }
    EXPECT_TRUE(rows_alive.expired());
    EXPECT_TRUE(values_released);
}

TEST(ArrayKeepAlive, DenseViewKeepsTheOwnerAlive)
{
    bool released = false;
    {
        auto owner = std::make_shared<Owner>(std::vector<double>{1, 2, 3, 4, 5, 6}, released);
        auto D = loom::matrix::Dense<double>::view(loom::test::reference(), {2, 2}, 3,
                                                   owner->data.data(), owner);
        owner.reset();
        EXPECT_FALSE(released);
        EXPECT_EQ(D.to_host(), (std::vector<double>{1, 2, 4, 5}));
    }
    EXPECT_TRUE(released);
}

}  // namespace
