// SpMM, SDDMM and FusedMM with 16-bit storage (half, bfloat16; sums in float) on every
// backend and algorithm against an fp64 product of the same 16-bit inputs: each entry within
// eps_16 * (|alpha| sum |a||b| + |beta||c|) + the smallest subnormal, the storage's own
// precision (the final rounding is eps_16 / 2 of the result, or half a subnormal step below
// half's normal range; float sums add far less). Awkward shapes and the k of the other
// tests; bad shapes raise, C untouched.
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/sparse/fusedmm.hpp"
#include "loom/sparse/sddmm.hpp"
#include "loom/sparse/spmm.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace {

using loom::dim2;
using loom::size_type;
using loom::sparse::Mode;
using loom::sparse::SpmmAlgorithm;
namespace matrix = loom::matrix;
namespace sparse = loom::sparse;

constexpr size_type all_k[] = {1, 2, 31, 32, 33, 256};

template <typename S>
class Storage16 : public ::testing::Test {
protected:
    using I = loom::int32;
    using Csr = matrix::Csr<S, I>;
    using Dense = matrix::Dense<S>;

    static constexpr double eps = loom::storage_epsilon<S>();
    /// The spacing of half's subnormals (bfloat16's, 2^-133, never matters here).
    static constexpr double tiny = std::is_same_v<S, loom::half> ? 0x1p-24 : 0x1p-133;

    std::shared_ptr<const loom::Executor> ref = loom::test::reference();

    std::vector<std::shared_ptr<const loom::Executor>> executors() const
    {
        auto all = loom::test::backends();
        all.insert(all.begin(), ref);
        return all;
    }

    /// Empty rows, a dense row, rectangular both ways, rows long enough for nnz_balanced.
    static std::vector<loom::test::PatternSpec> specs()
    {
        return {{40, 40, 3, true, true, false, 1},
                {33, 70, 0.5, false, true, false, 2},
                {70, 33, 4, true, false, false, 3},
                {2, 600, 500, false, true, false, 4}};
    }

    /// The SpMM algorithms to run on exec: on CUDA every one by name (automatic is one of
    /// them), on the host automatic.
    static std::vector<SpmmAlgorithm> spmm_algorithms(const loom::Executor& exec)
    {
        if (exec.is_host()) return {SpmmAlgorithm::automatic};
        std::vector<SpmmAlgorithm> all;
        for (const auto& name : sparse::spmm_algorithm_names) all.push_back(name.value);
        return all;
    }

    /// Host values of a 16-bit Dense as doubles (exact), packed row-major.
    static std::vector<double> widened(const Dense& d)
    {
        std::vector<double> out;
        for (const S v : d.to_host()) out.push_back(static_cast<float>(v));
        return out;
    }

    /// Every entry of got within bound[i] of expected[i].
    void expect_within(const std::vector<double>& got, const std::vector<double>& expected,
                       const std::vector<double>& bound)
    {
        ASSERT_EQ(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            ASSERT_LE(std::abs(got[i] - expected[i]), bound[i] + tiny)
                << "entry " << i << ": " << got[i] << " vs " << expected[i];
        }
    }
};

using StorageTypes = ::testing::Types<loom::half, loom::bfloat16>;
TYPED_TEST_SUITE(Storage16, StorageTypes);

TYPED_TEST(Storage16, SpmmWithinStoragePrecisionOfFp64)
{
    using S = TypeParam;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    const float alpha = -1.25f;
    for (const auto& spec : this->specs()) {
        const auto A_ref = loom::test::random_csr<S, I>(this->ref, spec);
        const auto ptrs = A_ref.row_ptrs().to_host();
        const auto cols = A_ref.col_idxs().to_host();
        const auto a16 = A_ref.values().to_host();
        for (const auto k : all_k) {
            const auto B_ref = loom::test::random_dense<S>(this->ref, {spec.cols, k}, 5);
            const auto C_start = loom::test::random_dense<S>(this->ref, {spec.rows, k}, 6);
            const auto b = this->widened(B_ref);
            const auto c = this->widened(C_start);
            for (const float beta : {0.0f, 0.75f}) {
                std::vector<double> expected(spec.rows * k), bound(spec.rows * k);
                for (size_type r = 0; r < spec.rows; ++r) {
                    for (size_type j = 0; j < k; ++j) {
                        double sum = beta * c[r * k + j];
                        double size = std::abs(sum);
                        for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                            const double term = alpha * double(float(a16[e])) * b[cols[e] * k + j];
                            sum += term;
                            size += std::abs(term);
                        }
                        expected[r * k + j] = sum;
                        bound[r * k + j] = this->eps * size;
                    }
                }
                for (const auto& exec : this->executors()) {
                    const typename TestFixture::Csr A(exec, A_ref);
                    const Dense B(exec, B_ref);
                    for (const auto algorithm : this->spmm_algorithms(*exec)) {
                        SCOPED_TRACE(exec->name() + " " + loom::to_string(A.size()) + " k " +
                                     std::to_string(k) + " beta " + std::to_string(beta) + " " +
                                     sparse::to_string(algorithm));
                        Dense C(exec, C_start);
                        sparse::spmm(Mode::none, alpha, A, B, beta, C, {algorithm});
                        this->expect_within(this->widened(C), expected, bound);
                    }
                }
            }
        }
    }
}

