// SpMM: the reference against a dense triple loop, every backend and algorithm against the
// reference for every mode, layout and k, the multi-column SpMV that routes through SpMM, and
// the argument checks.
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/sparse/spmm.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"
#include "support/typed_fixture.hpp"

namespace {

using loom::dim2;
using loom::size_type;
using loom::sparse::DenseLayout;
using loom::sparse::Mode;
using loom::sparse::SpmmAlgorithm;
namespace matrix = loom::matrix;
namespace sparse = loom::sparse;

constexpr Mode all_modes[] = {Mode::none, Mode::transpose, Mode::conjugate, Mode::conj_transpose};
constexpr DenseLayout layouts[] = {DenseLayout::row_major, DenseLayout::col_major};
constexpr size_type all_k[] = {1, 2, 5, 31, 32, 33, 64, 100, 128, 256, 300};
/// The k walked for layouts other than row-major B and C (their kernels have fewer shapes).
constexpr size_type some_k[] = {2, 33, 256};

bool transposes(Mode mode) { return mode == Mode::transpose || mode == Mode::conj_transpose; }

template <typename T>
class Spmm : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr, typename Base::Dense;

    static double tolerance() { return std::max(1e-10, loom::test::tolerance<V>()); }

    /// A logical rows x k operand stored with `layout`, with a stride wider than needed.
    static Dense operand(std::shared_ptr<const loom::Executor> exec, dim2 logical,
                         DenseLayout layout, std::uint64_t seed)
    {
        const dim2 stored = layout == DenseLayout::row_major ? logical : logical.transposed();
        return loom::test::random_dense<V>(std::move(exec), stored, seed, stored.cols + 3);
    }

    /// Every algorithm of the executor: on CUDA the native ones and cuSPARSE; the host
    /// backends have one kernel whatever the name.
    static std::vector<SpmmAlgorithm> algorithms(const loom::Executor& exec)
    {
        if (exec.is_host()) return {SpmmAlgorithm::automatic};
        std::vector<SpmmAlgorithm> all;
        for (const auto& name : sparse::spmm_algorithm_names) all.push_back(name.value);
        return all;
    }

    /// Shapes: empty rows (avg 0.5 per row), a dense row, rectangular both ways, no rows,
    /// no columns, and rows long enough for nnz_balanced to cut them.
    static std::vector<loom::test::PatternSpec> specs()
    {
        return {{40, 40, 3, true, true, false, 1}, {33, 70, 0.5, false, true, false, 2},
                {70, 33, 4, true, false, true, 3}, {0, 5, 1, false, true, false, 4},
                {6, 0, 1, false, true, false, 5},  {1, 1000, 900, false, true, false, 6},
                {300, 50, 9, true, true, false, 7}};
    }
};

TYPED_TEST_SUITE(Spmm, loom::test::ValueIndexTypes);

TYPED_TEST(Spmm, ReferenceMatchesDenseTripleLoop)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const auto A = loom::test::random_csr<V, I>(this->ref, {9, 7, 3, true, true, true, 3});
    const auto rows = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    const V alpha{1.5};
    const V beta{-0.5};
    for (const auto mode : all_modes) {
        const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
        const size_type k = 3;
        const auto B = this->operand(this->ref, {op.cols, k}, DenseLayout::row_major, 1);
        auto C = this->operand(this->ref, {op.rows, k}, DenseLayout::row_major, 2);
        std::vector<V> expected(op.rows * k);
        for (size_type i = 0; i < op.rows; ++i) {
            for (size_type j = 0; j < k; ++j) expected[i * k + j] = beta * C.at(i, j);
        }
        for (size_type r = 0; r < A.rows(); ++r) {
            for (auto e = rows[r]; e < rows[r + 1]; ++e) {
                const bool conj = mode == Mode::conjugate || mode == Mode::conj_transpose;
                const V a = conj ? loom::conj(values[e]) : values[e];
                const size_type out = transposes(mode) ? cols[e] : r;
                const size_type in = transposes(mode) ? r : cols[e];
                for (size_type j = 0; j < k; ++j) expected[out * k + j] += alpha * a * B.at(in, j);
            }
        }
        sparse::spmm(mode, alpha, A, B, beta, C);
        LOOM_EXPECT_NEAR_VECTORS(C.to_host(), expected, this->tolerance());
    }
}

