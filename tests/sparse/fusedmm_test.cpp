// FusedMM: the reference against an SDDMM followed by an SpMM, every backend against the
// reference for every edge operator and k, a user-supplied edge functor, the presets, and the
// argument checks.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/sparse/fusedmm.hpp"
#include "loom/sparse/fusedmm_custom.hpp"
#include "loom/sparse/sddmm.hpp"
#include "sparse/fusedmm_edge.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"
#include "support/typed_fixture.hpp"

namespace loom::test {
namespace {

using loom::sparse::EdgeOp;


template <typename T>
class Fusedmm : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr, typename Base::Dense;

    static double tolerance() { return std::max(1e-10, loom::test::tolerance<V>()); }

    /// Z = edge(X Y^T o pattern(A)) W computed unfused: SDDMM into a copy of A, the edge
    /// operator applied to its values, then SpMM.
    template <typename Edge>
    Dense unfused(Edge edge, const Csr& A, const Dense& X, const Dense& Y, const Dense& W)
    {
        Csr S(A);
        sparse::sddmm(V{1}, X, Y, V{0}, S);
        auto s = S.values().to_host();
        const auto a = A.values().to_host();
        for (std::size_t e = 0; e < s.size(); ++e) s[e] = edge(s[e], a[e]);
        S.values() = loom::Array<V>(this->ref, s);
        Dense Z(this->ref, dim2{A.rows(), W.cols()});
        sparse::spmm(sparse::Mode::none, V{1}, S, W, V{0}, Z);
        return Z;
    }
};

using RealTypes = ::testing::Types<
#if LOOM_HAS_FLOAT && LOOM_HAS_INT32
    loom::test::VI<float, loom::int32>,
#endif
#if LOOM_HAS_DOUBLE && LOOM_HAS_INT64
    loom::test::VI<double, loom::int64>,
#endif
#if LOOM_HAS_DOUBLE && LOOM_HAS_INT32
    loom::test::VI<double, loom::int32>
#endif
    >;
TYPED_TEST_SUITE(Fusedmm, RealTypes);

TYPED_TEST(Fusedmm, BackendsMatchSddmmThenSpmm)
{
    LOOM_TYPED_TEST_TYPES;
    const std::vector<loom::test::PatternSpec> specs{{40, 40, 3, true, true, false, 1},
                                                     {33, 70, 0.5, false, true, false, 2},
                                                     {70, 33, 4, true, false, true, 3},
                                                     {0, 5, 1, false, true, false, 4},
                                                     {1, 500, 400, false, true, false, 5},
                                                     // a dense row of 40000 entries: 157
                                                     // chunks, cut-row segments summed first
                                                     {50, 40000, 2, true, true, false, 6}};
    for (const auto& spec : specs) {
        const auto A_ref = loom::test::random_csr<V, I>(this->ref, spec);
        for (const auto [k, kw] : {std::pair<size_type, size_type>{1, 1},
                                   {2, 33},
                                   {31, 32},
                                   {33, 2},
                                   {64, 256},
                                   {256, 64}}) {
            const auto X_ref = loom::test::random_dense<V>(this->ref, {spec.rows, k}, 3, k + 1);
            const auto Y_ref = loom::test::random_dense<V>(this->ref, {spec.cols, k}, 4);
            const auto W_ref = loom::test::random_dense<V>(this->ref, {spec.cols, kw}, 5);
            for (const auto op : {EdgeOp::identity, EdgeOp::scale, EdgeOp::sigmoid}) {
                Dense expected(this->ref, dim2{});
                sparse::with_edge_functor(op, [&](auto edge) {
                    expected = this->unfused(edge, A_ref, X_ref, Y_ref, W_ref);
                });
                for (const auto& exec : {this->ref, loom::test::backends().front()}) {
                    SCOPED_TRACE(exec->name() + " " + loom::to_string(A_ref.size()) + " k " +
                                 std::to_string(k) + " kw " + std::to_string(kw) + " " +
                                 sparse::to_string(op));
                    const Csr A(exec, A_ref);
                    const Dense X(exec, X_ref), Y(exec, Y_ref), W(exec, W_ref);
                    Dense Z(exec, dim2{spec.rows, kw}, kw + 2);
                    sparse::fusedmm(op, A, X, Y, W, Z);
                    LOOM_EXPECT_NEAR_VECTORS(Z.to_host(), expected.to_host(), this->tolerance());
                }
            }
        }
    }
}

TYPED_TEST(Fusedmm, CudaMatchesReference)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A_ref = loom::test::random_csr<V, I>(this->ref, {300, 200, 8, true, true, false, 9});
    for (const size_type k : {1, 32, 33, 256}) {
        const auto X_ref = loom::test::random_dense<V>(this->ref, {300, k}, 3);
        const auto Y_ref = loom::test::random_dense<V>(this->ref, {200, k}, 4);
        const auto W_ref = loom::test::random_dense<V>(this->ref, {200, k}, 5);
        for (const auto op : {EdgeOp::identity, EdgeOp::scale, EdgeOp::sigmoid}) {
            typename TestFixture::Dense expected(this->ref, dim2{300, k});
            sparse::fusedmm(op, A_ref, X_ref, Y_ref, W_ref, expected);
            const typename TestFixture::Csr A(cuda, A_ref);
            const typename TestFixture::Dense X(cuda, X_ref), Y(cuda, Y_ref), W(cuda, W_ref);
            typename TestFixture::Dense Z(cuda, dim2{300, k});
            sparse::fusedmm(op, A, X, Y, W, Z);
            LOOM_EXPECT_NEAR_VECTORS(Z.to_host(), expected.to_host(), this->tolerance());
        }
    }
}