// op(A) = A^T and A^H (the same for these real types): C = alpha A^T B + beta C, B with A's
// rows, C with A's columns; every algorithm on CUDA (each transposes A explicitly).
TYPED_TEST(Storage16, TransposedSpmmWithinStoragePrecisionOfFp64)
{
    using S = TypeParam;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    const float alpha = 0.75f;
    const float beta = -0.5f;
    for (const auto& spec : this->specs()) {
        const auto A_ref = loom::test::random_csr<S, I>(this->ref, spec);
        const auto ptrs = A_ref.row_ptrs().to_host();
        const auto cols = A_ref.col_idxs().to_host();
        const auto a16 = A_ref.values().to_host();
        for (const size_type k : {1, 32, 33}) {
            const auto B_ref = loom::test::random_dense<S>(this->ref, {spec.rows, k}, 12);
            const auto C_start = loom::test::random_dense<S>(this->ref, {spec.cols, k}, 13);
            const auto b = this->widened(B_ref);
            const auto c = this->widened(C_start);
            std::vector<double> expected(spec.cols * k), bound(spec.cols * k);
            for (size_type i = 0; i < expected.size(); ++i) {
                expected[i] = beta * c[i];
                bound[i] = std::abs(beta * c[i]);
            }
            for (size_type r = 0; r < spec.rows; ++r) {
                for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                    for (size_type j = 0; j < k; ++j) {
                        const double term = alpha * double(float(a16[e])) * b[r * k + j];
                        expected[cols[e] * k + j] += term;
                        bound[cols[e] * k + j] += std::abs(term);
                    }
                }
            }
            for (auto& size : bound) size *= this->eps;
            for (const auto& exec : this->executors()) {
                const typename TestFixture::Csr A(exec, A_ref);
                const Dense B(exec, B_ref);
                for (const auto mode : {Mode::transpose, Mode::conj_transpose}) {
                    for (const auto algorithm : this->spmm_algorithms(*exec)) {
                        SCOPED_TRACE(exec->name() + " " + loom::to_string(A.size()) + " k " +
                                     std::to_string(k) + " " + sparse::to_string(mode) + " " +
                                     sparse::to_string(algorithm));
                        Dense C(exec, C_start);
                        sparse::spmm(mode, alpha, A, B, beta, C, {algorithm});
                        this->expect_within(this->widened(C), expected, bound);
                    }
                }
            }
        }
    }
}

TYPED_TEST(Storage16, SddmmWithinStoragePrecisionOfFp64)
{
    using S = TypeParam;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    const float alpha = 0.5f;
    const float beta = -2.0f;
    for (const auto& spec : this->specs()) {
        const auto S_start = loom::test::random_csr<S, I>(this->ref, spec);
        const auto ptrs = S_start.row_ptrs().to_host();
        const auto cols = S_start.col_idxs().to_host();
        const auto s16 = S_start.values().to_host();
        for (const auto k : all_k) {
            const auto X_ref = loom::test::random_dense<S>(this->ref, {spec.rows, k}, 7);
            const auto Y_ref = loom::test::random_dense<S>(this->ref, {spec.cols, k}, 8);
            const auto x = this->widened(X_ref);
            const auto y = this->widened(Y_ref);
            std::vector<double> expected(s16.size()), bound(s16.size());
            for (size_type r = 0; r < spec.rows; ++r) {
                for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                    double dot = 0;
                    double size = 0;
                    for (size_type t = 0; t < k; ++t) {
                        dot += x[r * k + t] * y[cols[e] * k + t];
                        size += std::abs(x[r * k + t] * y[cols[e] * k + t]);
                    }
                    const double old = beta * double(float(s16[e]));
                    expected[e] = alpha * dot + old;
                    bound[e] = this->eps * (std::abs(alpha) * size + std::abs(old));
                }
            }
            for (const auto& exec : this->executors()) {
                const Dense X(exec, X_ref);
                const Dense Y(exec, Y_ref);
                std::vector<sparse::SddmmAlgorithm> algorithms{sparse::SddmmAlgorithm::automatic};
                if (!exec->is_host()) algorithms.push_back(sparse::SddmmAlgorithm::vendor);
                for (const auto algorithm : algorithms) {
                    SCOPED_TRACE(exec->name() + " " + loom::to_string(S_start.size()) + " k " +
                                 std::to_string(k) + " " + sparse::to_string(algorithm));
                    typename TestFixture::Csr out(exec, S_start);
                    sparse::SddmmOptions options;
                    options.algorithm = algorithm;
                    if (algorithm == sparse::SddmmAlgorithm::vendor &&
                        std::is_same_v<S, loom::bfloat16>) {
                        // cuSPARSE (CUDA 13) has no bf16 SDDMM: a clear NotSupported, S kept.
                        EXPECT_THROW(sparse::sddmm(alpha, X, Y, beta, out, options),
                                     loom::NotSupported);
                        const auto kept = out.values().to_host();
                        for (std::size_t e = 0; e < kept.size(); ++e) {
                            EXPECT_EQ(float(kept[e]), float(s16[e]));
                        }
                        continue;
                    }
                    sparse::sddmm(alpha, X, Y, beta, out, options);
                    std::vector<double> got;
                    for (const S v : out.values().to_host()) got.push_back(float(v));
                    this->expect_within(got, expected, bound);
                }
            }
        }
    }
}

