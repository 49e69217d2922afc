// Permutation: vectors and matrices permuted as P x, P A P^T, P A and A P^T, checked
// against index arithmetic on the host; every backend against the reference; bad input.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "graph/graph_support.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/matrix/permutation.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


template <typename T>
class Permutation : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr, typename Base::Dense;

    using Perm = matrix::Permutation<I>;

    static bool rows_sorted(const Csr& A)
    {
        const auto ptrs = A.row_ptrs().to_host();
        const auto cols = A.col_idxs().to_host();
        for (size_type r = 0; r < A.rows(); ++r) {
            if (!std::is_sorted(cols.begin() + ptrs[r], cols.begin() + ptrs[r + 1])) return false;
        }
        return true;
    }
};

TYPED_TEST_SUITE(Permutation, loom::test::ValueIndexTypes);

TYPED_TEST(Permutation, PermutesVectorsAndMatricesOnEveryBackend)
{
    LOOM_TYPED_TEST_TYPES;
    using Perm = typename TestFixture::Perm;
    auto executors = loom::test::backends();
    executors.push_back(this->ref);
    for (const size_type n : {0, 1, 31, 32, 33, 500}) {
        const auto perm = loom::test::random_permutation<I>(n, static_cast<unsigned>(n));
        const loom::test::PatternSpec spec{n, n, 5, n > 32, false, true, 17};
        const auto A = loom::test::random_csr<V, I>(this->ref, spec);
        const auto x = loom::test::random_dense<V>(this->ref, {n, 3}, 5, 4);
        const auto dense = loom::test::dense_of(A);
        std::vector<V> symmetric(n * n), rows(n * n), columns(n * n), px(n * 3);
        for (size_type k = 0; k < n; ++k) {
            for (size_type l = 0; l < n; ++l) {
                symmetric[k * n + l] = dense[perm[k] * n + perm[l]];
                rows[k * n + l] = dense[perm[k] * n + l];
                columns[k * n + l] = dense[k * n + perm[l]];
            }
            for (size_type c = 0; c < 3; ++c) px[k * 3 + c] = x.to_host()[perm[k] * 3 + c];
        }
        for (const auto& exec : executors) {
            const auto where = std::to_string(n) + " on " + exec->name();
            const Perm P(exec, Array<I>(this->ref, perm));
            EXPECT_EQ(P.indices().to_host(), perm) << where;
            const Csr B(exec, A);
            const auto PAPt = P.permute(B);
            EXPECT_EQ(loom::test::dense_of(PAPt), symmetric) << where;
            EXPECT_TRUE(this->rows_sorted(PAPt)) << where;
            EXPECT_EQ(loom::test::dense_of(P.permute_rows(B)), rows) << where;
            const auto APt = P.permute_columns(B);
            EXPECT_EQ(loom::test::dense_of(APt), columns) << where;
            EXPECT_TRUE(this->rows_sorted(APt)) << where;
            EXPECT_EQ(P.apply(Dense(exec, x)).to_host(), px) << where;
            // The inverse undoes it.
            EXPECT_EQ(loom::test::dense_of(P.inverse().permute(PAPt)), dense) << where;
            const auto inverse = P.inverse().indices().to_host();
            for (size_type k = 0; k < n; ++k) EXPECT_EQ(inverse[perm[k]], k) << where;
        }
    }
}

TYPED_TEST(Permutation, RefusesIndicesThatAreNoPermutation)
{
    using I = typename TestFixture::I;
    using Perm = typename TestFixture::Perm;
    auto executors = loom::test::backends();
    executors.push_back(this->ref);
    for (const auto& exec : executors) {
        EXPECT_THROW(Perm(exec, Array<I>(exec, {0, 2, 2, 1})), loom::BadInput) << exec->name();
        EXPECT_THROW(Perm(exec, Array<I>(exec, {0, 1, 4})), loom::BadInput) << exec->name();
        EXPECT_THROW(Perm(exec, Array<I>(exec, {0, -1})), loom::BadInput) << exec->name();
        EXPECT_NO_THROW(Perm(exec, Array<I>(exec, {2, 0, 1}))) << exec->name();
    }
}

TYPED_TEST(Permutation, RefusesOperandsOfTheWrongSize)
{
    LOOM_TYPED_TEST_TYPES;
    using Perm = typename TestFixture::Perm;
    const Perm P(this->ref, Array<I>(this->ref, {1, 0, 2}));
    const auto square = Csr::from_host(this->ref, {2, 2}, {0, 1, 2}, {0, 1}, {V{1}, V{2}});
    const auto tall = Csr::from_host(this->ref, {3, 2}, {0, 1, 2, 2}, {0, 1}, {V{1}, V{2}});
    EXPECT_THROW(P.permute(square), loom::BadInput);
    EXPECT_THROW(Perm{}.permute(square), loom::BadInput);
    EXPECT_THROW(P.permute(tall), loom::BadInput);
    EXPECT_NO_THROW(P.permute_rows(tall));
    EXPECT_THROW(P.permute_columns(tall), loom::BadInput);
    Dense y(this->ref, {3, 2});
    const Dense x2(this->ref, {2, 2});
    const Dense x3(this->ref, {3, 1});
    EXPECT_THROW(P.apply(x2, y), loom::BadInput);
    EXPECT_THROW(P.apply(x3, y), loom::DimensionMismatch);
}

}  // namespace
}  // namespace loom::test
