// Batched sparse containers and SpMV: shared-pattern (CSR, ELL) and heterogeneous batches on
// every executor against the loop of single-matrix reference SpMVs, every kernel and format,
// batches of 0, 1 and 100 000 matrices, the team-level routine in a user's kernel, Matrix
// Market batches, and bad input naming the batch entry.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>

#include "batched/batch_sparse_support.hpp"
#include "loom/base/error.hpp"
#include "loom/batched/sparse/spmv.hpp"
#include "loom/batched/sparse/team_spmv.hpp"
#include "loom/launch/team.hpp"
#include "support/types.hpp"

namespace {

using loom::dim2;
using loom::size_type;
namespace matrix = loom::matrix;
namespace batched = loom::batched;
using namespace loom::test::bsparse;

template <typename VI>
class BatchSparseSpmv : public ::testing::Test {};
TYPED_TEST_SUITE(BatchSparseSpmv, loom::test::ValueIndexTypes);

template <typename V>
double tol()
{
    return std::max(1e-10, loom::test::tolerance<V>());
}

/// A shared-pattern batch of count random value sets on the pattern of a random matrix.
template <typename V, typename I>
matrix::BatchCsr<V, I> random_batch(std::shared_ptr<const loom::Executor> exec, size_type count,
                                    const loom::test::PatternSpec& spec)
{
    const auto A = loom::test::random_csr<V, I>(loom::test::reference(), spec);
    return matrix::BatchCsr<V, I>::with_values(
        exec, A, count, loom::Array<V>(exec, random_values<V>(count * A.nnz(), spec.seed + 99)));
}

/// Runs the shared-pattern SpMV of format Batch on every executor and holds each y_b to the
/// reference SpMV of matrix b; beta = 0 with y full of NaN checks y is not read.
template <typename V, typename I, typename MakeBatch>
void check_shared(size_type count, const loom::test::PatternSpec& spec, MakeBatch make)
{
    const auto ref = loom::test::reference();
    const auto host = random_batch<V, I>(ref, count, spec);
    const auto xs = random_values<V>(count * spec.cols, 5);
    for (const V beta : {V(-0.5), V(0)}) {
        const auto ys = beta == V(0) ? std::vector<V>(count * spec.rows,
                                                      V(std::numeric_limits<double>::quiet_NaN()))
                                     : random_values<V>(count * spec.rows, 6);
        for (const auto& exec : all_executors()) {
            const auto A = make(matrix::BatchCsr<V, I>(exec, count, host.size(),
                                                       loom::Array<I>(exec, host.row_ptrs()),
                                                       loom::Array<I>(exec, host.col_idxs()),
                                                       loom::Array<V>(exec, host.values())));
            const auto x = matrix::BatchDense<V>::from_host(exec, count, {spec.cols, 1}, xs);
            auto y = matrix::BatchDense<V>::from_host(exec, count, {spec.rows, 1}, ys);
            batched::spmv(V(2), A, x, beta, y);
            const auto got = y.to_host();
            for (size_type b = 0; b < count; ++b) {
                const std::vector<V> xb(xs.begin() + b * spec.cols, xs.begin() + (b + 1) * spec.cols);
                const std::vector<V> yb(ys.begin() + b * spec.rows, ys.begin() + (b + 1) * spec.rows);
                const auto want = reference_spmv(host.item(b), V(2), xb, beta, yb);
                const std::vector<V> gotb(got.begin() + b * spec.rows, got.begin() + (b + 1) * spec.rows);
                ASSERT_LE(loom::test::relative_error(gotb, want), tol<V>())
                    << exec->name() << " batch entry " << b << " of " << count;
            }
        }
    }
}

TYPED_TEST(BatchSparseSpmv, SharedPatternCsrAndEllMatchTheReferenceLoop)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    std::uint64_t seed = 1;
    for (const size_type count : {0, 1, 9}) {
        for (const size_type n : {0, 1, 33, 100}) {
            const loom::test::PatternSpec spec{n, n, 5, n > 1, true, false, seed++};
            check_shared<V, I>(count, spec, [](auto A) { return A; });
            check_shared<V, I>(count, spec, [](auto A) { return matrix::BatchEll<V, I>(A); });
        }
    }
    // A rectangle with empty rows and a dense one.
    check_shared<V, I>(4, {40, 70, 0.5, true, true, false, 77}, [](auto A) { return A; });
}