TYPED_TEST(Storage16, FusedmmWithinStoragePrecisionOfFp64)
{
    using S = TypeParam;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    for (const auto op :
         {sparse::EdgeOp::identity, sparse::EdgeOp::scale, sparse::EdgeOp::sigmoid}) {
        // Every shape for identity; the other operators change only the edge value.
        auto specs = this->specs();
        if (op != sparse::EdgeOp::identity) specs.resize(1);
        for (const auto& spec : specs) {
            const auto A_ref = loom::test::random_csr<S, I>(this->ref, spec);
            const auto ptrs = A_ref.row_ptrs().to_host();
            const auto cols = A_ref.col_idxs().to_host();
            const auto a16 = A_ref.values().to_host();
            for (const size_type k : {1, 33}) {
                const size_type kw = k == 1 ? 32 : 2;
                const auto X_ref = loom::test::random_dense<S>(this->ref, {spec.rows, k}, 9);
                const auto Y_ref = loom::test::random_dense<S>(this->ref, {spec.cols, k}, 10);
                const auto W_ref = loom::test::random_dense<S>(this->ref, {spec.cols, kw}, 11);
                const auto x = this->widened(X_ref);
                const auto y = this->widened(Y_ref);
                const auto w = this->widened(W_ref);
                std::vector<double> expected(spec.rows * kw), bound(spec.rows * kw);
                for (size_type r = 0; r < spec.rows; ++r) {
                    for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                        double dot = 0;
                        double dot_size = 0;
                        for (size_type t = 0; t < k; ++t) {
                            dot += x[r * k + t] * y[cols[e] * k + t];
                            dot_size += std::abs(x[r * k + t] * y[cols[e] * k + t]);
                        }
                        const double a = float(a16[e]);
                        const double s = op == sparse::EdgeOp::identity ? dot
                                         : op == sparse::EdgeOp::scale  ? a * dot
                                                                        : 1 / (1 + std::exp(-dot));
                        // The edge value is computed from a float dot product: its own error
                        // is a few float ulps of the dot's size (sigmoid's slope is <= 1/4).
                        const double s_error = 1e-6 * (1 + std::abs(a)) * dot_size;
                        for (size_type q = 0; q < kw; ++q) {
                            const double wq = w[cols[e] * kw + q];
                            expected[r * kw + q] += s * wq;
                            bound[r * kw + q] += (this->eps * std::abs(s) + s_error) * std::abs(wq);
                        }
                    }
                }
                for (const auto& exec : this->executors()) {
                    SCOPED_TRACE(exec->name() + " " + sparse::to_string(op) + " " +
                                 loom::to_string(A_ref.size()) + " k " + std::to_string(k));
                    const typename TestFixture::Csr A(exec, A_ref);
                    const Dense X(exec, X_ref);
                    const Dense Y(exec, Y_ref);
                    const Dense W(exec, W_ref);
                    Dense Z(exec, {spec.rows, kw});
                    sparse::fusedmm(op, A, X, Y, W, Z);
                    this->expect_within(this->widened(Z), expected, bound);
                }
            }
        }
    }
}

TYPED_TEST(Storage16, BadShapesRaiseAndLeaveOutputsUntouched)
{
    using S = TypeParam;
    using I = typename TestFixture::I;
    const auto A = loom::test::random_csr<S, I>(this->ref, {6, 4, 2, false, true, false, 1});
    const auto B = loom::test::random_dense<S>(this->ref, {4, 3}, 2);
    auto C = loom::test::random_dense<S>(this->ref, {6, 3}, 3);
    const auto before = this->widened(C);
    auto C_short = loom::test::random_dense<S>(this->ref, {5, 3}, 3);
    EXPECT_THROW(sparse::spmm(Mode::none, 1.0f, A, B, 0.0f, C_short), loom::DimensionMismatch);
    EXPECT_THROW(sparse::spmm(Mode::transpose, 1.0f, A, B, 0.0f, C), loom::DimensionMismatch);
    EXPECT_EQ(this->widened(C), before);
    // SDDMM: X with the wrong column count; FusedMM: Z with the wrong shape.
    auto S_out = A;
    const auto X = loom::test::random_dense<S>(this->ref, {6, 2}, 4);
    EXPECT_THROW(sparse::sddmm(1.0f, X, B, 0.0f, S_out), loom::DimensionMismatch);
    auto Z = loom::test::random_dense<S>(this->ref, {5, 3}, 3);
    EXPECT_THROW(sparse::fusedmm(sparse::EdgeOp::identity, A, X, B, B, Z), loom::DimensionMismatch);
}

}  // namespace
