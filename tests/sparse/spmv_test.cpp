// SpMV: the reference against a dense triple loop, every backend against the reference, for
// every format and mode, and the argument checks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/sparse/spmv.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::sparse::Mode;

constexpr Mode all_modes[] = {Mode::none, Mode::transpose, Mode::conjugate, Mode::conj_transpose};

bool transposes(Mode mode) { return mode == Mode::transpose || mode == Mode::conj_transpose; }

/// Shapes walked by the comparison tests: awkward squares, rectangles both ways, degenerate
/// shapes, and one matrix large enough for the OpenMP kernels to split their work.
std::vector<loom::test::PatternSpec> comparison_specs()
{
    auto shapes = loom::test::awkward_shapes();
    shapes.insert(shapes.end(), {{1000, 64, 2}, {6000, 4000, 6}});
    auto specs = loom::test::specs_of(shapes, 1, [](std::size_t i, loom::test::PatternSpec& spec) {
        spec.dense_row = i % 2 == 1;
        spec.sorted = i % 3 != 0;
        spec.duplicates = i % 3 != 1;
    });
    specs.back().dense_row = false;  // ELL would pad every row to 4000 slots
    return specs;
}

/// y's strided padding (the elements between rows that y does not own).
template <typename V>
std::vector<V> padding_of(const matrix::Dense<V>& y)
{
    const auto span = y.values().to_host();
    std::vector<V> pad;
    for (size_type r = 0; r + 1 < y.rows(); ++r) {
        for (size_type j = y.cols(); j < y.stride(); ++j) pad.push_back(span[r * y.stride() + j]);
    }
    return pad;
}

template <typename T>
class Spmv : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Coo, typename Base::Csr,
        typename Base::Ell, typename Base::Sellp, typename Base::Dense, typename Base::Triplets;

    /// One sparse matrix in any format.
    using AnyMatrix = std::variant<Csr, Coo, Ell, Sellp>;

    static const char* format_name(const AnyMatrix& A)
    {
        static constexpr const char* names[] = {"csr", "coo", "ell", "sellp"};
        return names[A.index()];
    }

    /// CSR rows in the triplets' order (so unsorted rows stay unsorted).
    static Csr csr_of(std::shared_ptr<const loom::Executor> exec, const Triplets& t)
    {
        std::vector<I> ptrs(t.size.rows + 1, 0);
        for (auto r : t.rows) ++ptrs[r + 1];
        std::partial_sum(ptrs.begin(), ptrs.end(), ptrs.begin());
        return Csr::from_host(std::move(exec), t.size, ptrs, t.cols, t.values);
    }

    /// The triplets as COO with its entries shuffled, as CSR, ELL (unless `ell` is false:
    /// a dense row pads every row of a large ELL matrix) and two SELL-P layouts (the
    /// default, and small slices with a stride factor so that slices carry padding).
    std::vector<AnyMatrix> every_format(const Triplets& t, std::uint64_t seed, bool ell = true)
    {
        std::vector<std::size_t> order(t.values.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
        std::vector<I> rows, cols;
        std::vector<V> values;
        for (auto e : order) {
            rows.push_back(t.rows[e]);
            cols.push_back(t.cols[e]);
            values.push_back(t.values[e]);
        }
        auto csr = csr_of(this->ref, t);
        std::vector<AnyMatrix> result;
        result.emplace_back(Coo::from_host(this->ref, t.size, rows, cols, values));
        if (ell) result.emplace_back(matrix::to_ell(csr));
        result.emplace_back(matrix::to_sellp(csr));
        result.emplace_back(matrix::to_sellp(csr, 4, 3));
        result.emplace_back(std::move(csr));
        return result;
    }

    static AnyMatrix on(std::shared_ptr<const loom::Executor> exec, const AnyMatrix& A)
    {
        return std::visit(
            [&](const auto& M) -> AnyMatrix { return std::decay_t<decltype(M)>(exec, M); }, A);
    }

    static void spmv(Mode mode, V alpha, const AnyMatrix& A, const Dense& x, V beta, Dense& y)
    {
        std::visit([&](const auto& M) { sparse::spmv(mode, alpha, M, x, beta, y); }, A);
    }

    /// (alpha, beta) pairs: plain, general, beta = 0 (y starts as NaN), and complex ones.
    static std::vector<std::pair<V, V>> coefficients()
    {
        std::vector<std::pair<V, V>> result{{V{1}, V{0}}, {V{2.5}, V{-1}}, {V{-0.5}, V{1}}};
        if constexpr (loom::is_complex_v<V>) result.push_back({V(0.5, -2), V(0.25, 1)});
        return result;
    }

    /// y for op(A) with k columns and a row stride wider than k; NaN when beta is zero,
    /// because y must then be written without being read.
    static Dense initial_y(std::shared_ptr<const loom::Executor> exec, size_type rows,
                           size_type k, V beta, std::uint64_t seed)
    {
        auto y = loom::test::random_dense<V>(exec, {rows, k}, seed, k + 2);
        if (beta == V{0}) {
            y.fill(V{std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()});
        }
        return y;
    }

    /// y = alpha op(A) x + beta y by a dense triple loop over the summed-up triplets.
    static std::vector<V> dense_oracle(const Triplets& t, Mode mode, V alpha,
                                       const std::vector<V>& x, V beta,
                                       const std::vector<V>& y, size_type k)
    {
        const dim2 op = transposes(mode) ? t.size.transposed() : t.size;
        std::vector<V> a(static_cast<std::size_t>(op.count()), V{});
        const bool conj = mode == Mode::conjugate || mode == Mode::conj_transpose;
        for (std::size_t e = 0; e < t.values.size(); ++e) {
            const size_type r = transposes(mode) ? t.cols[e] : t.rows[e];
            const size_type c = transposes(mode) ? t.rows[e] : t.cols[e];
            a[r * op.cols + c] += conj ? loom::conj(t.values[e]) : t.values[e];
        }
        std::vector<V> result(static_cast<std::size_t>(op.rows * k));
        for (size_type i = 0; i < op.rows; ++i) {
            for (size_type j = 0; j < k; ++j) {
                V sum{};
                for (size_type c = 0; c < op.cols; ++c) sum += a[i * op.cols + c] * x[c * k + j];
                result[i * k + j] = alpha * sum + (beta == V{0} ? V{0} : beta * y[i * k + j]);
            }
        }
        return result;
    }
};