// The sizes the CUDA shared-pattern kernel treats apart: 512 rows (a matrix per pass, two
// rows per thread) and 64 rows (four matrices per pass; 37 leaves a partial last pass).
TEST(BatchSparseSpmvSizes, SharedPatternCsrOfBenchmarkSizes)
{
    check_shared<double, loom::int32>(3, {512, 512, 7, false, true, false, 3}, [](auto A) { return A; });
    check_shared<double, loom::int32>(37, {64, 64, 7, true, true, false, 4}, [](auto A) { return A; });
}

TYPED_TEST(BatchSparseSpmv, HundredThousandTinyMatrices)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    constexpr size_type count = 100000;
    // [[2, 1], [0, 3]] scaled by (b % 7 + 1): y_b = (b % 7 + 1) * (2 x0 + x1, 3 x1).
    const auto exec = loom::test::backends().front();
    std::vector<V> values;
    for (size_type b = 0; b < count; ++b) {
        const V s = V(b % 7 + 1);
        values.insert(values.end(), {V(2) * s, s, V(3) * s});
    }
    const auto pattern = matrix::Csr<V, I>::from_host(exec, {2, 2}, {0, 2, 3}, {0, 1, 1},
                                                      {V(2), V(1), V(3)});
    const auto A = matrix::BatchCsr<V, I>::with_values(exec, pattern, count, loom::Array<V>(exec, values));
    matrix::BatchDense<V> x(exec, count, {2, 1});
    x.fill(V(1));
    matrix::BatchDense<V> y(exec, count, {2, 1});
    batched::spmv(V(1), A, x, V(0), y);
    const auto got = y.to_host();
    for (size_type b = 0; b < count; ++b) {
        const V s = V(b % 7 + 1);
        ASSERT_EQ(got[2 * b], V(3) * s) << b;
        ASSERT_EQ(got[2 * b + 1], V(3) * s) << b;
    }
}

constexpr batched::SpmvKernel all_kernels[] = {
    batched::SpmvKernel::automatic, batched::SpmvKernel::csr_scalar,
    batched::SpmvKernel::csr_vector, batched::SpmvKernel::csr_smart, batched::SpmvKernel::csr_i,
    batched::SpmvKernel::coo, batched::SpmvKernel::ell, batched::SpmvKernel::hybrid};

constexpr matrix::BatchFormat all_formats[] = {matrix::BatchFormat::csr, matrix::BatchFormat::coo,
                                               matrix::BatchFormat::ell,
                                               matrix::BatchFormat::hybrid};

TYPED_TEST(BatchSparseSpmv, HeterogeneousEveryKernelAndFormat)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    const auto list = mixed_matrices<V, I>(ref);
    // Every format alone, and all of them mixed in one batch.
    std::vector<std::vector<matrix::BatchFormat>> format_sets;
    for (auto f : all_formats) format_sets.push_back({f});
    std::vector<matrix::BatchFormat> mixed;
    for (std::size_t b = 0; b < list.size(); ++b) mixed.push_back(all_formats[b % 4]);
    format_sets.push_back(mixed);
    for (const auto& exec : all_executors()) {
        for (const auto& formats : format_sets) {
            const matrix::HeteroBatch<V, I> A(exec, list, formats);
            const auto xs = random_values<V>(A.total_cols(), 3);
            const auto ys = random_values<V>(A.total_rows(), 4);
            for (std::size_t b = 0; b < list.size(); ++b) {
                // The batch hands back what it was given.
                const auto item = A.item(b);
                ASSERT_EQ(item.nnz(), list[b].nnz()) << b;
            }
            for (const auto kernel : all_kernels) {
                const loom::Array<V> x(exec, xs);
                loom::Array<V> y(exec, ys);
                batched::BatchSpmvHandle handle({kernel});
                batched::spmv(handle, V(-1.5), A, x, V(0.5), y);
                const auto got = y.to_host();
                const auto kernels = handle.kernels();
                for (size_type b = 0; b < A.batch_count(); ++b) {
                    const auto& L = A.layout(b);
                    if (L.format == matrix::BatchFormat::csr && kernel != batched::SpmvKernel::automatic &&
                        kernel <= batched::SpmvKernel::csr_i) {
                        ASSERT_EQ(kernels[b], kernel);
                    }
                    const std::vector<V> xb(xs.begin() + L.x_offset, xs.begin() + L.x_offset + L.cols);
                    const std::vector<V> yb(ys.begin() + L.y_offset, ys.begin() + L.y_offset + L.rows);
                    const auto want = reference_spmv(list[b], V(-1.5), xb, V(0.5), yb);
                    const std::vector<V> gotb(got.begin() + L.y_offset, got.begin() + L.y_offset + L.rows);
                    ASSERT_LE(loom::test::relative_error(gotb, want), tol<V>())
                        << exec->name() << " " << names_of(kernel).to_string(kernel)
                        << " batch entry " << b << " ("
                        << names_of(L.format).to_string(L.format) << ")";
                }
                // The handle's analysis is reused for a second product.
                batched::spmv(handle, V(1), A, x, V(0), y);
            }
        }
    }
}

