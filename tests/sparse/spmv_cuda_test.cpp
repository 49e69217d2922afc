// CUDA SpMV: every CSR algorithm (row_vector for each group size, stream, load_balanced,
// binned, cuSPARSE) against the reference, the automatic choice, determinism of the native
// kernels, and the cuSPARSE restrictions. Skipped without a GPU.
#include <algorithm>
#include <complex>
#include <random>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/config.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/sparse/spmv.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using loom::sparse::Mode;
using loom::sparse::SpmvAlgorithm;

constexpr Mode all_modes[] = {Mode::none, Mode::transpose, Mode::conjugate, Mode::conj_transpose};
/// Every algorithm of the table, so that a new one is tested without an edit here.
std::vector<SpmvAlgorithm> all_algorithms()
{
    std::vector<SpmvAlgorithm> algorithms;
    for (const auto& entry : sparse::spmv_algorithm_names) algorithms.push_back(entry.value);
    return algorithms;
}

bool transposes(Mode mode) { return mode == Mode::transpose || mode == Mode::conj_transpose; }

/// Patterns for each row_vector group size (mean row length 0.3 .. 40), rows longer than a
/// warp, a dense row spanning many load_balanced tiles, mostly empty rows, rectangles.
std::vector<loom::test::PatternSpec> specs()
{
    std::vector<loom::test::PatternSpec> result;
    std::uint64_t seed = 100;
    const auto add = [&](size_type rows, size_type cols, double per_row, bool dense_row) {
        result.push_back({rows, cols, per_row, dense_row, seed % 2 == 0, seed % 3 == 0, seed});
        ++seed;
    };
    for (const auto n : loom::test::awkward_sizes()) add(n, n, 4, n > 2);
    for (const double per_row : {0.3, 1.5, 3.0, 7.0, 12.0, 24.0, 40.0, 150.0}) add(700, 900, per_row, false);
    add(3000, 5000, 0.05, true);
    add(33, 20000, 2, true);
    add(20000, 33, 1, false);
    add(1, 1, 1, true);
    add(0, 5, 1, false);
    add(5, 0, 1, false);
    return result;
}

template <typename T>
class SpmvCuda : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::Dense;

    static std::vector<std::pair<V, V>> coefficients()
    {
        std::vector<std::pair<V, V>> result{{V{1}, V{0}}, {V{2.5}, V{-1}}, {V{-0.5}, V{1}}};
        if constexpr (loom::is_complex_v<V>) result.push_back({V(0.5, -2), V(0.25, 1)});
        return result;
    }

    /// rows x k with a row stride wider than k; NaN when beta is zero (y must not be read).
    static Dense initial_y(std::shared_ptr<const loom::Executor> exec, size_type rows,
                           size_type k, V beta)
    {
        auto y = loom::test::random_dense<V>(exec, {rows, k}, 5, k + 2);
        if (beta == V{0}) y.fill(V{std::numeric_limits<loom::remove_complex_t<V>>::quiet_NaN()});
        return y;
    }
};

TYPED_TEST_SUITE(SpmvCuda, loom::test::ValueIndexTypes);

TYPED_TEST(SpmvCuda, EveryAlgorithmMatchesReference)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    std::size_t turn = 0;
    for (const auto& spec : specs()) {
        const auto A_ref = loom::test::random_csr<V, I>(this->ref, spec);
        const typename TestFixture::Csr A(cuda, A_ref);
        for (const auto algorithm : all_algorithms()) {
            for (const auto mode : all_modes) {
                if (algorithm == SpmvAlgorithm::vendor && mode == Mode::conjugate) continue;
                const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
                for (const size_type k : {1, 2}) {
                    const auto coefficients = this->coefficients();
                    const auto [alpha, beta] = coefficients[turn++ % coefficients.size()];
                    SCOPED_TRACE(loom::to_string(A.size()) + " avg " + std::to_string(spec.avg_per_row) +
                                 " algorithm " + sparse::to_string(algorithm) + " mode " +
                                 sparse::to_string(mode) + " k " + std::to_string(k));
                    // k == 1 with a stride > 1 covers cuSPARSE's strided (SpMM) path too.
                    const auto x = loom::test::random_dense<V>(this->ref, {op.cols, k}, spec.seed, k + 1);
                    auto expected = this->initial_y(this->ref, op.rows, k, beta);
                    Dense y(cuda, expected);
                    sparse::spmv(mode, alpha, A_ref, x, beta, expected);
                    sparse::spmv(mode, alpha, A, Dense(cuda, x), beta, y, {algorithm});
                    LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(),
                                             loom::test::tolerance<V>());
                }
            }
        }
    }
}