TYPED_TEST_SUITE(Spmv, loom::test::ValueIndexTypes);

TYPED_TEST(Spmv, ReferenceMatchesDenseTripleLoop)
{
    LOOM_TYPED_TEST_TYPES;
    const std::vector<loom::test::PatternSpec> specs{
        {0, 0, 1}, {1, 1, 1}, {5, 7, 3, true, false, true, 3}, {7, 5, 3, true, false, true, 4},
        {33, 31, 4, true, false, true, 5}, {12, 40, 0.3, false, true, false, 6}};
    for (const auto& spec : specs) {
        const auto t = loom::test::random_triplets<V, I>(spec);
        for (const auto& A : this->every_format(t, spec.seed)) {
            for (const auto mode : all_modes) {
                const dim2 op = transposes(mode) ? t.size.transposed() : t.size;
                for (const size_type k : {1, 3}) {
                    for (const auto& [alpha, beta] : this->coefficients()) {
                        SCOPED_TRACE(std::string(this->format_name(A)) + " " +
                                     loom::to_string(t.size) + " mode " +
                                     sparse::to_string(mode) + " k " + std::to_string(k));
                        const auto x = loom::test::random_dense<V>(this->ref, {op.cols, k}, 11,
                                                                   k + 3);
                        auto y = this->initial_y(this->ref, op.rows, k, beta, 12);
                        const auto expected =
                            this->dense_oracle(t, mode, alpha, x.to_host(), beta, y.to_host(), k);
                        this->spmv(mode, alpha, A, x, beta, y);
                        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected,
                                                 loom::test::tolerance<V>());
                    }
                }
            }
        }
    }
}

