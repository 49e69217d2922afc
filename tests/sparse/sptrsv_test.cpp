// SpTRSV: every backend and algorithm against x_true (b = op(T) x_true, built on the host)
// and against the reference; levels and chaining; numeric reuse; pattern changes; bad input.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/sparse/cholmod.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "loom/sparse/triangle.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"
#include "support/types.hpp"
#include "support/typed_fixture.hpp"

namespace {

using loom::dim2;
using loom::size_type;
using loom::blas::Diag;
using loom::blas::Op;
using loom::blas::Uplo;
using loom::sparse::SptrsvAlgorithm;
using loom::sparse::SptrsvOptions;
namespace matrix = loom::matrix;
namespace sparse = loom::sparse;

/// How a random triangular test matrix looks.
struct TriangularSpec {
    size_type n = 0;
    double per_row = 4;  ///< mean off-diagonal entries per row
    Uplo uplo = Uplo::lower;
    bool diagonal = true;  ///< store a (dominant) diagonal; off: rows may be empty
    bool sorted = true;
    bool duplicates = false;  ///< a row's first off-diagonal entry stored twice
    bool dense_row = false;   ///< the last row (lower) or first (upper) is full
    std::uint64_t seed = 7;
};

template <typename V, typename I>
matrix::Csr<V, I> random_triangular(std::shared_ptr<const loom::Executor> exec,
                                    const TriangularSpec& spec)
{
    std::mt19937_64 rng(spec.seed);
    std::poisson_distribution<int> count(spec.per_row);
    std::vector<I> ptrs{0}, cols;
    std::vector<V> values;
    const bool lower = spec.uplo == Uplo::lower;
    for (size_type r = 0; r < spec.n; ++r) {
        const size_type first = lower ? 0 : r + 1;
        const size_type last = lower ? r : spec.n;  // off-diagonal columns [first, last)
        std::vector<I> row;
        if (spec.dense_row && r == (lower ? spec.n - 1 : 0)) {
            for (auto c = first; c < last; ++c) row.push_back(static_cast<I>(c));
        } else if (last > first) {
            std::uniform_int_distribution<size_type> col(first, last - 1);
            const auto k = std::min<size_type>(count(rng), last - first);
            while (static_cast<size_type>(row.size()) < k) {
                const auto c = static_cast<I>(col(rng));
                if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
            }
        }
        if (spec.duplicates && !row.empty()) row.push_back(row.front());
        // Off-diagonal values of total magnitude below 1 against a diagonal of 2 or more
        // keep every solve well conditioned whatever the size.
        const double scale = row.empty() ? 0 : 0.9 / static_cast<double>(row.size());
        for (const auto c : row) {
            cols.push_back(c);
            values.push_back(static_cast<V>(scale) * loom::test::random_value<V>(rng));
        }
        if (spec.diagonal) {
            cols.push_back(static_cast<I>(r));
            values.push_back(V{2} + static_cast<V>(0.5) * loom::test::random_value<V>(rng));
        }
        if (!spec.sorted) {
            // Reverse the row (the diagonal comes first) and swap its halves.
            const auto begin = static_cast<std::ptrdiff_t>(ptrs.back());
            std::reverse(cols.begin() + begin, cols.end());
            std::reverse(values.begin() + begin, values.end());
            const auto middle = begin + (static_cast<std::ptrdiff_t>(cols.size()) - begin) / 2;
            std::rotate(cols.begin() + begin, cols.begin() + middle, cols.end());
            std::rotate(values.begin() + begin, values.begin() + middle, values.end());
        }
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    return matrix::Csr<V, I>::from_host(exec, {spec.n, spec.n}, ptrs, cols, values);
}

/// A triangular matrix made of supernodes of the given widths: dense diagonal blocks (a
/// dominant diagonal) and a few random entries left of each block (lower; the mirror image,
/// (r, c) -> (n - 1 - r, n - 1 - c), for upper).
template <typename V, typename I>
matrix::Csr<V, I> supernodal_triangular(std::shared_ptr<const loom::Executor> exec,
                                        const std::vector<size_type>& widths, Uplo uplo,
                                        std::uint64_t seed = 5)
{
    std::mt19937_64 pattern(5);  // the same pattern for every seed
    std::mt19937_64 rng(seed);
    size_type n = 0;
    for (const auto w : widths) n += w;
    std::vector<std::vector<std::pair<I, V>>> rows(n);
    size_type first = 0;
    for (const auto w : widths) {
        for (auto r = first; r < first + w; ++r) {
            std::vector<size_type> off;
            for (auto c = first; c < r; ++c) off.push_back(c);
            // Never the row just above the block, so that the block stays a supernode of its own.
            for (int e = 0; e < 3 && first > 1; ++e) {
                const auto c =
                    static_cast<size_type>(pattern() % static_cast<std::uint64_t>(first - 1));
                if (std::find(off.begin(), off.end(), c) == off.end()) off.push_back(c);
            }
            const double scale = off.empty() ? 0 : 0.9 / static_cast<double>(off.size());
            const auto at = [&](size_type i) { return uplo == Uplo::lower ? i : n - 1 - i; };
            for (const auto c : off) {
                rows[at(r)].emplace_back(static_cast<I>(at(c)),
                                         static_cast<V>(scale) * loom::test::random_value<V>(rng));
            }
            rows[at(r)].emplace_back(static_cast<I>(at(r)),
                                     V{2} + static_cast<V>(0.5) * loom::test::random_value<V>(rng));
        }
        first += w;
    }
    std::vector<I> ptrs{0}, cols;
    std::vector<V> values;
    for (auto& row : rows) {
        std::sort(row.begin(), row.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [c, v] : row) {
            cols.push_back(c);
            values.push_back(v);
        }
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    return matrix::Csr<V, I>::from_host(exec, {n, n}, ptrs, cols, values);
}

/// Block lower bidiagonal: `levels` levels of `width` rows, row r reading row r - width
/// (diagonal 4, the other entry 1): every level as wide as the others.
template <typename V, typename I>
matrix::Csr<V, I> block_bidiagonal(std::shared_ptr<const loom::Executor> exec, size_type width,
                                   size_type levels)
{
    const auto n = levels * width;
    std::vector<I> ptrs{0}, cols;
    std::vector<V> values;
    for (size_type r = 0; r < n; ++r) {
        if (r >= width) {
            cols.push_back(static_cast<I>(r - width));
            values.push_back(V{1});
        }
        cols.push_back(static_cast<I>(r));
        values.push_back(V{4});
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    return matrix::Csr<V, I>::from_host(std::move(exec), {n, n}, ptrs, cols, values);
}

/// op(T) x on the host, the diagonal taken as ones for a unit diagonal.
template <typename V, typename I>
std::vector<V> apply_op(const matrix::Csr<V, I>& T, const SptrsvOptions& options,
                        const std::vector<V>& x, size_type k)
{
    const auto ptrs = T.row_ptrs().to_host();
    const auto cols = T.col_idxs().to_host();
    const auto values = T.values().to_host();
    const bool unit = options.diag == Diag::unit;
    std::vector<V> b(x.size(), V{0});
    if (unit) b = x;
    for (size_type r = 0; r < T.rows(); ++r) {
        for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
            const size_type c = cols[e];
            if (unit && c == r) continue;
            const V v = options.op == Op::conj_transpose ? loom::conj(values[e]) : values[e];
            const auto [out, in] = options.op == Op::none ? std::pair{r, c} : std::pair{c, r};
            for (size_type j = 0; j < k; ++j) b[out * k + j] += v * x[in * k + j];
        }
    }
    return b;
}

/// The algorithms that run on exec.
std::vector<SptrsvAlgorithm> algorithms_on(const loom::Executor& exec)
{
    if (exec.kind() == loom::ExecKind::cuda) {
        return {SptrsvAlgorithm::automatic, SptrsvAlgorithm::level_set, SptrsvAlgorithm::sync_free,
                SptrsvAlgorithm::supernodal};
    }
    return {SptrsvAlgorithm::automatic, SptrsvAlgorithm::level_set, SptrsvAlgorithm::supernodal};
}

std::string describe(const SptrsvOptions& o)
{
    return std::string(sparse::to_string(o.algorithm)) +
           (o.uplo == Uplo::lower ? " lower" : " upper") +
           (o.diag == Diag::unit ? " unit " : " non-unit ") + loom::blas::to_string(o.op);
}

template <typename Types>
class Sptrsv : public loom::test::TypedFixture<Types> {
protected:
    using Base = loom::test::TypedFixture<Types>;
    using typename Base::V, typename Base::I, typename Base::Csr, typename Base::Dense;

    static std::vector<std::shared_ptr<const loom::Executor>> executors()
    {
        auto result = loom::test::backends();
        result.insert(result.begin(), loom::test::reference());
        return result;
    }

    /// Solves op(T) x = b on exec for b = op(T) x_true; checks x against x_true.
    std::vector<V> solve_and_check(const std::shared_ptr<const loom::Executor>& exec,
                                   const Csr& T_ref, const SptrsvOptions& options, size_type k,
                                   double tol)
    {
        std::mt19937_64 rng(99);
        std::vector<V> x_true(static_cast<std::size_t>(T_ref.rows() * k));
        for (auto& v : x_true) v = loom::test::random_value<V>(rng);
        const auto b_host = apply_op(T_ref, options, x_true, k);
        const Csr T(exec, T_ref);
        const auto b = Dense::from_host(exec, {T.rows(), k}, b_host);
        Dense x(exec, {T.rows(), k});
        sparse::SptrsvHandle<V, I> handle(options);
        sparse::sptrsv_symbolic(handle, T);
        sparse::sptrsv_solve(handle, T, b, x);
        const auto result = x.to_host();
        EXPECT_LE(loom::test::relative_error(result, x_true), tol)
            << describe(options) << " on " << exec->name() << ", n = " << T.rows();
        return result;
    }
};

TYPED_TEST_SUITE(Sptrsv, loom::test::ValueIndexTypes);

TYPED_TEST(Sptrsv, EveryAlgorithmOpAndDiagonalMatchesTheTrueSolution)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const double tol = 100 * loom::test::tolerance<V>();
    std::uint64_t seed = 1;
    for (const auto n : loom::test::awkward_sizes()) {
        for (const auto uplo : {Uplo::lower, Uplo::upper}) {
            for (const auto diag : {Diag::non_unit, Diag::unit}) {
                TriangularSpec spec{.n = n,
                                    .uplo = uplo,
                                    .diagonal = diag == Diag::non_unit,
                                    .sorted = seed % 2 == 0,
                                    .duplicates = seed % 3 == 0,
                                    .dense_row = seed % 4 == 1,
                                    .seed = seed};
                ++seed;
                const auto T = random_triangular<V, I>(this->ref, spec);
                for (const auto op : {Op::none, Op::transpose, Op::conj_transpose}) {
                    for (const auto& exec : this->executors()) {
                        for (const auto algorithm : algorithms_on(*exec)) {
                            const SptrsvOptions options{algorithm, uplo, diag, op};
                            this->solve_and_check(exec, T, options, 1, tol);
                        }
                    }
                }
            }
        }
    }
}

TYPED_TEST(Sptrsv, UnitDiagonalIgnoresStoredDiagonalEntries)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const auto T = random_triangular<V, I>(this->ref, {.n = 100, .seed = 3});
    const auto strict = sparse::triangle(T, Uplo::lower, false);
    for (const auto& exec : this->executors()) {
        const SptrsvOptions options{.diag = Diag::unit};
        const auto with = this->solve_and_check(exec, strict, options, 1, std::max(1e-10, loom::test::tolerance<V>()));
        const auto without = this->solve_and_check(exec, T, options, 1, std::max(1e-10, loom::test::tolerance<V>()));
        LOOM_EXPECT_NEAR_VECTORS(with, without, loom::test::tolerance<V>());
    }
}

TYPED_TEST(Sptrsv, MultipleRightHandSidesWithStrides)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    const auto T_ref = random_triangular<V, I>(this->ref, {.n = 500, .per_row = 6, .seed = 5});
    for (const auto& exec : this->executors()) {
        for (const auto op : {Op::none, Op::transpose}) {
            const SptrsvOptions options{.op = op};
            this->solve_and_check(exec, T_ref, options, 3, std::max(1e-10, loom::test::tolerance<V>()));
            // Views with strides: the second and third columns of wider blocks.
            const typename TestFixture::Csr T(exec, T_ref);
            auto b_wide = loom::test::random_dense<V>(exec, {500, 4});
            Dense x_wide(exec, {500, 5});
            x_wide.fill(V{0});
            auto b = b_wide.columns(1, 2);
            auto x = x_wide.columns(2, 2);
            sparse::sptrsv(T, b, x, options);
            Dense x_packed(exec, {500, 2});
            sparse::sptrsv(T, Dense(exec, b), x_packed, options);
            LOOM_EXPECT_NEAR_VECTORS(Dense(exec, x).to_host(), x_packed.to_host(),
                                     loom::test::tolerance<V>());
            EXPECT_EQ(Dense(exec, x_wide.column(0)).to_host(), std::vector<V>(500, V{0}));
        }
    }
}