TYPED_TEST(Fusedmm, HubRowSplitOverTeamsMatchesUnfusedAndRepeatsBitwise)
{
    LOOM_TYPED_TEST_TYPES;
    // Power-law-like: the middle row holds every column (most of the nonzeros, several
    // chunks, starting and ending inside one), the others a few entries or none.
    const size_type rows = 40;
    const size_type cols = 3 * sparse::detail::fusedmm_chunk - 37;
    const auto A_ref = loom::test::random_csr<V, I>(this->ref, {rows, cols, 2, true, true, false, 7});
    const auto ptrs = A_ref.row_ptrs().to_host();
    ASSERT_GT(ptrs[rows / 2] % sparse::detail::fusedmm_chunk, 0);
    ASSERT_GT(2 * (ptrs[rows / 2 + 1] - ptrs[rows / 2]), A_ref.nnz());
    auto executors = loom::test::backends();
    executors.insert(executors.begin(), this->ref);
    for (const size_type k : {1, 31, 32, 33}) {
        const auto X_ref = loom::test::random_dense<V>(this->ref, {rows, k}, 3);
        const auto Y_ref = loom::test::random_dense<V>(this->ref, {cols, k}, 4);
        const auto W_ref = loom::test::random_dense<V>(this->ref, {cols, k}, 5);
        for (const auto op : {EdgeOp::identity, EdgeOp::scale, EdgeOp::sigmoid}) {
            Dense expected(this->ref, dim2{});
            sparse::with_edge_functor(op, [&](auto edge) {
                expected = this->unfused(edge, A_ref, X_ref, Y_ref, W_ref);
            });
            for (const auto& exec : executors) {
                SCOPED_TRACE(exec->name() + " k " + std::to_string(k) + " " + sparse::to_string(op));
                const typename TestFixture::Csr A(exec, A_ref);
                const Dense X(exec, X_ref), Y(exec, Y_ref), W(exec, W_ref);
                Dense Z(exec, dim2{rows, k});
                sparse::fusedmm(op, A, X, Y, W, Z);
                const auto first = Z.to_host();
                LOOM_EXPECT_NEAR_VECTORS(first, expected.to_host(), this->tolerance());
                // The cut row's partials are added in a fixed order: the same bits again.
                sparse::fusedmm(op, A, X, Y, W, Z);
                const auto second = Z.to_host();
                EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(V)));
            }
        }
    }
}

TYPED_TEST(Fusedmm, UserEdgeFunctorAndPresets)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = loom::test::random_csr<V, I>(this->ref, {50, 40, 4, true, true, false, 6});
    const auto X = loom::test::random_dense<V>(this->ref, {50, 8}, 3);
    const auto Y = loom::test::random_dense<V>(this->ref, {40, 8}, 4);
    const auto W = loom::test::random_dense<V>(this->ref, {40, 16}, 5);
    const auto expected = this->unfused(LeakyReluEdge{}, A, X, Y, W);
    for (const auto& exec : {this->ref, loom::test::backends().front()}) {
        if (!exec->is_host()) continue;  // a CUDA launch must be compiled by nvcc
        const typename TestFixture::Csr A_there(exec, A);
        const Dense X_there(exec, X), Y_there(exec, Y), W_there(exec, W);
        Dense Z(exec, dim2{50, 16});
        sparse::fusedmm_with(LeakyReluEdge{}, A_there, X_there, Y_there, W_there, Z);
        LOOM_EXPECT_NEAR_VECTORS(Z.to_host(), expected.to_host(), this->tolerance());
    }
    // attention_aggregate is the sigmoid operator; gcn_aggregate is A W.
    Dense Z(this->ref, dim2{50, 16});
    sparse::attention_aggregate(A, X, Y, W, Z);
    LOOM_EXPECT_NEAR_VECTORS(
        Z.to_host(), this->unfused(sparse::SigmoidEdge{}, A, X, Y, W).to_host(), this->tolerance());
    sparse::gcn_aggregate(A, W, Z);
    Dense AW(this->ref, dim2{50, 16});
    sparse::spmm(sparse::Mode::none, V{1}, A, W, V{0}, AW);
    EXPECT_EQ(Z.to_host(), AW.to_host());
}