TYPED_TEST(SpmvCuda, ContiguousVectorsMatchReference)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A_ref = loom::test::random_csr<V, I>(this->ref, {2000, 1500, 9, true, true, false, 3});
    const typename TestFixture::Csr A(cuda, A_ref);
    for (const auto algorithm : all_algorithms()) {
        for (const auto mode : {Mode::none, Mode::conj_transpose}) {
            SCOPED_TRACE(std::string(sparse::to_string(algorithm)) + " " + sparse::to_string(mode));
            const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
            const auto x = loom::test::random_dense<V>(this->ref, {op.cols, 1}, 1);
            auto expected = loom::test::random_dense<V>(this->ref, {op.rows, 1}, 4);
            Dense y(cuda, expected);
            sparse::spmv(mode, V{1}, A_ref, x, V{0.5}, expected);
            sparse::spmv(mode, V{1}, A, Dense(cuda, x), V{0.5}, y, {algorithm});
            LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(), loom::test::tolerance<V>());
        }
    }
}

TYPED_TEST(SpmvCuda, RowsLongerThanManyTiles)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    // Dense rows of 30000 entries (over a hundred tiles each) next to each other, between
    // empty rows: the fix-up sums long runs of carries, and runs of runs.
    const size_type cols = 30000;
    std::vector<I> ptrs{0};
    std::vector<I> col_idxs;
    std::vector<V> values;
    std::mt19937_64 rng(11);
    for (size_type r = 0; r < 8; ++r) {
        const size_type length = r % 4 == 0 ? 0 : r % 4 == 3 ? 5 : cols;
        for (size_type c = 0; c < length; ++c) {
            col_idxs.push_back(static_cast<I>(c));
            values.push_back(loom::test::random_value<V>(rng));
        }
        ptrs.push_back(static_cast<I>(col_idxs.size()));
    }
    const auto A_ref = TestFixture::Csr::from_host(this->ref, {8, cols}, ptrs, col_idxs, values);
    const typename TestFixture::Csr A(cuda, A_ref);
    EXPECT_EQ(sparse::choose_spmv_algorithm(A), SpmvAlgorithm::load_balanced);
    const auto x = loom::test::random_dense<V>(this->ref, {cols, 1}, 2);
    auto expected = loom::test::random_dense<V>(this->ref, {8, 1}, 3);
    const auto y0 = expected;
    sparse::spmv(Mode::none, V{2}, A_ref, x, V{-1}, expected);
    // binned and stream cut the same rows into segments, whose last block to finish adds
    // them up (its counters reset for the next call: each call checked).
    for (const auto algorithm :
         {SpmvAlgorithm::load_balanced, SpmvAlgorithm::binned, SpmvAlgorithm::stream}) {
        for (int call = 0; call < 3; ++call) {
            SCOPED_TRACE(std::string(sparse::to_string(algorithm)) + " call " +
                         std::to_string(call));
            Dense y(cuda, y0);
            sparse::spmv(Mode::none, V{2}, A, Dense(cuda, x), V{-1}, y, {algorithm});
            LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(), loom::test::tolerance<V>());
        }
    }
}

TYPED_TEST(SpmvCuda, NativeRowProductsAreDeterministic)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A = loom::test::random_csr<V, I>(cuda, {20000, 20000, 6, true, false, true, 21});
    const auto x = loom::test::random_dense<V>(cuda, {20000, 1}, 22);
    for (const auto algorithm :
         {SpmvAlgorithm::row_vector, SpmvAlgorithm::stream, SpmvAlgorithm::load_balanced,
          SpmvAlgorithm::binned}) {
        SCOPED_TRACE(sparse::to_string(algorithm));
        Dense first(cuda, {20000, 1});
        Dense second(cuda, {20000, 1});
        sparse::spmv(Mode::none, V{1}, A, x, V{0}, first, {algorithm});
        sparse::spmv(Mode::none, V{1}, A, x, V{0}, second, {algorithm});
        EXPECT_EQ(first.to_host(), second.to_host());
    }
}