TYPED_TEST(Sptrsv, ManyThinLevelsAreChained)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const size_type n = 5000;
    std::vector<I> ptrs{0}, cols;
    std::vector<V> values;
    for (size_type r = 0; r < n; ++r) {
        if (r > 0) {
            cols.push_back(static_cast<I>(r - 1));
            values.push_back(V{-0.5});
        }
        cols.push_back(static_cast<I>(r));
        values.push_back(V{2});
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    const auto T = matrix::Csr<V, I>::from_host(this->ref, {n, n}, ptrs, cols, values);
    for (const auto& exec : this->executors()) {
        for (const auto algorithm : algorithms_on(*exec)) {
            for (const auto op : {Op::none, Op::transpose}) {
                const SptrsvOptions options{.algorithm = algorithm, .op = op};
                this->solve_and_check(exec, T, options, 1, std::max(1e-10, loom::test::tolerance<V>()));
                sparse::SptrsvHandle<V, I> handle(options);
                sparse::sptrsv_symbolic(handle, matrix::Csr<V, I>(exec, T));
                EXPECT_EQ(handle.levels(), n);
                EXPECT_EQ(handle.max_level_width(), 1);
                if (handle.algorithm() == SptrsvAlgorithm::level_set &&
                    exec->kind() != loom::ExecKind::reference) {
                    EXPECT_EQ(handle.stages(), 1) << exec->name();
                }
            }
        }
    }
}