TYPED_TEST(Spmv, BackendsMatchReference)
{
    LOOM_TYPED_TEST_TYPES;
    const auto backends = loom::test::backends();
    const auto specs = comparison_specs();
    std::size_t turn = 0;
    for (const auto& spec : specs) {
        const auto t = loom::test::random_triplets<V, I>(spec);
        for (const auto& A : this->every_format(t, spec.seed)) {
            for (const auto& exec : backends) {
                const auto A_there = this->on(exec, A);
                for (const auto mode : all_modes) {
                    const dim2 op = transposes(mode) ? t.size.transposed() : t.size;
                    for (const size_type k : {1, 3}) {
                        // One coefficient pair per case, taking turns, keeps the run short.
                        const auto coefficients = this->coefficients();
                        const auto [alpha, beta] = coefficients[turn++ % coefficients.size()];
                        SCOPED_TRACE(exec->name() + " " + this->format_name(A) + " " +
                                     loom::to_string(t.size) + " mode " +
                                     sparse::to_string(mode) + " k " + std::to_string(k));
                        const auto x = loom::test::random_dense<V>(this->ref, {op.cols, k},
                                                                   spec.seed, k + 3);
                        auto expected = this->initial_y(this->ref, op.rows, k, beta, 5);
                        auto y = typename TestFixture::Dense(exec, expected);
                        const auto padding = padding_of(y);
                        this->spmv(mode, alpha, A, x, beta, expected);
                        this->spmv(mode, alpha, A_there, typename TestFixture::Dense(exec, x),
                                   beta, y);
                        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(),
                                                 loom::test::tolerance<V>());
                        EXPECT_EQ(padding_of(y), padding) << "y's padding was written";
                    }
                }
            }
        }
    }
}

TYPED_TEST(Spmv, OmpIsDeterministicForAnyThreadCount)
{
    LOOM_TYPED_TEST_TYPES;
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    // A dense row spanning several pieces and many empty rows, in every mode.
    const loom::test::PatternSpec spec{3000, 5000, 6, true, false, true, 77};
    const auto t = loom::test::random_triplets<V, I>(spec);
    for (const int threads : {1, 3, 7}) {
        const auto omp = loom::OmpExecutor::create(threads);
        for (const auto& A : this->every_format(t, spec.seed, false)) {
            const auto A_omp = this->on(omp, A);
            for (const auto mode : all_modes) {
                const dim2 op = transposes(mode) ? t.size.transposed() : t.size;
                SCOPED_TRACE(std::to_string(threads) + " threads, " + this->format_name(A) +
                             " mode " + sparse::to_string(mode));
                const auto x = loom::test::random_dense<V>(omp, {op.cols, 2}, 3);
                auto expected = loom::test::random_dense<V>(this->ref, {op.rows, 2}, 4);
                typename TestFixture::Dense first(omp, expected);
                typename TestFixture::Dense second(omp, expected);
                this->spmv(mode, V{1.5}, A, typename TestFixture::Dense(this->ref, x), V{-2},
                           expected);
                this->spmv(mode, V{1.5}, A_omp, x, V{-2}, first);
                this->spmv(mode, V{1.5}, A_omp, x, V{-2}, second);
                EXPECT_EQ(first.to_host(), second.to_host());
                LOOM_EXPECT_NEAR_VECTORS(first.to_host(), expected.to_host(),
                                         loom::test::tolerance<V>());
            }
        }
    }
}

TYPED_TEST(Spmv, OmpCsrWithScatteredColumnsMatchesReference)
{
    LOOM_TYPED_TEST_TYPES;
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    // Columns spread over a wide x make the kernel prefetch x; rows near the end check that
    // it stops prefetching before the last nonzeros.
    const size_type rows = 3000;
    const size_type cols = 1 << 20;
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<size_type> column(0, cols - 1);
    std::vector<I> ptrs{0}, col_idxs;
    std::vector<V> values;
    for (size_type r = 0; r < rows; ++r) {
        for (size_type n = 0; n < static_cast<size_type>(rng() % 12); ++n) {
            col_idxs.push_back(static_cast<I>(column(rng)));
            values.push_back(loom::test::random_value<V>(rng));
        }
        ptrs.push_back(static_cast<I>(col_idxs.size()));
    }
    const auto A = matrix::Csr<V, I>::from_host(this->ref, {rows, cols}, ptrs, col_idxs, values);
    for (const int threads : {2, 3}) {
        const auto omp = loom::OmpExecutor::create(threads);
        const auto A_omp = matrix::Csr<V, I>(omp, A);
        const auto x = loom::test::random_dense<V>(omp, {cols, 1}, 8);
        auto expected = loom::test::random_dense<V>(this->ref, {rows, 1}, 9);
        typename TestFixture::Dense y(omp, expected);
        sparse::spmv(Mode::conjugate, V{2}, A, typename TestFixture::Dense(this->ref, x), V{-1},
                     expected);
        sparse::spmv(Mode::conjugate, V{2}, A_omp, x, V{-1}, y);
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(), loom::test::tolerance<V>());
    }
}