TYPED_TEST(BatchSparseSpmv, AutomaticPicksCsrIForAVeryLongRow)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    std::vector<matrix::Csr<V, I>> list;
    list.push_back(loom::test::random_csr<V, I>(ref, {200, 2000, 2, true, true, false, 5}));
    list.push_back(loom::test::random_csr<V, I>(ref, {200, 200, 4, false, true, false, 6}));
    const matrix::HeteroBatch<V, I> A(ref, list);
    batched::BatchSpmvHandle handle;
    batched::spmv_analyze(handle, A);
    EXPECT_EQ(handle.kernels()[0], batched::SpmvKernel::csr_i);
    EXPECT_EQ(handle.kernels()[1], batched::SpmvKernel::csr_smart);
}

TYPED_TEST(BatchSparseSpmv, EmptyHeterogeneousBatch)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    for (const auto& exec : all_executors()) {
        const matrix::HeteroBatch<V, I> A(exec, {});
        loom::Array<V> x(exec, 0), y(exec, 0);
        batched::spmv(V(1), A, x, V(0), y);
        EXPECT_EQ(A.batch_count(), 0);
    }
}

/// A user's kernel calling the team-level routine in each mode.
template <typename ModeT, typename T, typename I>
struct UserSpmv {
    batched::CsrView<T, I> pattern;
    size_type nnz;
    const T* values;
    const T* x;
    T* y;

    template <typename Member>
    void operator()(const Member& member) const
    {
        const size_type b = member.league_rank();
        auto A = pattern;
        A.values = values + b * nnz;
        const batched::VectorView<const T> xb(x + b * A.cols(), A.cols());
        const batched::VectorView<T> yb(y + b * A.rows(), A.rows());
        if constexpr (std::is_same_v<ModeT, batched::Mode::Serial>) {
            batched::Spmv<ModeT>::invoke(T(1), A, xb, T(0), yb);
        } else {
            batched::Spmv<ModeT>::invoke(member, T(1), A, xb, T(0), yb);
        }
    }
};

template <typename ModeT, typename V, typename I>
void check_team_level()
{
    const auto exec = loom::test::backends().front();
    constexpr size_type count = 5;
    const auto A = random_batch<V, I>(exec, count, {50, 50, 6, true, true, false, 8});
    const auto xs = random_values<V>(count * 50, 9);
    const loom::Array<V> x(exec, xs);
    loom::Array<V> y(exec, count * 50);
    const batched::CsrView<V, I> pattern{50, 50, A.row_ptrs().data(), A.col_idxs().data(), nullptr};
    loom::launch::team_parallel_for(
        *exec, {count, 1, 1},
        UserSpmv<ModeT, V, I>{pattern, A.nnz(), A.values().data(), x.data(), y.data()});
    const auto got = y.to_host();
    for (size_type b = 0; b < count; ++b) {
        const auto want = reference_spmv(A.item(b), V(1),
                                         std::vector<V>(xs.begin() + b * 50, xs.begin() + (b + 1) * 50),
                                         V(0), std::vector<V>(50));
        ASSERT_LE(loom::test::relative_error(std::vector<V>(got.begin() + b * 50, got.begin() + (b + 1) * 50), want),
                  tol<V>());
    }
}

TYPED_TEST(BatchSparseSpmv, TeamLevelRoutineInAUserKernel)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    check_team_level<batched::Mode::Serial, V, I>();
    check_team_level<batched::Mode::Team, V, I>();
    check_team_level<batched::Mode::TeamVector, V, I>();
}

TYPED_TEST(BatchSparseSpmv, ContainersRoundTrip)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    const auto A = random_batch<V, I>(ref, 3, {20, 20, 3, true, true, false, 12});
    std::vector<matrix::Csr<V, I>> items{A.item(0), A.item(1), A.item(2)};
    const auto B = matrix::BatchCsr<V, I>::from_list(ref, items);
    EXPECT_EQ(B.values().to_host(), A.values().to_host());
    const auto R = matrix::BatchCsr<V, I>::replicate(ref, items[1], 4);
    EXPECT_EQ(R.batch_count(), 4);
    EXPECT_EQ(R.item(3).values().to_host(), items[1].values().to_host());
    const auto E = matrix::BatchEll<V, I>(A);
    EXPECT_EQ(E.width(), 20);  // the dense row
}