TYPED_TEST(Sptrsv, QueriesDescribeTheLevels)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const auto T = random_triangular<V, I>(this->ref, {.n = 40, .per_row = 0});
    sparse::SptrsvHandle<V, I> handle;
    EXPECT_EQ(handle.algorithm(), SptrsvAlgorithm::automatic);
    EXPECT_THROW(handle.levels(), loom::BadInput);
    sparse::sptrsv_symbolic(handle, T);
    EXPECT_EQ(handle.levels(), 1);
    EXPECT_EQ(handle.max_level_width(), 40);
    EXPECT_EQ(handle.algorithm(), SptrsvAlgorithm::level_set);
    handle.reset();
    EXPECT_FALSE(handle.analyzed());
}

TEST(SptrsvLevels, LevelScheduleQueryListsTheRowsOfEachLevel)
{
    // Row r of the lower T depends on row r - 2 (rows 0, 1 on none), row 5 on row 4 too:
    // levels {0, 1}, {2, 3}, {4}, {5}. In T^T (upper) row c depends on c + 2, row 4 on 5:
    // levels {5}, {3, 4}, {1, 2}, {0}.
    using Csr = matrix::Csr<double, loom::int32>;
    const std::vector<loom::int32> ptrs{0, 1, 2, 4, 6, 8, 11};
    const std::vector<loom::int32> cols{0, 1, 0, 2, 1, 3, 2, 4, 4, 3, 5};
    const std::vector<double> values(cols.size(), 1.0);
    const auto T_ref = Csr::from_host(loom::test::reference(), {6, 6}, ptrs, cols, values);
    auto executors = loom::test::backends();
    executors.insert(executors.begin(), loom::test::reference());
    for (const auto& exec : executors) {
        for (const auto op : {Op::none, Op::transpose}) {
            for (const auto algorithm : algorithms_on(*exec)) {
                sparse::SptrsvHandle<double, loom::int32> handle({.algorithm = algorithm, .op = op});
                EXPECT_THROW(handle.level_rows(), loom::BadInput);
                sparse::sptrsv_symbolic(handle, Csr(exec, T_ref));
                const auto label = describe(handle.options()) + " on " + exec->name();
                if (handle.algorithm() == SptrsvAlgorithm::supernodal) {
                    EXPECT_THROW(handle.level_ptrs(), loom::BadInput) << label;
                    continue;
                }
                EXPECT_EQ(handle.level_ptrs().executor(), exec) << label;
                const bool none = op == Op::none;
                const std::vector<loom::int32> ptrs_expected =
                    none ? std::vector<loom::int32>{0, 2, 4, 5, 6}
                         : std::vector<loom::int32>{0, 1, 3, 5, 6};
                const std::vector<loom::int32> rows_expected =
                    none ? std::vector<loom::int32>{0, 1, 2, 3, 4, 5}
                         : std::vector<loom::int32>{5, 3, 4, 1, 2, 0};
                EXPECT_EQ(handle.level_ptrs().to_host(), ptrs_expected) << label;
                EXPECT_EQ(handle.level_rows().to_host(), rows_expected)
                    << label;
            }
        }
    }
}

TEST(SptrsvLevels, ScheduleOnlyAnalysisGivesTheHandlesSchedule)
{
    // A random lower T with empty rows and no diagonal (the schedule needs none), for every
    // triangle and op: sptrsv_levels gives what a level_set handle's queries give.
    using Csr = matrix::Csr<double, loom::int32>;
    auto executors = loom::test::backends();
    executors.insert(executors.begin(), loom::test::reference());
    for (const auto& exec : executors) {
        for (const auto uplo : {Uplo::lower, Uplo::upper}) {
            const auto T = random_triangular<double, loom::int32>(
                exec, {.n = 300, .per_row = 2, .uplo = uplo, .diagonal = false, .seed = 11});
            for (const auto op : {Op::none, Op::transpose}) {
                const SptrsvOptions options{.algorithm = SptrsvAlgorithm::level_set,
                                            .uplo = uplo,
                                            .diag = Diag::unit,
                                            .op = op};
                sparse::SptrsvHandle<double, loom::int32> handle(options);
                sparse::sptrsv_symbolic(handle, T);
                const auto levels = sparse::sptrsv_levels(T, {.uplo = uplo, .op = op});
                const auto label = describe(options) + " on " + exec->name();
                EXPECT_EQ(levels.level_ptrs.executor(), exec) << label;
                EXPECT_EQ(levels.level_ptrs.to_host(), handle.level_ptrs().to_host()) << label;
                EXPECT_EQ(levels.level_rows.to_host(), handle.level_rows().to_host()) << label;
            }
        }
        const auto empty = sparse::sptrsv_levels(Csr(exec, {0, 0}));
        EXPECT_EQ(empty.level_rows.size(), 0);
    }
}

TEST(SptrsvLevels, ScheduleOnlyAnalysisRejectsBadInput)
{
    using Csr = matrix::Csr<double, loom::int32>;
    auto executors = loom::test::backends();
    executors.insert(executors.begin(), loom::test::reference());
    for (const auto& exec : executors) {
        EXPECT_THROW(sparse::sptrsv_levels(Csr(exec, {3, 4})), loom::DimensionMismatch);
        // (0, 1) lies above the diagonal.
        const auto full = Csr::from_host(exec, {2, 2}, std::vector<loom::int32>{0, 2, 3},
                                         std::vector<loom::int32>{0, 1, 1},
                                         std::vector<double>{1, 1, 1});
        try {
            sparse::sptrsv_levels(full);
            ADD_FAILURE() << "no error on " << exec->name();
        } catch (const loom::BadInput& e) {
            EXPECT_NE(std::string(e.what()).find("sptrsv_levels"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("(0, 1)"), std::string::npos) << e.what();
        }
        EXPECT_NO_THROW(sparse::sptrsv_levels(full, {.uplo = Uplo::upper}));
    }
}

TYPED_TEST(Sptrsv, FatLevelsRunInParallelStages)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    const size_type w = 2000;
    const auto omp = loom::OmpExecutor::create(2);
    const auto T = block_bidiagonal<V, I>(omp, w, 3);
    sparse::SptrsvHandle<V, I> handle;
    sparse::sptrsv_symbolic(handle, T);
    EXPECT_EQ(handle.levels(), 3);
    EXPECT_EQ(handle.max_level_width(), w);
    EXPECT_EQ(handle.stages(), 3);
    this->solve_and_check(omp, T, {}, 2, std::max(1e-12, loom::test::tolerance<V>()));
}

TYPED_TEST(Sptrsv, NumericReuseAfterAValueChange)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    for (const auto& exec : this->executors()) {
        for (const auto [algorithm, op] : {std::pair{SptrsvAlgorithm::automatic, Op::none},
                                           std::pair{SptrsvAlgorithm::automatic, Op::conj_transpose},
                                           std::pair{SptrsvAlgorithm::level_set, Op::none},
                                           std::pair{SptrsvAlgorithm::sync_free, Op::conj_transpose}}) {
            if (algorithm == SptrsvAlgorithm::sync_free && exec->kind() != loom::ExecKind::cuda) continue;
            const SptrsvOptions options{.algorithm = algorithm, .op = op};
            auto T = matrix::Csr<V, I>(exec, random_triangular<V, I>(this->ref, {.n = 300}));
            sparse::SptrsvHandle<V, I> handle(options);
            sparse::sptrsv_symbolic(handle, T);
            const auto changed = random_triangular<V, I>(this->ref, {.n = 300, .seed = 7});
            // Same pattern (same seed of the pattern's generator), new values.
            auto values = changed.values().to_host();
            for (auto& v : values) v = v * V{1.5};
            T.values() = loom::Array<V>(exec, values);
            sparse::sptrsv_numeric(handle, T);
            const auto b = loom::test::random_dense<V>(exec, {300, 1});
            Dense x(exec, {300, 1});
            sparse::sptrsv_solve(handle, T, b, x);
            Dense expected(exec, {300, 1});
            sparse::sptrsv(T, b, expected, options);
            LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), loom::test::tolerance<V>());
        }
    }
}