TYPED_TEST(Spmv, CsrPlanFollowsPatternChanges)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto& exec : loom::test::backends()) {
        SCOPED_TRACE(exec->name());
        auto A = loom::test::random_csr<V, I>(exec, {5000, 5000, 5, true, true, false, 9});
        const auto B = loom::test::random_csr<V, I>(exec, {5000, 5000, 3, false, true, false, 10});
        const auto x = loom::test::random_dense<V>(exec, {5000, 1}, 1);
        typename TestFixture::Dense y(exec, {5000, 1});
        typename TestFixture::Dense expected(exec, {5000, 1});
        sparse::spmv(Mode::none, V{1}, A, x, V{0}, y);  // caches A's analysis
        // Writing the pattern through the accessors must drop what was cached for the old one.
        A.row_ptrs() = B.row_ptrs();
        A.col_idxs() = B.col_idxs();
        A.values() = B.values();
        sparse::spmv(Mode::none, V{1}, A, x, V{0}, y);
        sparse::spmv(Mode::none, V{1}, B, x, V{0}, expected);
        EXPECT_EQ(y.to_host(), expected.to_host());
    }
}

TYPED_TEST(Spmv, AlphaZeroScalesYOnly)
{
    LOOM_TYPED_TEST_TYPES;
    const auto nan = V{std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()};
    for (auto exec : loom::test::backends()) {
        const auto A = loom::test::random_csr<V, I>(exec, {40, 30, 3});
        auto x = typename TestFixture::Dense(exec, {30, 2});
        x.fill(nan);  // not read when alpha is zero
        auto y = loom::test::random_dense<V>(exec, {40, 2}, 3);
        const auto before = y.to_host();
        sparse::spmv(Mode::none, V{0}, A, x, V{2}, y);
        auto expected = before;
        for (auto& v : expected) v *= V{2};
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected, loom::test::tolerance<V>());
        y.fill(nan);
        sparse::spmv(Mode::none, V{0}, A, x, V{0}, y);
        EXPECT_EQ(y.to_host(), std::vector<V>(80, V{0})) << exec->name();
    }
}

TYPED_TEST(Spmv, CsrApplyUsesSpmv)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = loom::test::random_csr<V, I>(this->ref, {20, 10, 3});
    const auto x = loom::test::random_dense<V>(this->ref, {10, 2}, 1);
    typename TestFixture::Dense y(this->ref, {20, 2});
    typename TestFixture::Dense expected(this->ref, {20, 2});
    A.apply(x, y);
    sparse::spmv(Mode::none, V{1}, A, x, V{0}, expected);
    EXPECT_EQ(y.to_host(), expected.to_host());
}

TYPED_TEST(Spmv, RejectsBadShapesAndLeavesYAlone)
{
    LOOM_TYPED_TEST_TYPES;
    for (auto exec : loom::test::backends()) {
        const auto A = loom::test::random_csr<V, I>(exec, {4, 3, 2});
        const auto coo = matrix::to_coo(A);
        const auto x = loom::test::random_dense<V>(exec, {3, 2}, 1);
        auto y = loom::test::random_dense<V>(exec, {4, 2}, 2);
        const auto before = y.to_host();
        // x has A.rows() rows, which fits A^T but not A.
        EXPECT_THROW(sparse::spmv(Mode::none, V{1}, A, Dense(exec, {4, 2}), V{0}, y),
                     loom::DimensionMismatch);
        EXPECT_THROW(sparse::spmv(Mode::transpose, V{1}, A, x, V{0}, y),
                     loom::DimensionMismatch);
        auto tall = Dense(exec, {5, 2});
        EXPECT_THROW(sparse::spmv(Mode::none, V{1}, coo, x, V{0}, tall), loom::DimensionMismatch)
            << "x fits but y does not hold op(A)'s rows";
        auto narrow = Dense(exec, {4, 1});
        EXPECT_THROW(sparse::spmv(Mode::none, V{1}, A, x, V{0}, narrow),
                     loom::DimensionMismatch);
        EXPECT_EQ(y.to_host(), before);
        try {
            auto wrong = Dense(exec, {3, 2});
            sparse::spmv(Mode::conj_transpose, V{1}, A, x, V{0}, wrong);
            ADD_FAILURE() << "no exception";
        } catch (const loom::DimensionMismatch& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("3x4"), std::string::npos) << message;
            EXPECT_NE(message.find("conj_transpose"), std::string::npos) << message;
            EXPECT_EQ(e.where(), "loom::sparse::spmv");
        }
    }
}