TYPED_TEST(BatchSparseSpmv, MatrixMarketFolderAndListFile)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    const auto list = mixed_matrices<V, I>(ref);
    std::vector<std::string> names;
    for (std::size_t b = 0; b < list.size(); ++b) names.push_back("m" + std::to_string(10 + b));
    const auto folder = std::filesystem::temp_directory_path() /
                        ("loom_batch_io_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                         "_" + typeid(TypeParam).name());
    std::filesystem::remove_all(folder);
    matrix::write_batch(folder.string(), list, names);
    std::vector<std::string> read_names;
    const auto back = matrix::read_batch<V, I>(ref, folder.string(), &read_names);
    ASSERT_EQ(read_names, names);
    for (std::size_t b = 0; b < list.size(); ++b) {
        EXPECT_EQ(back[b].size(), list[b].size()) << b;
        EXPECT_EQ(back[b].nnz(), list[b].nnz()) << b;
    }
    {
        std::ofstream out(folder / "list.txt");
        out << "# two of them\n" << names[3] << ".mtx\n\n" << names[1] << ".mtx\n";
    }
    const auto two = matrix::read_batch<V, I>(ref, (folder / "list.txt").string(), &read_names);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(read_names[0], names[3]);
    {
        std::ofstream out(folder / "bad.txt");
        out << names[0] << ".mtx\nmissing.mtx\n";
    }
    try {
        matrix::read_batch<V, I>(ref, (folder / "bad.txt").string());
        FAIL() << "no error for a missing file";
    } catch (const loom::IoError& error) {
        EXPECT_NE(std::string(error.what()).find("bad.txt:2"), std::string::npos) << error.what();
    }
    std::filesystem::remove_all(folder);
}

TYPED_TEST(BatchSparseSpmv, BadInputNamesTheBatchEntry)
{
    using V = typename TypeParam::value_type;
    using I = typename TypeParam::index_type;
    const auto ref = loom::test::reference();
    // Mismatched batch sizes.
    const auto A = random_batch<V, I>(ref, 3, {10, 10, 3, false, true, false, 2});
    const auto x = matrix::BatchDense<V>::from_host(ref, 2, {10, 1}, std::vector<V>(20, V(1)));
    auto y = matrix::BatchDense<V>::from_host(ref, 3, {10, 1}, std::vector<V>(30, V(7)));
    EXPECT_THROW(batched::spmv(V(1), A, x, V(0), y), loom::DimensionMismatch);
    EXPECT_EQ(y.to_host(), std::vector<V>(30, V(7)));
    // A pooled vector too short for one entry: the message names it.
    const auto list = mixed_matrices<V, I>(ref);
    const matrix::HeteroBatch<V, I> H(ref, list);
    const loom::Array<V> short_x(ref, std::vector<V>(static_cast<std::size_t>(H.total_cols() - 1), V(1)));
    loom::Array<V> hy(ref, std::vector<V>(static_cast<std::size_t>(H.total_rows()), V(7)));
    try {
        batched::spmv(V(1), H, short_x, V(0), hy);
        FAIL() << "no error for a short x";
    } catch (const loom::DimensionMismatch& error) {
        EXPECT_NE(std::string(error.what()).find("batch entry 9"), std::string::npos) << error.what();
    }
    EXPECT_EQ(hy.to_host(), std::vector<V>(static_cast<std::size_t>(H.total_rows()), V(7)));
    // A list whose entry 2 has another pattern.
    std::vector<matrix::Csr<V, I>> items{A.item(0), A.item(1),
                                         loom::test::random_csr<V, I>(ref, {10, 10, 3, false, true, false, 3})};
    try {
        matrix::BatchCsr<V, I>::from_list(ref, items);
        FAIL() << "no error for a different pattern";
    } catch (const loom::BadInput& error) {
        EXPECT_NE(std::string(error.what()).find("batch entry 2"), std::string::npos) << error.what();
    }
    // A format list of the wrong length; a handle analysed for another batch.
    const std::vector<matrix::BatchFormat> two_formats{matrix::BatchFormat::csr, matrix::BatchFormat::ell};
    EXPECT_THROW((matrix::HeteroBatch<V, I>(ref, list, two_formats)), loom::BadInput);
    const matrix::HeteroBatch<V, I> other(ref, list);
    batched::BatchSpmvHandle handle;
    batched::spmv_analyze(handle, other);
    const loom::Array<V> hx(ref, std::vector<V>(static_cast<std::size_t>(H.total_cols()), V(1)));
    EXPECT_THROW(batched::spmv(handle, V(1), H, hx, V(0), hy), loom::BadInput);
    EXPECT_THROW(handle.kernels().at(99), std::out_of_range);
}

}  // namespace