TYPED_TEST(Sptrsv, PatternChangeIsBadInputAndLeavesXUntouched)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    for (const auto& exec : this->executors()) {
        auto T = matrix::Csr<V, I>(exec, random_triangular<V, I>(this->ref, {.n = 50}));
        sparse::SptrsvHandle<V, I> handle;
        sparse::sptrsv_symbolic(handle, T);
        const auto other = random_triangular<V, I>(this->ref, {.n = 50, .seed = 8});
        T = matrix::Csr<V, I>(exec, other);
        const auto b = loom::test::random_dense<V>(exec, {50, 1});
        Dense x(exec, {50, 1});
        x.fill(V{3});
        EXPECT_THROW(sparse::sptrsv_solve(handle, T, b, x), loom::BadInput);
        EXPECT_THROW(sparse::sptrsv_numeric(handle, T), loom::BadInput);
        EXPECT_EQ(x.to_host(), std::vector<V>(50, V{3}));
    }
}

TYPED_TEST(Sptrsv, BadInputGivesClearErrors)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Csr = typename TestFixture::Csr;
    using Dense = typename TestFixture::Dense;
    for (const auto& exec : this->executors()) {
        sparse::SptrsvHandle<V, I> handle;
        const auto rect = Csr::from_host(exec, {2, 3}, {0, 1, 2}, {0, 1}, {V{1}, V{1}});
        EXPECT_THROW(sparse::sptrsv_symbolic(handle, rect), loom::DimensionMismatch);

        const auto upper_entry =
            Csr::from_host(exec, {3, 3}, {0, 1, 3, 4}, {0, 1, 2, 2}, {V{1}, V{1}, V{1}, V{1}});
        try {
            sparse::sptrsv_symbolic(handle, upper_entry);
            ADD_FAILURE() << "an entry above the diagonal was accepted";
        } catch (const loom::BadInput& e) {
            EXPECT_NE(std::string(e.what()).find("(1, 2)"), std::string::npos) << e.what();
        }
        const auto zero_diagonal =
            Csr::from_host(exec, {3, 3}, {0, 1, 3, 4}, {0, 0, 1, 2}, {V{1}, V{1}, V{0}, V{1}});
        const auto missing_diagonal =
            Csr::from_host(exec, {3, 3}, {0, 1, 2, 3}, {0, 0, 2}, {V{1}, V{1}, V{1}});
        for (const auto* M : {&zero_diagonal, &missing_diagonal}) {
            try {
                sparse::sptrsv_symbolic(handle, *M);
                ADD_FAILURE() << "a zero diagonal entry was accepted";
            } catch (const loom::NumericalError& e) {
                EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
            }
        }
        EXPECT_FALSE(handle.analyzed());
        sparse::SptrsvHandle<V, I> unit({.diag = Diag::unit});
        EXPECT_NO_THROW(sparse::sptrsv_symbolic(unit, missing_diagonal));

        const auto T = Csr(exec, random_triangular<V, I>(this->ref, {.n = 10}));
        Dense x(exec, {10, 2});
        x.fill(V{5});
        const auto b = loom::test::random_dense<V>(exec, {10, 2});
        EXPECT_THROW(sparse::sptrsv_solve(handle, T, b, x), loom::BadInput);  // no analysis
        sparse::sptrsv_symbolic(handle, T);
        EXPECT_THROW(sparse::sptrsv_solve(handle, T, loom::test::random_dense<V>(exec, {9, 2}), x),
                     loom::DimensionMismatch);
        EXPECT_THROW(sparse::sptrsv_solve(handle, T, loom::test::random_dense<V>(exec, {10, 1}), x),
                     loom::DimensionMismatch);
        Dense short_x(exec, {9, 2});
        EXPECT_THROW(sparse::sptrsv_solve(handle, T, b, short_x), loom::DimensionMismatch);
        EXPECT_THROW(sparse::sptrsv_solve(handle, T, x, x), loom::BadInput);
        EXPECT_EQ(x.to_host(), std::vector<V>(20, V{5}));

        // A zero diagonal value arriving through new values, same pattern.
        auto values = T.values().to_host();
        const auto ptrs = T.row_ptrs().to_host();
        const auto cols = T.col_idxs().to_host();
        for (auto k = ptrs[5]; k < ptrs[6]; ++k) values[k] = cols[k] == 5 ? V{0} : values[k];
        auto T_zero = T;
        T_zero.values() = loom::Array<V>(exec, values);
        try {
            sparse::sptrsv_numeric(handle, T_zero);
            ADD_FAILURE() << "a zero diagonal value was accepted";
        } catch (const loom::NumericalError& e) {
            EXPECT_NE(std::string(e.what()).find("row 5"), std::string::npos) << e.what();
        }
        if (exec->kind() != loom::ExecKind::cuda) {
            sparse::SptrsvHandle<V, I> sync_free({.algorithm = SptrsvAlgorithm::sync_free});
            EXPECT_THROW(sparse::sptrsv_symbolic(sync_free, T), loom::NotSupported);
            sparse::SptrsvHandle<V, I> vendor({.algorithm = SptrsvAlgorithm::vendor});
            EXPECT_THROW(sparse::sptrsv_symbolic(vendor, T), loom::NotSupported);
        }
    }
    EXPECT_EQ(sparse::parse_sptrsv_algorithm("sync-free"), SptrsvAlgorithm::sync_free);
    EXPECT_THROW(sparse::parse_sptrsv_algorithm("magic"), loom::BadInput);
}

TYPED_TEST(Sptrsv, TrianglesOfRealMatricesMatchTheReference)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    for (const auto* name : {"bcsstk05", "nos4", "gr_30_30", "sherman1", "west0989"}) {
        if (!loom::test::have_shared_matrix(name)) continue;
        const auto A = matrix::read_csr<V, I>(this->ref, loom::test::shared_matrix_path(name));
        for (const auto uplo : {Uplo::lower, Uplo::upper}) {
            auto T = sparse::triangle(A, uplo);
            const auto diagonal = sparse::extract_diagonal(T).to_host();
            const bool unit = std::count(diagonal.begin(), diagonal.end(), V{0}) > 0;
            for (const auto op : {Op::none, Op::transpose}) {
                const SptrsvOptions options{
                    .uplo = uplo, .diag = unit ? Diag::unit : Diag::non_unit, .op = op};
                const auto b = loom::test::random_dense<V>(this->ref, {A.rows(), 1});
                Dense expected(this->ref, {A.rows(), 1});
                sparse::sptrsv(T, b, expected, options);
                for (const auto& exec : loom::test::backends()) {
                    for (const auto algorithm : algorithms_on(*exec)) {
                        auto o = options;
                        o.algorithm = algorithm;
                        Dense x(exec, {A.rows(), 1});
                        sparse::sptrsv(matrix::Csr<V, I>(exec, T), Dense(exec, b), x, o);
                        EXPECT_LE(loom::test::relative_error(x.to_host(), expected.to_host()),
                                  std::max(1e-9, loom::test::tolerance<V>()))
                            << name << " " << describe(o) << " on " << exec->name();
                    }
                }
            }
        }
    }
}