TYPED_TEST(Spmv, RejectsForeignOrAliasedOperands)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = loom::test::random_csr<V, I>(this->ref, {6, 6, 2});
    auto xy = loom::test::random_dense<V>(this->ref, {6, 2}, 1);
    // x and y may be views into one matrix as long as they share no element.
    auto first = xy.column(0);
    auto second = xy.column(1);
    Dense expected(this->ref, {6, 1});
    sparse::spmv(Mode::none, V{1}, A, first, V{0}, second);
    sparse::spmv(Mode::none, V{1}, A, Dense(this->ref, first), V{0}, expected);
    EXPECT_EQ(second.to_host(), expected.to_host());
    const auto before = xy.to_host();
    EXPECT_THROW(sparse::spmv(Mode::none, V{1}, A, xy, V{0}, xy), loom::BadInput);
    // Views of a 8 x 3 buffer, named by their first element and column count.
    std::vector<V> buffer(24, V{1});
    const auto view = [&](size_type first, size_type cols) {
        return Dense::view(this->ref, {6, cols}, 3, buffer.data() + first);
    };
    auto at0_cols2 = view(0, 2);
    auto at1_cols2 = view(1, 2);
    auto at2_cols1 = view(2, 1);
    auto at3_cols1 = view(3, 1);
    auto at3_cols2 = view(3, 2);
    auto at4_cols2 = view(4, 2);
    EXPECT_NO_THROW(sparse::spmv(Mode::none, V{1}, A, at2_cols1, V{0}, at3_cols1));
    EXPECT_THROW(sparse::spmv(Mode::none, V{1}, A, at0_cols2, V{0}, at4_cols2), loom::BadInput);
    // Column 2 of row i meets column 0 of row i + 1 only through the row wrap.
    EXPECT_THROW(sparse::spmv(Mode::none, V{1}, A, at1_cols2, V{0}, at3_cols2), loom::BadInput);
    EXPECT_EQ(xy.to_host(), before);
    Dense unbound;
    EXPECT_THROW(sparse::spmv(Mode::none, V{1}, matrix::Csr<V, I>(this->ref, {0, 0}), unbound,
                              V{0}, unbound),
                 loom::BadInput);
    if (loom::CudaExecutor::available()) {
        const auto cuda = loom::CudaExecutor::create(0);
        auto y = Dense(cuda, {6, 2});
        EXPECT_THROW(sparse::spmv(Mode::none, V{1}, A, Dense(this->ref, xy), V{0}, y),
                     loom::BadInput);
    }
}

TYPED_TEST(Spmv, VendorAlgorithmNeedsCuda)
{
    LOOM_TYPED_TEST_TYPES;
    std::vector<std::shared_ptr<const loom::Executor>> hosts{this->ref};
    if (loom::OmpExecutor::available()) hosts.push_back(loom::OmpExecutor::create());
    for (const auto& exec : hosts) {
        const auto A = loom::test::random_csr<V, I>(exec, {8, 8, 2});
        const auto x = loom::test::random_dense<V>(exec, {8, 1}, 1);
        auto y = typename TestFixture::Dense(exec, {8, 1});
        EXPECT_THROW(sparse::spmv(Mode::none, V{1}, A, x, V{0}, y,
                                  {sparse::SpmvAlgorithm::vendor}),
                     loom::NotSupported);
        for (const auto algorithm : {sparse::SpmvAlgorithm::automatic,
                                     sparse::SpmvAlgorithm::row_vector,
                                     sparse::SpmvAlgorithm::load_balanced,
                                     sparse::SpmvAlgorithm::binned}) {
            EXPECT_NO_THROW(sparse::spmv(Mode::none, V{1}, A, x, V{0}, y, {algorithm}));
        }
        EXPECT_EQ(sparse::choose_spmv_algorithm(A), sparse::SpmvAlgorithm::row_vector);
    }
}