TYPED_TEST(SpmvCuda, AutomaticFollowsRowRegularity)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    // Poisson-distributed lengths around 4 (at most a few dozen): one group size fits all.
    const auto regular = loom::test::random_csr<V, I>(cuda, {5000, 5000, 4, false, true, false, 1});
    EXPECT_EQ(sparse::choose_spmv_algorithm(regular), SpmvAlgorithm::stream);
    // One row 1000 times the mean (cut into segments by binned, in its one launch).
    const auto irregular = loom::test::random_csr<V, I>(cuda, {5000, 5000, 4, true, true, false, 1});
    EXPECT_EQ(sparse::choose_spmv_algorithm(irregular), SpmvAlgorithm::binned);
    // The same with the long row at 1000 entries.
    const auto small_irregular = loom::test::random_csr<V, I>(cuda, {5000, 1000, 4, true, true, false, 1});
    EXPECT_EQ(sparse::choose_spmv_algorithm(small_irregular), SpmvAlgorithm::binned);
    // Irregular with rows of 150 on average (a 1500-entry row).
    const auto small_long_rows = loom::test::random_csr<V, I>(cuda, {2000, 1500, 150, true, true, false, 1});
    EXPECT_EQ(sparse::choose_spmv_algorithm(small_long_rows), SpmvAlgorithm::binned);
    // Irregular and large (17.6 M entries, beyond binned's bound): load_balanced.
    const auto large_irregular = matrix::generate_csr<V, I>(cuda, "powerlaw:1100000:16:1");
    EXPECT_EQ(sparse::choose_spmv_algorithm(large_irregular), SpmvAlgorithm::load_balanced);
    // Every row long (mean 200): a warp per row keeps too few loads in flight.
    const auto long_rows = loom::test::random_csr<V, I>(cuda, {300, 2000, 200, false, true, false, 1});
    EXPECT_EQ(sparse::choose_spmv_algorithm(long_rows), SpmvAlgorithm::load_balanced);
    const typename TestFixture::Csr empty(cuda, dim2{0, 0});
    EXPECT_EQ(sparse::choose_spmv_algorithm(empty), SpmvAlgorithm::row_vector);
}

/// Rows of every length at and around binned's bin edges (0, 1, 2, 3..4, 5..8, 9..16, 17..32,
/// warp rows up to 256, segmented rows beyond, in segments of 2048) and stream's chunk (1024)
/// in a shuffled order, a
/// run of 1100 empty rows, then a power-law tail
/// (length ~ 1/rank) with every seventh row empty: double/int32, the types do not change
/// which bin a row lands in.
matrix::Csr<double, loom::int32> bin_edges_and_power_law(std::shared_ptr<const loom::Executor> exec)
{
    constexpr size_type cols = 30000;
    std::vector<size_type> lengths;
    for (int copy = 0; copy < 3; ++copy) {
        for (const size_type length : {0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 255, 256, 257,
                                       1023, 1024, 1025, 2047, 2048, 2049, 4096, 4097, 6000}) {
            lengths.push_back(length);
        }
    }
    std::mt19937_64 rng(5);
    std::shuffle(lengths.begin(), lengths.end(), rng);
    lengths.insert(lengths.end(), 1100, 0);  // more empty rows in a row than a block takes
    for (size_type rank = 1; rank <= 3000; ++rank) lengths.push_back(rank % 7 == 0 ? 0 : cols / rank);
    std::vector<loom::int32> ptrs{0};
    std::vector<loom::int32> col_idxs;
    std::vector<double> values;
    std::uniform_int_distribution<loom::int32> column(0, cols - 1);
    for (const auto length : lengths) {
        for (size_type k = 0; k < length; ++k) {
            col_idxs.push_back(column(rng));
            values.push_back(loom::test::random_value<double>(rng));
        }
        ptrs.push_back(static_cast<loom::int32>(col_idxs.size()));
    }
    const dim2 size{static_cast<size_type>(lengths.size()), cols};
    return matrix::Csr<double, loom::int32>::from_host(std::move(exec), size, ptrs, col_idxs, values);
}