TEST(FusedmmCuda, UserEdgeFunctorCompiledByNvcc)
{
    LOOM_CUDA_OR_SKIP(cuda);
#if LOOM_HAS_CUDA && LOOM_HAS_DOUBLE && LOOM_HAS_INT32
    const auto ref = loom::test::reference();
    const auto A =
        loom::test::random_csr<double, loom::int32>(ref, {300, 200, 6, true, true, false, 3});
    const auto X = loom::test::random_dense<double>(ref, {300, 33}, 3);
    const auto Y = loom::test::random_dense<double>(ref, {200, 33}, 4);
    const auto W = loom::test::random_dense<double>(ref, {200, 64}, 5);
    matrix::Dense<double> expected(ref, dim2{300, 64});
    sparse::fusedmm_with(LeakyReluEdge{}, A, X, Y, W, expected);
    const matrix::Csr<double, loom::int32> A_gpu(cuda, A);
    const matrix::Dense<double> X_gpu(cuda, X), Y_gpu(cuda, Y), W_gpu(cuda, W);
    matrix::Dense<double> Z(cuda, dim2{300, 64});
    loom::test::fusedmm_leaky_relu_from_cuda(A_gpu, X_gpu, Y_gpu, W_gpu, Z);
    LOOM_EXPECT_NEAR_VECTORS(Z.to_host(), expected.to_host(), 1e-12);
    // From a host-compiled file the CUDA launch is refused, not silently run elsewhere.
    EXPECT_THROW(sparse::fusedmm_with(LeakyReluEdge{}, A_gpu, X_gpu, Y_gpu, W_gpu, Z),
                 loom::NotSupported);
#else
    (void)cuda;
#endif
}

TYPED_TEST(Fusedmm, BadShapesRaiseAndLeaveZUntouched)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = loom::test::random_csr<V, I>(this->ref, {6, 4, 2, false, true, false, 1});
    const auto X = loom::test::random_dense<V>(this->ref, {6, 3}, 2);
    const auto Y = loom::test::random_dense<V>(this->ref, {4, 3}, 3);
    const auto W = loom::test::random_dense<V>(this->ref, {4, 5}, 4);
    auto Z = loom::test::random_dense<V>(this->ref, {6, 5}, 5);
    const auto before = Z.to_host();
    const auto Y_short = loom::test::random_dense<V>(this->ref, {3, 3}, 3);
    const auto Y_wide = loom::test::random_dense<V>(this->ref, {4, 4}, 3);
    const auto W_short = loom::test::random_dense<V>(this->ref, {5, 5}, 4);
    auto Z_narrow = loom::test::random_dense<V>(this->ref, {6, 4}, 5);
    EXPECT_THROW(sparse::fusedmm(EdgeOp::scale, A, Y, X, W, Z), loom::DimensionMismatch);
    EXPECT_THROW(sparse::fusedmm(EdgeOp::scale, A, X, Y_short, W, Z), loom::DimensionMismatch);
    EXPECT_THROW(sparse::fusedmm(EdgeOp::scale, A, X, Y_wide, W, Z), loom::DimensionMismatch);
    EXPECT_THROW(sparse::fusedmm(EdgeOp::scale, A, X, Y, W_short, Z), loom::DimensionMismatch);
    EXPECT_THROW(sparse::fusedmm(EdgeOp::scale, A, X, Y, W, Z_narrow), loom::DimensionMismatch);
    EXPECT_EQ(Z.to_host(), before);
    auto square = loom::test::random_csr<V, I>(this->ref, {4, 4, 2, false, true, false, 1});
    auto shared = loom::test::random_dense<V>(this->ref, {4, 4}, 2);
    EXPECT_THROW(sparse::fusedmm(EdgeOp::identity, square, shared, shared, shared, shared),
                 loom::BadInput);
    EXPECT_EQ(sparse::parse_edge_op("sigmoid"), EdgeOp::sigmoid);
    EXPECT_THROW(sparse::parse_edge_op("tanh"), loom::BadInput);
}

}  // namespace
}  // namespace loom::test