/// Supernodes of 1 to 70 rows (70: cut at the widest supernode, 64).
const std::vector<size_type> supernode_widths{1, 3, 64, 70, 5, 2, 17, 1, 33, 8, 8, 40};

TYPED_TEST(Sptrsv, SupernodalMatchesTheTrueSolutionForEveryOpAndDiagonal)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const double tol = 100 * loom::test::tolerance<V>();
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        const auto T = supernodal_triangular<V, I>(this->ref, supernode_widths, uplo);
        for (const auto diag : {Diag::non_unit, Diag::unit}) {
            for (const auto op : {Op::none, Op::transpose, Op::conj_transpose}) {
                const SptrsvOptions options{SptrsvAlgorithm::supernodal, uplo, diag, op};
                for (const auto& exec : this->executors()) {
                    this->solve_and_check(exec, T, options, 5, tol);
                    sparse::SptrsvHandle<V, I> handle(options);
                    sparse::sptrsv_symbolic(handle, matrix::Csr<V, I>(exec, T));
                    // 70 rows make two supernodes of 64 and 6.
                    EXPECT_EQ(handle.supernodes(), supernode_widths.size() + 1);
                    EXPECT_EQ(handle.algorithm(), SptrsvAlgorithm::supernodal);
                }
            }
        }
    }
}

TYPED_TEST(Sptrsv, SupernodalNumericReuseInvertsTheNewBlocks)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    using Dense = typename TestFixture::Dense;
    const auto T1 = supernodal_triangular<V, I>(this->ref, supernode_widths, Uplo::lower, 5);
    const auto T2 = supernodal_triangular<V, I>(this->ref, supernode_widths, Uplo::lower, 6);
    ASSERT_EQ(T1.col_idxs().to_host(), T2.col_idxs().to_host());
    for (const auto& exec : this->executors()) {
        for (const auto op : {Op::none, Op::transpose}) {
            const SptrsvOptions options{.algorithm = SptrsvAlgorithm::supernodal, .op = op};
            matrix::Csr<V, I> T(exec, T1);
            const auto b = loom::test::random_dense<V>(exec, {T.rows(), 3});
            sparse::SptrsvHandle<V, I> handle(options);
            sparse::sptrsv_symbolic(handle, T);
            T.values() = loom::Array<V>(exec, T2.values().to_host());
            sparse::sptrsv_numeric(handle, T);
            Dense x(exec, {T.rows(), 3});
            sparse::sptrsv_solve(handle, T, b, x);
            Dense expected(this->ref, {T.rows(), 3});
            sparse::sptrsv(T2, Dense(this->ref, b), expected,
                           {.algorithm = SptrsvAlgorithm::level_set, .op = op});
            LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(),
                                     100 * loom::test::tolerance<V>());
        }
    }
}

TYPED_TEST(Sptrsv, AutomaticPicksSupernodalOnlyOnCudaForWideSupernodes)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    // Five copies of the widths: too large (float too) for CUDA's one-block solve, which automatic
    // prefers for a factor that fits one block's shared memory.
    std::vector<size_type> widths;
    for (int copy = 0; copy < 5; ++copy) widths.insert(widths.end(), supernode_widths.begin(), supernode_widths.end());
    const auto wide = supernodal_triangular<V, I>(this->ref, widths, Uplo::lower);
    const auto thin = random_triangular<V, I>(this->ref, {.n = 300, .per_row = 3});
    for (const auto& exec : this->executors()) {
        const bool cuda = exec->kind() == loom::ExecKind::cuda;
        sparse::SptrsvHandle<V, I> handle;
        sparse::sptrsv_symbolic(handle, matrix::Csr<V, I>(exec, wide));
        EXPECT_EQ(handle.algorithm() == SptrsvAlgorithm::supernodal, cuda) << exec->name();
        sparse::sptrsv_symbolic(handle, matrix::Csr<V, I>(exec, thin));
        EXPECT_GT(4 * handle.supernodes(), 300);  // a mean width below 4
        EXPECT_NE(handle.algorithm(), SptrsvAlgorithm::supernodal) << exec->name();
    }
}

TYPED_TEST(Sptrsv, SupernodalSolvesWithCholmodFactorsOfPoisson)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    if constexpr (!std::is_floating_point_v<V>) {
        GTEST_SKIP() << "CHOLMOD factors real matrices";
    } else {
        if (!sparse::cholmod_available()) GTEST_SKIP() << "built without CHOLMOD";
        for (const int points : {7, 27}) {
            const auto A = matrix::poisson3d<V, I>(this->ref, 9, points);
            const auto factor = sparse::cholmod_cholesky(A);
            ASSERT_EQ(factor.permutation.size(), 9u * 9 * 9);
            ASSERT_GE(factor.supernodes.size(), 2u);
            for (const auto& exec : this->executors()) {
                for (const auto op : {Op::none, Op::transpose}) {
                    // CHOLMOD's partition, and the one the analysis finds.
                    SptrsvOptions options{.algorithm = SptrsvAlgorithm::supernodal, .op = op};
                    this->solve_and_check(exec, factor.L, options, 4, std::max(1e-10, loom::test::tolerance<V>()));
                    options.supernodes = factor.supernodes;
                    this->solve_and_check(exec, factor.L, options, 4, std::max(1e-10, loom::test::tolerance<V>()));
                }
            }
            // The analysis finds supernodes at least as wide as CHOLMOD's on average.
            sparse::SptrsvHandle<V, I> handle({.algorithm = SptrsvAlgorithm::supernodal});
            sparse::sptrsv_symbolic(handle, factor.L);
            EXPECT_LE(handle.supernodes(), factor.supernodes.size());
        }
    }
}

TYPED_TEST(Sptrsv, SupernodalRejectsABadPartition)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    const auto T = supernodal_triangular<V, I>(this->ref, {3, 4}, Uplo::lower);
    for (const auto& bad : std::vector<std::vector<size_type>>{{0, 3}, {1, 7}, {0, 4, 4, 7}}) {
        sparse::SptrsvHandle<V, I> handle(
            {.algorithm = SptrsvAlgorithm::supernodal, .supernodes = bad});
        EXPECT_THROW(sparse::sptrsv_symbolic(handle, T), loom::BadInput);
        EXPECT_FALSE(handle.analyzed());
    }
}

/// Analyses T on the reference and on cuda (whose analysis runs on the device for these
/// algorithms) and expects the same levels and supernodes and the same solution.
void expect_device_analysis_matches(const std::shared_ptr<const loom::Executor>& cuda,
                                    const matrix::Csr<double, loom::int32>& T_ref,
                                    const SptrsvOptions& options, const std::string& what)
{
    const auto ref = loom::test::reference();
    const auto n = T_ref.rows();
    sparse::SptrsvHandle<double, loom::int32> expected(options);
    auto reference_options = options;
    reference_options.algorithm = SptrsvAlgorithm::level_set;
    sparse::SptrsvHandle<double, loom::int32> host(reference_options);
    sparse::sptrsv_symbolic(host, T_ref);
    const matrix::Csr<double, loom::int32> T(cuda, T_ref);
    sparse::SptrsvHandle<double, loom::int32> device(options);
    sparse::sptrsv_symbolic(device, T);
    const auto label = what + ", " + describe(options);
    EXPECT_EQ(device.levels(), host.levels()) << label;
    EXPECT_EQ(device.max_level_width(), host.max_level_width()) << label;
    EXPECT_EQ(device.supernodes(), host.supernodes()) << label;
    const auto b = loom::test::random_dense<double>(ref, {n, 2});
    matrix::Dense<double> x_ref(ref, {n, 2});
    sparse::sptrsv_solve(host, T_ref, b, x_ref);
    matrix::Dense<double> x(cuda, {n, 2});
    sparse::sptrsv_solve(device, T, matrix::Dense<double>(cuda, b), x);
    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), x_ref.to_host(), 1e-12);
}