TEST(SpmvCudaBinned, BinEdgesAndPowerLaw)
{
    using Dense = matrix::Dense<double>;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const auto A_ref = bin_edges_and_power_law(ref);
    const matrix::Csr<double, loom::int32> A(cuda, A_ref);
    EXPECT_EQ(sparse::choose_spmv_algorithm(A), SpmvAlgorithm::binned);  // automatic; the others asked below
    const auto x = loom::test::random_dense<double>(ref, {A.cols(), 1}, 7);
    const Dense x_cuda(cuda, x);
    const auto y0 = loom::test::random_dense<double>(ref, {A.rows(), 1}, 8);
    auto expected = y0;
    sparse::spmv(Mode::none, 1.5, A_ref, x, -0.5, expected);
    for (const auto algorithm : all_algorithms()) {
        SCOPED_TRACE(sparse::to_string(algorithm));
        Dense y(cuda, y0);
        sparse::spmv(Mode::none, 1.5, A, x_cuda, -0.5, y, {algorithm});
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(), loom::test::tolerance<double>());
    }
}

TEST(SpmvCudaBinned, SmallShapesAndStridedX)
{
    using Dense = matrix::Dense<double>;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    // Sizes around a warp, one dense row among short ones, one row: each with a strided x.
    const loom::test::PatternSpec shapes[] = {
        {1, 1, 1, true},   {31, 31, 3, true},   {32, 40, 2, false}, {33, 33, 5, true},
        {1, 5000, 1, true}, {64, 3000, 0.5, true}, {7, 0, 1, false},
    };
    for (const auto& spec : shapes) {
        SCOPED_TRACE(std::to_string(spec.rows) + " x " + std::to_string(spec.cols));
        const auto A_ref = loom::test::random_csr<double, loom::int32>(ref, spec);
        const matrix::Csr<double, loom::int32> A(cuda, A_ref);
        const auto x = loom::test::random_dense<double>(ref, {spec.cols, 1}, 3, 3);
        auto expected = loom::test::random_dense<double>(ref, {spec.rows, 1}, 4);
        Dense y(cuda, expected);
        sparse::spmv(Mode::none, 2.0, A_ref, x, 1.0, expected);
        sparse::spmv(Mode::none, 2.0, A, Dense(cuda, x), 1.0, y, {SpmvAlgorithm::binned});
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(), loom::test::tolerance<double>());
    }
}

TEST(SpmvCudaGraphs, EveryAlgorithmOnRmatGraphs)
{
    using Dense = matrix::Dense<double>;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    // Hubs in rows and columns at once: R-MAT with the hubs at small ids (the largest rows
    // over 2048 entries: segmented by binned, many tiles for load_balanced), and the
    // symmetric, renumbered graph500 form.
    for (const auto spec : {"rmat:14:16:3", "graph500:12:8:4", "rmat:9:2"}) {
        SCOPED_TRACE(spec);
        const auto A_ref = matrix::generate_csr<double, loom::int32>(ref, spec);
        const matrix::Csr<double, loom::int32> A(cuda, A_ref);
        const auto x = loom::test::random_dense<double>(ref, {A.cols(), 1}, 9);
        const Dense x_cuda(cuda, x);
        const auto y0 = loom::test::random_dense<double>(ref, {A.rows(), 1}, 10);
        for (const auto mode : {Mode::none, Mode::transpose}) {
            auto expected = y0;
            sparse::spmv(mode, 0.5, A_ref, x, 2.0, expected);
            for (const auto algorithm : all_algorithms()) {
                SCOPED_TRACE(std::string(sparse::to_string(algorithm)) + " " +
                             sparse::to_string(mode));
                Dense y(cuda, y0);
                sparse::spmv(mode, 0.5, A, x_cuda, 2.0, y, {algorithm});
                LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected.to_host(),
                                         loom::test::tolerance<double>());
            }
        }
    }
}

TYPED_TEST(SpmvCuda, VendorRejectsConjugateWithoutTranspose)
{
    LOOM_TYPED_TEST_TYPES;
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A = loom::test::random_csr<V, I>(cuda, {10, 10, 3, false, true, false, 1});
    const auto x = loom::test::random_dense<V>(cuda, {10, 1}, 1);
    auto y = loom::test::random_dense<V>(cuda, {10, 1}, 2);
    const auto before = y.to_host();
    EXPECT_THROW(sparse::spmv(Mode::conjugate, V{1}, A, x, V{1}, y, {SpmvAlgorithm::vendor}),
                 loom::NotSupported);
    EXPECT_EQ(y.to_host(), before);
}

}  // namespace
}  // namespace loom::test