TEST(SpmvNames, ModesAndAlgorithmsRoundTrip)
{
    for (const auto mode : all_modes) {
        EXPECT_EQ(sparse::parse_mode(sparse::to_string(mode)), mode);
    }
    EXPECT_EQ(sparse::parse_mode("n"), Mode::none);
    EXPECT_EQ(sparse::parse_mode("T"), Mode::transpose);
    EXPECT_EQ(sparse::parse_mode("c"), Mode::conjugate);
    EXPECT_EQ(sparse::parse_mode("h"), Mode::conj_transpose);
    EXPECT_THROW(sparse::parse_mode("x"), loom::BadInput);
    for (const auto algorithm :
         {sparse::SpmvAlgorithm::automatic, sparse::SpmvAlgorithm::row_vector,
          sparse::SpmvAlgorithm::load_balanced, sparse::SpmvAlgorithm::vendor,
          sparse::SpmvAlgorithm::binned}) {
        EXPECT_EQ(sparse::parse_spmv_algorithm(sparse::to_string(algorithm)), algorithm);
    }
    EXPECT_THROW(sparse::parse_spmv_algorithm("fastest"), loom::BadInput);
}

/// y = A x computed through spmv_reorder's renumbered matrix: x' = P x, y' = B x',
/// y = P^T y', on A's executor.
matrix::Dense<double> product_through_reordering(const matrix::Csr<double, loom::int32>& A,
                                                 const matrix::Dense<double>& x,
                                                 sparse::ReorderKind kind)
{
    const auto exec = A.executor();
    const auto reordered = sparse::spmv_reorder(A, kind);
    const auto x_permuted = reordered.permutation.apply(matrix::Dense<double>(exec, x));
    matrix::Dense<double> y_permuted(exec, {A.rows(), 1});
    sparse::spmv(Mode::none, 1.0, reordered.matrix, x_permuted, 0.0, y_permuted);
    return reordered.permutation.inverse().apply(y_permuted);
}

TEST(SpmvReorder, ProductsMatchTheOriginalOrder)
{
    // spmv_reorder only composes backend calls (graph::rcm, Permutation, spmv), each tested
    // on every backend: the host reference and the device are enough here.
    std::vector<std::shared_ptr<const loom::Executor>> execs{loom::test::reference()};
    if (loom::CudaExecutor::available()) execs.push_back(loom::CudaExecutor::create(0));
    for (const auto& exec : execs) {
        // A dense row and many empty ones among short rows, and a 1 x 1 matrix.
        for (const size_type n : {1, 33, 300}) {
            const auto A_ref = loom::test::random_csr<double, loom::int32>(
                loom::test::reference(), {n, n, 3, true, true, false, 9});
            const matrix::Csr<double, loom::int32> A(exec, A_ref);
            const auto x = loom::test::random_dense<double>(loom::test::reference(), {n, 1}, 2);
            matrix::Dense<double> expected(loom::test::reference(), {n, 1});
            sparse::spmv(Mode::none, 1.0, A_ref, x, 0.0, expected);
            for (const auto& entry : sparse::reorder_kind_names) {
                SCOPED_TRACE(exec->name() + " n " + std::to_string(n) + " " + entry.name);
                const auto y = product_through_reordering(A, x, entry.value);
                LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(), 1e-12);
            }
        }
    }
}

TEST(SpmvReorder, DegreeOrderPutsLongRowsFirst)
{
    const auto A = loom::test::random_csr<double, loom::int32>(loom::test::reference(),
                                                               {500, 500, 4, true, true, false, 3});
    const auto B = sparse::spmv_reorder(A, sparse::ReorderKind::degree).matrix;
    EXPECT_EQ(B.nnz(), A.nnz());
    const auto ptrs = B.row_ptrs().to_host();
    for (std::size_t r = 1; r + 1 < ptrs.size(); ++r) {
        ASSERT_GE(ptrs[r] - ptrs[r - 1], ptrs[r + 1] - ptrs[r]) << "row " << r;
    }
}

TEST(SpmvReorder, RejectsRectangularMatrices)
{
    const auto A = loom::test::random_csr<double, loom::int32>(loom::test::reference(), {4, 5, 2});
    const auto before = A.col_idxs().to_host();
    for (const auto kind : {sparse::ReorderKind::rcm, sparse::ReorderKind::degree}) {
        EXPECT_THROW(sparse::spmv_reorder(A, kind), loom::BadInput);
    }
    EXPECT_EQ(A.col_idxs().to_host(), before);
    EXPECT_EQ(sparse::parse_reorder_kind("degree"), sparse::ReorderKind::degree);
    EXPECT_EQ(std::string(sparse::to_string(sparse::ReorderKind::rcm)), "rcm");
    EXPECT_THROW(sparse::parse_reorder_kind("sorted"), loom::BadInput);
}

}  // namespace
}  // namespace loom::test