TEST(SptrsvCuda, DeviceAnalysisMatchesTheHostOne)
{
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        // Unsorted rows with duplicates; empty rows (no diagonal, unit); a dense row; a
        // bidiagonal chain of many thin levels across several supernode-counting chunks.
        const std::vector<std::pair<std::string, TriangularSpec>> specs{
            {"unsorted with duplicates",
             {.n = 3000, .per_row = 3, .uplo = uplo, .sorted = false, .duplicates = true}},
            {"empty rows", {.n = 500, .per_row = 0.5, .uplo = uplo, .diagonal = false}},
            {"dense row", {.n = 700, .per_row = 2, .uplo = uplo, .dense_row = true}},
            {"chain", {.n = 40000, .per_row = 1.2, .uplo = uplo}}};
        for (const auto& [what, spec] : specs) {
            const auto T_ref = random_triangular<double, loom::int32>(ref, spec);
            for (const auto op : {Op::none, Op::transpose}) {
                for (const auto algorithm : {SptrsvAlgorithm::automatic, SptrsvAlgorithm::level_set,
                                             SptrsvAlgorithm::sync_free}) {
                    const auto diag = spec.diagonal ? Diag::non_unit : Diag::unit;
                    expect_device_analysis_matches(cuda, T_ref, {algorithm, uplo, diag, op}, what);
                }
            }
        }
        // Supernodes of every width up to past the 64-row cap: counted on the device, and
        // automatic then picks supernodal (whose schedule the host builds), the factor being
        // too large for the one-block solve (~0.4 MB; a small one runs there, below).
        std::vector<size_type> widths;
        for (int copy = 0; copy < 3; ++copy) {
            for (const size_type w : {1, 3, 64, 2, 70, 5, 129, 7, 1, 1, 40}) widths.push_back(w);
        }
        const auto S = supernodal_triangular<double, loom::int32>(ref, widths, uplo);
        const auto small = supernodal_triangular<double, loom::int32>(ref, {1, 3, 64, 2, 7}, uplo);
        {
            sparse::SptrsvHandle<double, loom::int32> automatic({.uplo = uplo});
            sparse::sptrsv_symbolic(automatic, matrix::Csr<double, loom::int32>(cuda, small));
            EXPECT_EQ(automatic.algorithm(), SptrsvAlgorithm::level_set);
        }
        for (const auto op : {Op::none, Op::transpose}) {
            expect_device_analysis_matches(cuda, S, {SptrsvAlgorithm::sync_free, uplo, Diag::non_unit, op},
                                           "supernodes");
            sparse::SptrsvHandle<double, loom::int32> automatic({.uplo = uplo, .op = op});
            sparse::sptrsv_symbolic(automatic, matrix::Csr<double, loom::int32>(cuda, S));
            EXPECT_EQ(automatic.algorithm(), SptrsvAlgorithm::supernodal);
        }
    }
}

TEST(SptrsvCuda, SyncFreeOnStencilFactorsMatchesTheReference)
{
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    // Triangles of 3D stencils: row r waits on r - 1 (and the 27-point one on r - n +- 1...),
    // rows of neighbouring levels share warps at level boundaries; 7-point rows are short
    // (4 lanes per row), 27-point ones long (a warp per row).
    for (const int points : {7, 27}) {
        const auto A = matrix::poisson3d<double, loom::int32>(ref, points == 7 ? 12 : 8, points);
        const auto n = A.rows();
        const auto b = loom::test::random_dense<double>(ref, {n, 3});
        for (const auto uplo : {Uplo::lower, Uplo::upper}) {
            const auto T_ref = sparse::triangle(A, uplo);
            const matrix::Csr<double, loom::int32> T(cuda, T_ref);
            for (const auto op : {Op::none, Op::transpose}) {
                // (A unit diagonal would make x grow like 3^levels here.)
                const SptrsvOptions options{SptrsvAlgorithm::sync_free, uplo, Diag::non_unit, op};
                auto reference_options = options;
                reference_options.algorithm = SptrsvAlgorithm::level_set;
                matrix::Dense<double> expected(ref, {n, 3});
                sparse::sptrsv(T_ref, b, expected, reference_options);
                sparse::SptrsvHandle<double, loom::int32> handle(options);
                sparse::sptrsv_symbolic(handle, T);
                matrix::Dense<double> x(cuda, {n, 3});
                // Twice: the second solve starts from the first one's x.
                SCOPED_TRACE(std::to_string(points) + "-point, " + describe(options));
                for (int solve = 0; solve < 2; ++solve) {
                    sparse::sptrsv_solve(handle, T, matrix::Dense<double>(cuda, b), x);
                    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-11);
                }
            }
        }
    }
}

TEST(SptrsvCuda, SupernodalMatchesTheReferenceWithTwoRightHandSides)
{
    // Supernodes of every width up to past the 64-row cap (step 1 by a warp per row).
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        // A dense row of 1500 entries: its level's step 1 by a block per row.
        for (const auto& T_ref :
             {supernodal_triangular<double, loom::int32>(
                  ref, {1, 3, 64, 2, 70, 5, 129, 7, 1, 1, 40}, uplo),
              random_triangular<double, loom::int32>(
                  ref, {.n = 1500, .per_row = 2, .uplo = uplo, .dense_row = true})}) {
            const auto n = T_ref.rows();
            const auto b = loom::test::random_dense<double>(ref, {n, 2});
            const matrix::Csr<double, loom::int32> T(cuda, T_ref);
            for (const auto diag : {Diag::non_unit, Diag::unit}) {
                for (const auto op : {Op::none, Op::transpose}) {
                    const SptrsvOptions options{SptrsvAlgorithm::supernodal, uplo, diag, op};
                    matrix::Dense<double> expected(ref, {n, 2});
                    sparse::sptrsv(T_ref, b, expected, {SptrsvAlgorithm::level_set, uplo, diag, op});
                    matrix::Dense<double> x(cuda, {n, 2});
                    sparse::sptrsv(T, matrix::Dense<double>(cuda, b), x, options);
                    SCOPED_TRACE(describe(options));
                    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-10);
                }
            }
        }
    }
}

/// T with its last row (lower) or first (upper) holding every 7th column too: a row far
/// longer than a group's lanes.
matrix::Csr<double, loom::int32> with_long_row(const matrix::Csr<double, loom::int32>& T, Uplo uplo)
{
    const auto n = T.rows();
    auto ptrs = T.row_ptrs().to_host();
    auto cols = T.col_idxs().to_host();
    auto values = T.values().to_host();
    const size_type row = uplo == Uplo::lower ? n - 1 : 0;
    std::vector<loom::int32> extra;
    for (size_type c = uplo == Uplo::lower ? 0 : 7; c < n - 1; c += 7) extra.push_back(static_cast<loom::int32>(c));
    const auto at = ptrs[row + 1];
    cols.insert(cols.begin() + at, extra.begin(), extra.end());
    values.insert(values.begin() + at, extra.size(), 1e-3);
    for (auto r = row + 1; r <= n; ++r) ptrs[r] += static_cast<loom::int32>(extra.size());
    return matrix::Csr<double, loom::int32>::from_host(T.executor(), T.size(), ptrs, cols, values);
}