TYPED_TEST(Spmm, BackendsMatchReference)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Dense = typename TestFixture::Dense;
    for (const auto& exec : loom::test::backends()) {
        for (const auto& spec : this->specs()) {
            const auto A_ref = loom::test::random_csr<V, I>(this->ref, spec);
            const Csr A(exec, A_ref);
            for (const auto mode : all_modes) {
                const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
                for (const auto b_layout : layouts) {
                    for (const auto c_layout : layouts) {
                        const bool row_major = b_layout == DenseLayout::row_major &&
                                               c_layout == DenseLayout::row_major;
                        for (const auto k : row_major ? std::span<const size_type>(all_k)
                                                      : std::span<const size_type>(some_k)) {
                            // beta = 0 starts C as NaN: C must be written without being read.
                            for (const V beta : {V{0}, V{0.75}}) {
                                auto B_ref = this->operand(this->ref, {op.cols, k}, b_layout, 5);
                                auto C_ref = this->operand(this->ref, {op.rows, k}, c_layout, 6);
                                if (beta == V{0}) {
                                    C_ref.fill(V{std::numeric_limits<
                                        loom::remove_complex_t<V>>::quiet_NaN()});
                                }
                                const Dense B(exec, B_ref);
                                const Dense C_start(exec, C_ref);
                                sparse::SpmmOptions options;
                                options.b_layout = b_layout;
                                options.c_layout = c_layout;
                                sparse::spmm(mode, V{-1.25}, A_ref, B_ref, beta, C_ref, options);
                                const auto expected = C_ref.to_host();
                                for (const auto algorithm : this->algorithms(*exec)) {
                                    // cuSPARSE has no conj(A) (NotSupported, checked
                                    // below) and may decline B and C in different orders.
                                    if (algorithm == SpmmAlgorithm::vendor &&
                                        (mode == Mode::conjugate || b_layout != c_layout)) {
                                        continue;
                                    }
                                    SCOPED_TRACE(exec->name() + " " + loom::to_string(A.size()) +
                                                 " mode " + sparse::to_string(mode) + " k " +
                                                 std::to_string(k) + " B " +
                                                 sparse::to_string(b_layout) + " C " +
                                                 sparse::to_string(c_layout) + " " +
                                                 sparse::to_string(algorithm));
                                    Dense C(exec, C_start);
                                    options.algorithm = algorithm;
                                    sparse::spmm(mode, V{-1.25}, A, B, beta, C, options);
                                    LOOM_EXPECT_NEAR_VECTORS(C.to_host(), expected,
                                                             this->tolerance());
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

TYPED_TEST(Spmm, CudaVectorLoadsAlongKMatchReference)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    LOOM_CUDA_OR_SKIP(cuda);
    // Skewed rows (a hub row far above the mean) go to nnz_balanced by themselves.
    const auto skewed = loom::test::random_csr<V, I>(this->ref, {300, 2000, 3, true, true, false, 8});
    EXPECT_EQ(sparse::choose_spmm_algorithm(typename TestFixture::Csr(cuda, skewed), 32),
              SpmmAlgorithm::nnz_balanced);
    // B packed (rows on 16 bytes: the 16-byte loads along k) and B one element off (every
    // row misaligned: one element per load), for k that are and are not multiples of the
    // vector width; short rows, a dense row and a row cut by nnz_balanced's chunks.
    // Sparse rows (most empty, some at nnz_balanced's chunk ends) and a dense row too.
    // Rows of 5 on average with a dense row: row_split's short-row kernel (mean <= 8).
    for (const auto& spec : {loom::test::PatternSpec{300, 50, 9, true, true, false, 7},
                             loom::test::PatternSpec{1, 1000, 900, false, true, false, 6},
                             loom::test::PatternSpec{2000, 300, 0.6, true, true, false, 9},
                             loom::test::PatternSpec{400, 60, 5, true, true, false, 10}}) {
        const auto A_ref = loom::test::random_csr<V, I>(this->ref, spec);
        const typename TestFixture::Csr A(cuda, A_ref);
        for (const size_type k : {1, 2, 4, 6, 8, 12, 16, 31, 32, 33, 36, 64, 128, 256}) {
            const auto B_ref = loom::test::random_dense<V>(this->ref, {spec.cols, k}, 5);
            const Dense B_packed(cuda, B_ref);
            Dense B_shifted_storage(cuda, dim2{spec.cols + 1, k});
            auto B_shifted = Dense::view(cuda, B_ref.size(), k, B_shifted_storage.data() + 1);
            B_shifted = B_ref;
            // beta = 0 starts C as NaN: C must be written without being read.
            for (const V beta : {V{0.75}, V{0}}) {
                auto C_ref = loom::test::random_dense<V>(this->ref, {spec.rows, k}, 6);
                if (beta == V{0}) {
                    C_ref.fill(V{std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()});
                }
                const Dense C_start(cuda, C_ref);
                sparse::spmm(Mode::none, V{-1.25}, A_ref, B_ref, beta, C_ref);
                const auto expected = C_ref.to_host();
                for (const Dense* B : {&B_packed, static_cast<const Dense*>(&B_shifted)}) {
                    for (const auto algorithm : this->algorithms(*cuda)) {
                        if (algorithm == SpmmAlgorithm::vendor) continue;
                        SCOPED_TRACE(loom::to_string(A.size()) + " k " + std::to_string(k) +
                                     (B == &B_packed ? " packed " : " shifted ") +
                                     sparse::to_string(algorithm));
                        Dense C(cuda, C_start);
                        sparse::spmm(Mode::none, V{-1.25}, A, *B, beta, C, {algorithm});
                        LOOM_EXPECT_NEAR_VECTORS(C.to_host(), expected, this->tolerance());
                    }
                }
            }
        }
    }
}

TYPED_TEST(Spmm, CudaWideOperandsWithScatteredColumnsMatchReference)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    LOOM_CUDA_OR_SKIP(cuda);
    // Columns spread over 150k rows of B (the rows gathered span more than L2), k = 80 (not
    // a multiple of the vector width's lanes), by rows and, with a dense row, by chunks.
    for (const bool dense_row : {false, true}) {
        const auto A_ref = loom::test::random_csr<V, I>(
            this->ref, {96, 150000, 12, dense_row, true, false, 11});
        const typename TestFixture::Csr A(cuda, A_ref);
        const size_type k = 80;
        EXPECT_EQ(sparse::choose_spmm_algorithm(A, k),
                  dense_row ? SpmmAlgorithm::nnz_balanced : SpmmAlgorithm::row_split);
        const auto B_ref = loom::test::random_dense<V>(this->ref, {A.cols(), k}, 5);
        auto C_ref = loom::test::random_dense<V>(this->ref, {A.rows(), k}, 6);
        const Dense B(cuda, B_ref);
        Dense C(cuda, C_ref);
        sparse::spmm(Mode::none, V{-1.25}, A_ref, B_ref, V{0.75}, C_ref);
        sparse::spmm(Mode::none, V{-1.25}, A, B, V{0.75}, C);
        LOOM_EXPECT_NEAR_VECTORS(C.to_host(), C_ref.to_host(), this->tolerance());
    }
}

TYPED_TEST(Spmm, CudaBandedRowsMatchReference)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    LOOM_CUDA_OR_SKIP(cuda);
    // 7-point stencils (rows of at most 7 entries: the short-row and band kernels): 14^3 in a
    // few of the band kernel's chunks, 20^3 (8000 rows) in many, its planes 400 rows apart
    // (gathers outside a block's window of near rows, through L2 only). k below, at and
    // above one pass of 128 bytes, and k not a multiple of it.
    for (const size_type n : {14, 20}) {
        const auto A_ref = loom::matrix::poisson3d<V, I>(this->ref, n);
        const typename TestFixture::Csr A(cuda, A_ref);
        for (const size_type k : {8, 20, 32, 48, 100, 128, 256}) {
            const auto B_ref = loom::test::random_dense<V>(this->ref, {A.cols(), k}, 5);
            const Dense B(cuda, B_ref);
            // beta = 0 starts C as NaN: C must be written without being read.
            for (const V beta : {V{0}, V{0.75}}) {
                auto C_ref = loom::test::random_dense<V>(this->ref, {A.rows(), k}, 6);
                if (beta == V{0}) {
                    C_ref.fill(V{std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()});
                }
                const Dense C_start(cuda, C_ref);
                sparse::spmm(Mode::none, V{-1.25}, A_ref, B_ref, beta, C_ref);
                for (const auto algorithm : this->algorithms(*cuda)) {
                    SCOPED_TRACE(std::to_string(n) + "^3 k " + std::to_string(k) + " " +
                                 sparse::to_string(algorithm));
                    Dense C(cuda, C_start);
                    sparse::spmm(Mode::none, V{-1.25}, A, B, beta, C, {algorithm});
                    LOOM_EXPECT_NEAR_VECTORS(C.to_host(), C_ref.to_host(), this->tolerance());
                }
            }
        }
    }
}

TYPED_TEST(Spmm, CudaVendorAlgorithmsMatchReference)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    LOOM_CUDA_OR_SKIP(cuda);
    // Each of cuSPARSE's algorithms (the bench's peer is the best of them), row-major B and C.
    const auto A_ref = loom::test::random_csr<V, I>(this->ref, {300, 50, 9, true, true, false, 7});
    const typename TestFixture::Csr A(cuda, A_ref);
    for (const size_type k : {1, 32, 33}) {
        const auto B_ref = loom::test::random_dense<V>(this->ref, {A.cols(), k}, 5);
        auto C_ref = loom::test::random_dense<V>(this->ref, {A.rows(), k}, 6);
        const Dense B(cuda, B_ref);
        const Dense C_start(cuda, C_ref);
        sparse::spmm(Mode::none, V{-1.25}, A_ref, B_ref, V{0.75}, C_ref);
        for (const auto& name : sparse::vendor_spmm_algorithm_names) {
            SCOPED_TRACE(std::string(name.name) + " k " + std::to_string(k));
            EXPECT_STREQ(sparse::to_string(name.value), name.name);
            Dense C(cuda, C_start);
            sparse::spmm(Mode::none, V{-1.25}, A, B, V{0.75}, C,
                         {SpmmAlgorithm::vendor, name.value});
            LOOM_EXPECT_NEAR_VECTORS(C.to_host(), C_ref.to_host(), this->tolerance());
        }
    }
}

TYPED_TEST(Spmm, MultiColumnSpmvMatchesReference)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    const auto A_ref = loom::test::random_csr<V, I>(this->ref, {500, 400, 7, true, true, true, 9});
    for (const auto& exec : loom::test::backends()) {
        const typename TestFixture::Csr A(exec, A_ref);
        for (const auto mode : all_modes) {
            const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
            for (const auto algorithm :
                 {sparse::SpmvAlgorithm::automatic, sparse::SpmvAlgorithm::row_vector,
                  sparse::SpmvAlgorithm::stream, sparse::SpmvAlgorithm::load_balanced}) {
                for (const size_type k : {2, 8, 33}) {
                    SCOPED_TRACE(exec->name() + " mode " + sparse::to_string(mode) + " k " +
                                 std::to_string(k) + " " + sparse::to_string(algorithm));
                    const auto x_ref = loom::test::random_dense<V>(this->ref, {op.cols, k}, 3);
                    auto y_ref = loom::test::random_dense<V>(this->ref, {op.rows, k}, 4, k + 1);
                    const Dense x(exec, x_ref);
                    Dense y(exec, y_ref);
                    sparse::spmv(mode, V{2}, A_ref, x_ref, V{-1}, y_ref);
                    sparse::spmv(mode, V{2}, A, x, V{-1}, y, {algorithm});
                    LOOM_EXPECT_NEAR_VECTORS(y.to_host(), y_ref.to_host(), this->tolerance());
                }
            }
        }
    }
}

TYPED_TEST(Spmm, BadShapesRaiseAndLeaveCUntouched)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    const auto A = loom::test::random_csr<V, I>(this->ref, {6, 4, 2, false, true, false, 1});
    const auto B = loom::test::random_dense<V>(this->ref, {4, 3}, 2);
    auto C = loom::test::random_dense<V>(this->ref, {6, 3}, 3);
    const auto before = C.to_host();
    const auto expect_unchanged = [&] { EXPECT_EQ(C.to_host(), before); };
    // B with the wrong number of rows, C with the wrong number of rows or columns.
    EXPECT_THROW(sparse::spmm(Mode::transpose, V{1}, A, B, V{0}, C), loom::DimensionMismatch);
    expect_unchanged();
    auto C_short = loom::test::random_dense<V>(this->ref, {5, 3}, 3);
    EXPECT_THROW(sparse::spmm(Mode::none, V{1}, A, B, V{0}, C_short), loom::DimensionMismatch);
    auto C_narrow = loom::test::random_dense<V>(this->ref, {6, 2}, 3);
    EXPECT_THROW(sparse::spmm(Mode::none, V{1}, A, B, V{0}, C_narrow), loom::DimensionMismatch);
    // A row-major B read as column-major is 3 x 4: the wrong shape.
    sparse::SpmmOptions col_b;
    col_b.b_layout = DenseLayout::col_major;
    EXPECT_THROW(sparse::spmm(Mode::none, V{1}, A, B, V{0}, C, col_b), loom::DimensionMismatch);
    expect_unchanged();
    // C on top of B.
    auto square = loom::test::random_csr<V, I>(this->ref, {4, 4, 2, false, true, false, 1});
    auto shared = loom::test::random_dense<V>(this->ref, {4, 3}, 2);
    EXPECT_THROW(sparse::spmm(Mode::none, V{1}, square, shared, V{0}, shared), loom::BadInput);
    // cuSPARSE on the host.
    sparse::SpmmOptions vendor;
    vendor.algorithm = SpmmAlgorithm::vendor;
    EXPECT_THROW(sparse::spmm(Mode::none, V{1}, A, B, V{0}, C, vendor), loom::NotSupported);
    expect_unchanged();
    // Operands on different executors.
    for (const auto& exec : loom::test::backends()) {
        if (exec->same_memory_as(*this->ref)) continue;
        const Dense B_elsewhere(exec, B);
        EXPECT_THROW(sparse::spmm(Mode::none, V{1}, A, B_elsewhere, V{0}, C), loom::BadInput);
        expect_unchanged();
        // cuSPARSE has no conj(A) without transposition.
        const typename TestFixture::Csr A_there(exec, A);
        Dense C_there(exec, C);
        EXPECT_THROW(
            sparse::spmm(Mode::conjugate, V{1}, A_there, B_elsewhere, V{0}, C_there, vendor),
            loom::NotSupported);
    }
}

TYPED_TEST(Spmm, AlgorithmNamesRoundTrip)
{
    for (const auto& entry : sparse::spmm_algorithm_names) {
        EXPECT_EQ(sparse::parse_spmm_algorithm(entry.name), entry.value);
        EXPECT_STREQ(sparse::to_string(entry.value), entry.name);
    }
    EXPECT_EQ(sparse::parse_dense_layout("col"), DenseLayout::col_major);
    EXPECT_THROW(sparse::parse_spmm_algorithm("fastest"), loom::BadInput);
}

TYPED_TEST(Spmm, AutomaticResolvesToANativeKernel)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const auto A = loom::test::random_csr<V, I>(this->ref, {500, 500, 4, true, true, false, 8});
    for (const auto& exec : loom::test::backends()) {
        const auto algorithm =
            sparse::choose_spmm_algorithm(typename TestFixture::Csr(exec, A), 32);
        EXPECT_TRUE(algorithm == SpmmAlgorithm::row_split ||
                    algorithm == SpmmAlgorithm::nnz_balanced)
            << exec->name() << ": " << sparse::to_string(algorithm);
    }
}

}  // namespace