TEST(SptrsvCuda, FatLevelsRunInOnePersistentLaunch)
{
    // 7-point 64^3 with a long row: ~190 levels, most wider than a chained block: one
    // persistent launch with a grid barrier per level beats a launch per level (sptrsv.cpp's
    // cost model).
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const auto A = matrix::poisson3d<double, loom::int32>(ref, 64, 7);
    const auto n = A.rows();
    const auto b = loom::test::random_dense<double>(ref, {n, 2});
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        const auto T_ref = with_long_row(sparse::triangle(A, uplo), uplo);
        const matrix::Csr<double, loom::int32> T(cuda, T_ref);
        for (const auto op : {Op::none, Op::transpose}) {
            const auto diag = op == Op::none ? Diag::non_unit : Diag::unit;
            const SptrsvOptions options{SptrsvAlgorithm::level_set, uplo, diag, op};
            matrix::Dense<double> expected(ref, {n, 2});
            sparse::sptrsv(T_ref, b, expected, options);
            sparse::SptrsvHandle<double, loom::int32> handle(options);
            sparse::sptrsv_symbolic(handle, T);
            EXPECT_EQ(handle.stages(), 1);
            matrix::Dense<double> x(cuda, {n, 2});
            sparse::sptrsv_solve(handle, T, matrix::Dense<double>(cuda, b), x);
            SCOPED_TRACE(describe(options));
            LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-11);
            // New values (T doubled): the numeric phase refreshes what the solve keeps.
            auto doubled = T_ref;
            auto values = T_ref.values().to_host();
            for (auto& v : values) v *= 2;
            doubled.values() = loom::Array<double>(ref, values);
            sparse::sptrsv(doubled, b, expected, options);
            sparse::sptrsv_numeric(handle, matrix::Csr<double, loom::int32>(cuda, doubled));
            sparse::sptrsv_solve(handle, matrix::Csr<double, loom::int32>(cuda, doubled),
                                 matrix::Dense<double>(cuda, b), x);
            LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-11);
        }
    }
}

TEST(SptrsvCuda, PersistentLevelSetIsBitIdenticalToSyncFree)
{
    // 7-point 48^3 triangles: short rows, fat levels, so the level set runs persistent on the
    // level-ordered copy, which sync-free solves too, row by row with the same arithmetic:
    // the same bits. Three right-hand sides; new values refresh the copy.
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const auto A = matrix::poisson3d<double, loom::int32>(ref, 48, 7);
    const auto n = A.rows();
    const auto b = loom::test::random_dense<double>(ref, {n, 3});
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        auto T_ref = sparse::triangle(A, uplo);
        for (const auto op : {Op::none, Op::transpose}) {
            for (const auto diag : {Diag::non_unit, Diag::unit}) {
                if (diag == Diag::unit && op == Op::none) continue;  // x would grow like 3^levels
                SptrsvOptions options{SptrsvAlgorithm::level_set, uplo, diag, op};
                SCOPED_TRACE(describe(options));
                const matrix::Csr<double, loom::int32> T(cuda, T_ref);
                sparse::SptrsvHandle<double, loom::int32> persistent(options);
                sparse::sptrsv_symbolic(persistent, T);
                EXPECT_EQ(persistent.stages(), 1);
                options.algorithm = SptrsvAlgorithm::sync_free;
                sparse::SptrsvHandle<double, loom::int32> one_by_one(options);
                sparse::sptrsv_symbolic(one_by_one, T);
                options.algorithm = SptrsvAlgorithm::level_set;
                for (const double scale : {1.0, -2.5}) {
                    auto values = T_ref.values().to_host();
                    for (auto& v : values) v *= scale;
                    auto scaled = T_ref;
                    scaled.values() = loom::Array<double>(ref, values);
                    const matrix::Csr<double, loom::int32> S(cuda, scaled);
                    sparse::sptrsv_numeric(persistent, S);
                    sparse::sptrsv_numeric(one_by_one, S);
                    matrix::Dense<double> x(cuda, {n, 3});
                    matrix::Dense<double> y(cuda, {n, 3});
                    sparse::sptrsv_solve(persistent, S, matrix::Dense<double>(cuda, b), x);
                    sparse::sptrsv_solve(one_by_one, S, matrix::Dense<double>(cuda, b), y);
                    matrix::Dense<double> expected(ref, {n, 3});
                    sparse::sptrsv(scaled, b, expected, options);
                    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-11);
                    EXPECT_EQ(x.to_host(), y.to_host());
                }
            }
        }
    }
}

TEST(SptrsvCuda, SmallFactorsRunInOneBlock)
{
    // Factors whose copy and x fit one block's shared memory run in one launch of one block
    // (cuda.cu): 3 levels of 2000 rows (else 3 launches), thin levels, empty rows (unit),
    // a dense row, unsorted rows with duplicates, 31 / 32 / 33 rows, long rows (a warp per
    // row); lower and upper, op none and transpose, two right-hand sides, new values.
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const auto fat = block_bidiagonal<double, loom::int32>(ref, 2000, 3);
    {
        sparse::SptrsvHandle<double, loom::int32> handle({.algorithm = SptrsvAlgorithm::level_set});
        sparse::sptrsv_symbolic(handle, matrix::Csr<double, loom::int32>(cuda, fat));
        EXPECT_EQ(handle.stages(), 1);
    }
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        std::vector<std::pair<std::string, matrix::Csr<double, loom::int32>>> cases;
        if (uplo == Uplo::lower) {
            cases.emplace_back("3 fat levels", fat);
            // 4 levels of 1100 rows: persistent by the model (fat levels), one block cheaper
            // still (the analysis builds the copy for either).
            cases.emplace_back("4 fat levels", block_bidiagonal<double, loom::int32>(ref, 1100, 4));
        }
        cases.emplace_back("thin", random_triangular<double, loom::int32>(ref, {.n = 3000, .per_row = 1.5, .uplo = uplo}));
        cases.emplace_back("empty rows", random_triangular<double, loom::int32>(
                                             ref, {.n = 500, .per_row = 0.5, .uplo = uplo, .diagonal = false}));
        cases.emplace_back("dense row", random_triangular<double, loom::int32>(
                                            ref, {.n = 700, .per_row = 2, .uplo = uplo, .dense_row = true}));
        cases.emplace_back("unsorted with duplicates",
                           random_triangular<double, loom::int32>(
                               ref, {.n = 2000, .per_row = 3, .uplo = uplo, .sorted = false, .duplicates = true}));
        cases.emplace_back("long rows", random_triangular<double, loom::int32>(ref, {.n = 600, .per_row = 20, .uplo = uplo}));
        for (const size_type n : {1, 31, 32, 33}) {
            cases.emplace_back(std::to_string(n) + " rows",
                               random_triangular<double, loom::int32>(ref, {.n = n, .per_row = 3, .uplo = uplo}));
        }
        for (const auto& [what, T_ref] : cases) {
            const auto n = T_ref.rows();
            const auto b = loom::test::random_dense<double>(ref, {n, 2});
            const bool stored = what != "empty rows";
            for (const auto op : {Op::none, Op::transpose}) {
                const SptrsvOptions options{SptrsvAlgorithm::automatic, uplo,
                                            stored ? Diag::non_unit : Diag::unit, op};
                SCOPED_TRACE(what + ", " + describe(options));
                sparse::SptrsvHandle<double, loom::int32> handle(options);
                sparse::sptrsv_symbolic(handle, matrix::Csr<double, loom::int32>(cuda, T_ref));
                EXPECT_EQ(handle.algorithm(), SptrsvAlgorithm::level_set);
                EXPECT_EQ(handle.stages(), 1);
                for (const double scale : {1.0, 0.5}) {
                    auto scaled = T_ref;
                    auto v = T_ref.values().to_host();
                    for (auto& e : v) e *= scale;
                    scaled.values() = loom::Array<double>(ref, v);
                    const matrix::Csr<double, loom::int32> T(cuda, scaled);
                    sparse::sptrsv_numeric(handle, T);
                    matrix::Dense<double> expected(ref, {n, 2});
                    auto reference_options = options;
                    reference_options.algorithm = SptrsvAlgorithm::level_set;
                    sparse::sptrsv(scaled, b, expected, reference_options);
                    matrix::Dense<double> x(cuda, {n, 2});
                    sparse::sptrsv_solve(handle, T, matrix::Dense<double>(cuda, b), x);
                    LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-11);
                }
            }
        }
    }
}

TEST(SptrsvCuda, LevelSetOnARandomDependencyGraphMatchesTheReference)
{
    // 200000 rows whose entries lie anywhere left of (lower) or right of (upper) the diagonal
    // and a dense row: ~70 levels, 33 of them fat, whose rows read rows of any earlier level
    // anywhere in x (no banded structure). Two right-hand sides.
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        const auto T_ref = random_triangular<double, loom::int32>(
            ref, {.n = 200000, .per_row = 3, .uplo = uplo, .dense_row = true});
        const auto n = T_ref.rows();
        const auto b = loom::test::random_dense<double>(ref, {n, 2});
        const matrix::Csr<double, loom::int32> T(cuda, T_ref);
        for (const auto op : {Op::none, Op::transpose}) {
            const SptrsvOptions options{SptrsvAlgorithm::level_set, uplo, Diag::non_unit, op};
            matrix::Dense<double> expected(ref, {n, 2});
            sparse::sptrsv(T_ref, b, expected, options);
            matrix::Dense<double> x(cuda, {n, 2});
            sparse::sptrsv(T, matrix::Dense<double>(cuda, b), x, options);
            SCOPED_TRACE(describe(options));
            LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-10);
        }
    }
}

TEST(SptrsvCuda, LevelsWiderThanTheResidentGroupsAreSolvedWhole)
{
    // Block lower bidiagonal: 3 levels of 100000 rows, more than the groups of all resident
    // blocks of the persistent level set (8 blocks of 64 groups on each of an H200's 132 SMs).
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const size_type w = 100000;
    const auto T_ref = block_bidiagonal<double, loom::int32>(ref, w, 3);
    const auto b = loom::test::random_dense<double>(ref, {3 * w, 1});
    matrix::Dense<double> expected(ref, {3 * w, 1});
    sparse::sptrsv(T_ref, b, expected, {SptrsvAlgorithm::level_set});
    for (const auto algorithm : {SptrsvAlgorithm::level_set, SptrsvAlgorithm::sync_free}) {
        const matrix::Csr<double, loom::int32> T(cuda, T_ref);
        sparse::SptrsvHandle<double, loom::int32> handle({.algorithm = algorithm});
        sparse::sptrsv_symbolic(handle, T);
        EXPECT_EQ(handle.stages(), 1);
        matrix::Dense<double> x(cuda, {3 * w, 1});
        sparse::sptrsv_solve(handle, T, matrix::Dense<double>(cuda, b), x);
        LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-14);
    }
}

TEST(SptrsvCuda, SyncFreeFinishesOnNotANumber)
{
    // x is its own ready flag (a signalling NaN until solved): NaNs in b, even that very bit
    // pattern, must come out as NaNs, not leave a row looking unsolved forever.
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const auto T_ref = random_triangular<double, loom::int32>(ref, {.n = 3000, .per_row = 3});
    std::vector<double> b_host(3000, 1.0);
    const auto not_ready = std::bit_cast<double>(0x7ff0dead5eedf00dull);
    for (std::size_t i = 0; i < b_host.size(); i += 7) {
        b_host[i] = i % 2 == 0 ? not_ready : std::numeric_limits<double>::quiet_NaN();
    }
    for (const auto diag : {Diag::non_unit, Diag::unit}) {
        const matrix::Csr<double, loom::int32> T(cuda, T_ref);
        const auto b = matrix::Dense<double>::from_host(cuda, {3000, 1}, b_host);
        matrix::Dense<double> x(cuda, {3000, 1});
        sparse::sptrsv(T, b, x, {.algorithm = SptrsvAlgorithm::sync_free, .diag = diag});
        matrix::Dense<double> expected(ref, {3000, 1});
        sparse::sptrsv(T_ref, matrix::Dense<double>(ref, b), expected, {.diag = diag});
        const auto got = x.to_host();
        const auto want = expected.to_host();
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(std::isnan(got[i]), std::isnan(want[i])) << "row " << i;
            if (!std::isnan(want[i])) EXPECT_NEAR(got[i], want[i], 1e-10 * (1 + std::abs(want[i])));
        }
    }
}

TEST(SptrsvCuda, VendorMatchesTheReference)
{
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    for (const auto uplo : {Uplo::lower, Uplo::upper}) {
        for (const auto op : {Op::none, Op::transpose}) {
            for (const auto diag : {Diag::non_unit, Diag::unit}) {
                auto T_ref = random_triangular<double, loom::int32>(
                    ref, {.n = 2000, .per_row = 5, .uplo = uplo, .seed = 11});
                sparse::sort_columns(T_ref);  // cuSPARSE needs sorted rows
                const SptrsvOptions options{SptrsvAlgorithm::vendor, uplo, diag, op};
                const auto b = loom::test::random_dense<double>(ref, {2000, 1});
                matrix::Dense<double> expected(ref, {2000, 1});
                sparse::sptrsv(T_ref, b, expected, {SptrsvAlgorithm::level_set, uplo, diag, op});
                auto T = matrix::Csr<double, loom::int32>(cuda, T_ref);
                sparse::SptrsvHandle<double, loom::int32> handle(options);
                sparse::sptrsv_symbolic(handle, T);
                matrix::Dense<double> x(cuda, {2000, 1});
                sparse::sptrsv_solve(handle, T, matrix::Dense<double>(cuda, b), x);
                LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected.to_host(), 1e-12);
                // New values through cusparseSpSV_updateMatrix.
                auto values = T.values().to_host();
                for (auto& v : values) v *= 2;
                T.values() = loom::Array<double>(cuda, values);
                sparse::sptrsv_numeric(handle, T);
                sparse::sptrsv_solve(handle, T, matrix::Dense<double>(cuda, b), x);
                auto halved = x.to_host();
                for (auto& v : halved) v *= diag == Diag::unit ? 1 : 2;
                if (diag == Diag::non_unit) {
                    LOOM_EXPECT_NEAR_VECTORS(halved, expected.to_host(), 1e-12);
                }
            }
        }
    }
}

}  // namespace
