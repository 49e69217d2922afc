#include <algorithm>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/io.hpp"
#include "support/csr_checks.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {

using matrix::MtxField;
using matrix::MtxFormat;
using matrix::MtxSymmetry;

/// Value and index types every build instantiates.
using Value = std::tuple_element_t<0, test::value_tuple>;
using Index = std::tuple_element_t<0, test::index_tuple>;

/// A file in the temporary folder, removed when the test ends.
class TempFile {
public:
    explicit TempFile(const std::string& suffix = ".mtx")
    {
        static int counter = 0;
        path_ = (std::filesystem::temp_directory_path() /
                 ("loom_io_test_" + std::to_string(::getpid()) + "_" +
                  std::to_string(counter++) + suffix))
                    .string();
    }
    ~TempFile() { std::filesystem::remove(path_); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }
    std::string read() const
    {
        std::ifstream in(path_, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), {}};
    }
    void write(const std::string& text) const
    {
        std::ofstream(path_, std::ios::binary) << text;
    }

private:
    std::string path_;
};

/// Rows sorted by column, duplicates in their stored order: what read_csr gives back.
template <typename V, typename I>
HostCsr<V, I> with_sorted_rows(HostCsr<V, I> A)
{
    for (size_type r = 0; r < A.size.rows; ++r) {
        std::vector<std::pair<I, V>> row;
        for (auto k = A.ptrs[r]; k < A.ptrs[r + 1]; ++k) row.emplace_back(A.cols[k], A.values[k]);
        std::stable_sort(row.begin(), row.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto k = A.ptrs[r]; k < A.ptrs[r + 1]; ++k) {
            A.cols[k] = row[k - A.ptrs[r]].first;
            A.values[k] = row[k - A.ptrs[r]].second;
        }
    }
    return A;
}

template <typename V>
V mirror(const V& v, MtxSymmetry symmetry)
{
    if (symmetry == MtxSymmetry::skew_symmetric) return -v;
    if (symmetry == MtxSymmetry::hermitian) return loom::conj(v);
    return v;
}

/// A random n x n matrix with the given symmetry, no duplicates, rows sorted.
template <typename V, typename I>
matrix::Csr<V, I> random_with_symmetry(size_type n, MtxSymmetry symmetry, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::map<std::pair<size_type, size_type>, V> entries;
    for (size_type k = 0; k < 3 * n; ++k) {
        const auto r = static_cast<size_type>(rng() % n), c = static_cast<size_type>(rng() % n);
        auto v = test::random_value<V>(rng);
        if (r == c) {
            if (symmetry == MtxSymmetry::skew_symmetric) continue;
            if (symmetry == MtxSymmetry::hermitian) v = V(std::real(v));
        }
        entries[{r, c}] = v;
        entries[{c, r}] = r == c ? v : mirror(v, symmetry);
    }
    std::vector<I> ptrs(n + 1, 0), cols;
    std::vector<V> values;
    for (const auto& [pos, v] : entries) {
        ++ptrs[pos.first + 1];
        cols.push_back(static_cast<I>(pos.second));
        values.push_back(v);
    }
    std::partial_sum(ptrs.begin(), ptrs.end(), ptrs.begin());
    return matrix::Csr<V, I>::from_host(test::reference(), {n, n}, ptrs, cols, values);
}

/// Runs f, expecting BadInput whose message contains every one of `parts`.
template <typename F>
void expect_bad_input(F&& f, const std::vector<std::string>& parts)
{
    try {
        f();
        ADD_FAILURE() << "no BadInput; expected a message with '" << parts.front() << "'";
    } catch (const BadInput& e) {
        for (const auto& part : parts) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
                << "message: " << e.what() << "\nmissing: " << part;
        }
    }
}

/// read_csr of `text` must fail naming "<stream>:line" and `what`.
void expect_malformed(const std::string& text, int line, const std::string& what)
{
    SCOPED_TRACE(text);
    expect_bad_input(
        [&] {
            std::istringstream in(text);
            matrix::read_csr<Value, Index>(test::reference(), in);
        },
        {"<stream>:" + std::to_string(line) + ":", what});
}

template <typename V, typename I>
matrix::Csr<V, I> read_text(const std::string& text)
{
    std::istringstream in(text);
    return matrix::read_csr<V, I>(test::reference(), in);
}

// ------------------------------------------------------------------------ header

TEST(MtxHeader, ReadsBannerAndSizeLine)
{
    std::istringstream in(
        "%%MatrixMarket matrix coordinate Integer Skew-Symmetric\n% a comment\n\n  4 4 3 \n");
    const auto h = matrix::read_mtx_header(in);
    EXPECT_EQ(h.format, MtxFormat::coordinate);
    EXPECT_EQ(h.field, MtxField::integer);
    EXPECT_EQ(h.symmetry, MtxSymmetry::skew_symmetric);
    EXPECT_EQ(h.rows, 4);
    EXPECT_EQ(h.cols, 4);
    EXPECT_EQ(h.entries, 3);
}

TEST(MtxHeader, CountsTheStoredValuesOfArrayFiles)
{
    std::istringstream general("%%MatrixMarket matrix array real general\n3 2\n");
    EXPECT_EQ(matrix::read_mtx_header(general).entries, 6);
    std::istringstream symmetric("%%MatrixMarket matrix array complex hermitian\n4 4\n");
    EXPECT_EQ(matrix::read_mtx_header(symmetric).entries, 10);
    std::istringstream skew("%%MatrixMarket matrix array real skew-symmetric\n4 4\n");
    EXPECT_EQ(matrix::read_mtx_header(skew).entries, 6);
}

TEST(MtxHeader, ReadsASharedFile)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    const auto h = matrix::read_mtx_header(test::shared_matrix_path("bcsstk01"));
    EXPECT_EQ(h.field, MtxField::real);
    EXPECT_EQ(h.symmetry, MtxSymmetry::symmetric);
    EXPECT_EQ(h.rows, 48);
    EXPECT_EQ(h.entries, 224);
}

TEST(MtxHeader, MissingFileIsIoErrorNamingThePath)
{
    try {
        matrix::read_mtx_header("/nonexistent/loom/a.mtx");
        ADD_FAILURE() << "no IoError";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/loom/a.mtx"), std::string::npos);
    }
    EXPECT_THROW((matrix::read_csr<Value, Index>(test::reference(), "/nonexistent.mtx")),
                 IoError);
}

// ------------------------------------------------------------------------ round trips

template <typename T>
class MtxRoundTrip : public loom::test::TypedFixture<T> {};
TYPED_TEST_SUITE(MtxRoundTrip, test::ValueIndexTypes);

TYPED_TEST(MtxRoundTrip, CsrThroughAFileForAwkwardShapes)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto rows : test::awkward_sizes()) {
        for (const size_type cols : {size_type{0}, size_type{1}, size_type{33}, rows}) {
            test::PatternSpec spec{rows, cols, 3, rows > 2, false, true, 11};
            const auto A = test::random_csr<V, I>(test::reference(), spec);
            TempFile file;
            matrix::write_mtx(file.path(), A);
            const auto B = matrix::read_csr<V, I>(test::reference(), file.path());
            EXPECT_EQ(host_csr(B), with_sorted_rows(host_csr(A))) << rows << " x " << cols;
        }
    }
}

TYPED_TEST(MtxRoundTrip, CooKeepsEntryOrderAndDuplicates)
{
    LOOM_TYPED_TEST_TYPES;
    const auto t = test::random_triplets<V, I>({40, 31, 4, true, false, true, 5});
    const auto A = matrix::Coo<V, I>::from_host(test::reference(), t.size, t.rows, t.cols, t.values);
    std::stringstream text;
    matrix::write_mtx(text, A);
    const auto B = matrix::read_coo<V, I>(test::reference(), text);
    EXPECT_EQ(B.size(), A.size());
    EXPECT_EQ(B.row_idxs().to_host(), t.rows);
    EXPECT_EQ(B.col_idxs().to_host(), t.cols);
    EXPECT_EQ(B.values().to_host(), t.values);
}

TYPED_TEST(MtxRoundTrip, SymmetricSkewAndHermitianStoreOneTriangle)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto symmetry : {MtxSymmetry::symmetric, MtxSymmetry::skew_symmetric,
                                MtxSymmetry::hermitian}) {
        for (const size_type n : {1, 2, 33, 100}) {
            SCOPED_TRACE(std::string(matrix::to_string(symmetry)) + " " + std::to_string(n));
            const auto A = random_with_symmetry<V, I>(n, symmetry, 3 + n);
            std::stringstream text;
            matrix::write_mtx(text, A, symmetry);
            const auto header = matrix::read_mtx_header(text);
            EXPECT_EQ(header.symmetry, symmetry);
            size_type stored = 0;  // the lower triangle, without the diagonal when skew
            const auto h = host_csr(A);
            for (size_type r = 0; r < n; ++r) {
                for (auto k = h.ptrs[r]; k < h.ptrs[r + 1]; ++k) {
                    const bool skew = symmetry == MtxSymmetry::skew_symmetric;
                    stored += h.cols[k] < r || (h.cols[k] == r && !skew);
                }
            }
            EXPECT_EQ(header.entries, stored);
            text.clear();
            text.seekg(0);
            EXPECT_EQ(host_csr(matrix::read_csr<V, I>(test::reference(), text)), h);
        }
    }
}

TYPED_TEST(MtxRoundTrip, RefusesToDropATriangleThatIsNotMirrored)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = matrix::Csr<V, I>::from_host(test::reference(), {2, 2}, {0, 1, 2}, {1, 0},
                                                {V{1}, V{2}});
    TempFile file;
    for (const auto symmetry : {MtxSymmetry::symmetric, MtxSymmetry::skew_symmetric,
                                MtxSymmetry::hermitian}) {
        expect_bad_input([&] { matrix::write_mtx(file.path(), A, symmetry); },
                         {"loom::matrix::write_mtx", "(1, 0)"});
    }
    EXPECT_FALSE(std::filesystem::exists(file.path())) << "a refused file must not be created";
    const auto diagonal = matrix::Csr<V, I>::from_host(test::reference(), {2, 2}, {0, 1, 1}, {0},
                                                       {V{1}});
    expect_bad_input([&] { matrix::write_mtx(file.path(), diagonal, MtxSymmetry::skew_symmetric); },
                     {"diagonal"});
    const auto rectangular = matrix::Csr<V, I>(test::reference(), {2, 3});
    expect_bad_input([&] { matrix::write_mtx(file.path(), rectangular, MtxSymmetry::symmetric); },
                     {"square"});
}

TYPED_TEST(MtxRoundTrip, SymmetricWriteSumsDuplicatesAndAcceptsUnmatchedZeros)
{
    LOOM_TYPED_TEST_TYPES;
    // (1,0) stored as 1 + 2 and (0,1) as 3, plus an explicit zero at (0,1) twice over.
    const auto A = matrix::Csr<V, I>::from_host(test::reference(), {2, 2}, {0, 2, 4},
                                                {1, 1, 0, 0}, {V{3}, V{0}, V{1}, V{2}});
    std::stringstream text;
    matrix::write_mtx(text, A, MtxSymmetry::symmetric);
    const auto B = matrix::read_csr<V, I>(test::reference(), text);
    EXPECT_EQ(host_csr(B).cols, (std::vector<I>{1, 0}));
    EXPECT_EQ(host_csr(B).values, (std::vector<V>{V{3}, V{3}}));
}

template <typename T>
class MtxDenseRoundTrip : public ::testing::Test {};
TYPED_TEST_SUITE(MtxDenseRoundTrip, test::ValueTypes);

TYPED_TEST(MtxDenseRoundTrip, ArrayFilesAreColumnMajor)
{
    using V = TypeParam;
    const auto A = matrix::Dense<V>::from_host(test::reference(), {2, 3},
                                               {V{1}, V{2}, V{3}, V{4}, V{5}, V{6}});
    std::stringstream text;
    matrix::write_mtx(text, A);
    const std::string field = is_complex_v<V> ? "complex" : "real";
    const std::string zero = is_complex_v<V> ? " 0\n" : "\n";
    EXPECT_EQ(text.str(), "%%MatrixMarket matrix array " + field + " general\n2 3\n1" + zero +
                              "4" + zero + "2" + zero + "5" + zero + "3" + zero + "6" + zero);
}

TYPED_TEST(MtxDenseRoundTrip, EverySymmetryAndStridedViews)
{
    using V = TypeParam;
    for (const size_type n : {0, 1, 2, 31, 33}) {
        const auto A = test::random_dense<V>(test::reference(), {n, n + 2}, 9, n + 5);
        std::stringstream text;
        matrix::write_mtx(text, A);
        EXPECT_EQ(matrix::read_dense<V>(test::reference(), text).to_host(), A.to_host());

        for (const auto symmetry : {MtxSymmetry::symmetric, MtxSymmetry::skew_symmetric,
                                    MtxSymmetry::hermitian}) {
            SCOPED_TRACE(std::string(matrix::to_string(symmetry)) + " " + std::to_string(n));
            const auto m = std::max<size_type>(n, 1);
            const auto h = host_csr(random_with_symmetry<V, Index>(m, symmetry, 1));
            std::vector<V> dense(m * m, V{});
            for (size_type r = 0; r < m; ++r) {
                for (auto k = h.ptrs[r]; k < h.ptrs[r + 1]; ++k) dense[r * m + h.cols[k]] = h.values[k];
            }
            const auto S = matrix::Dense<V>::from_host(test::reference(), {m, m}, dense);
            std::stringstream sym_text;
            matrix::write_mtx(sym_text, S, symmetry);
            EXPECT_EQ(matrix::read_mtx_header(sym_text).symmetry, symmetry);
            sym_text.clear();
            sym_text.seekg(0);
            EXPECT_EQ(matrix::read_dense<V>(test::reference(), sym_text).to_host(), dense);
        }
    }
}

TYPED_TEST(MtxDenseRoundTrip, WritesRefuseABrokenSymmetry)
{
    using V = TypeParam;
    const auto A = matrix::Dense<V>::from_host(test::reference(), {2, 2}, {V{1}, V{2}, V{3}, V{4}});
    std::stringstream text;
    expect_bad_input([&] { matrix::write_mtx(text, A, MtxSymmetry::symmetric); }, {"(1, 0)"});
    expect_bad_input([&] { matrix::write_mtx(text, A, MtxSymmetry::skew_symmetric); }, {"diagonal"});
}

TYPED_TEST(MtxDenseRoundTrip, ShortestTextReadsBackExactly)
{
    using V = TypeParam;
    using R = remove_complex_t<V>;
    const std::vector<R> awkward{R(0.1), R(1) / R(3), std::numeric_limits<R>::min(),
                                 std::numeric_limits<R>::denorm_min(), std::numeric_limits<R>::max(),
                                 -std::numeric_limits<R>::epsilon(), R(-0.0), R(123456789)};
    std::vector<V> values;
    for (auto x : awkward) values.push_back(V(x));
    const auto A = matrix::Dense<V>::from_host(test::reference(), {size_type(values.size()), 1}, values);
    std::stringstream text;
    matrix::write_mtx(text, A);
    EXPECT_EQ(matrix::read_dense<V>(test::reference(), text).to_host(), values);
}

// ------------------------------------------------------------------------ fields and symmetry

TYPED_TEST(MtxRoundTrip, IntegerAndPatternBecomeReal)
{
    LOOM_TYPED_TEST_TYPES;
    const auto integer = read_text<V, I>(
        "%%MatrixMarket matrix coordinate integer general\n2 3 3\n2 3 -7\n1 1 +4\n2 1 12\n");
    EXPECT_EQ(host_csr(integer).ptrs, (std::vector<I>{0, 1, 3}));
    EXPECT_EQ(host_csr(integer).cols, (std::vector<I>{0, 0, 2}));
    EXPECT_EQ(host_csr(integer).values, (std::vector<V>{V{4}, V{12}, V{-7}}));

    const auto pattern = read_text<V, I>(
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n");
    EXPECT_EQ(host_csr(pattern).ptrs, (std::vector<I>{0, 2, 3, 5}));
    EXPECT_EQ(host_csr(pattern).cols, (std::vector<I>{0, 2, 2, 0, 1}));
    EXPECT_EQ(host_csr(pattern).values, std::vector<V>(5, V{1}));
}

TYPED_TEST(MtxRoundTrip, SkewNegatesAndSymmetricMirrors)
{
    LOOM_TYPED_TEST_TYPES;
    const auto skew = read_text<V, I>(
        "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -2e-3\n");
    EXPECT_EQ(host_csr(skew).cols, (std::vector<I>{1, 0, 2, 1}));
    EXPECT_EQ(host_csr(skew).values,
              (std::vector<V>{V(-1.5), V(1.5), V(static_cast<remove_complex_t<V>>(2e-3)),
                              V(static_cast<remove_complex_t<V>>(-2e-3))}));
    const auto symmetric = read_text<V, I>(
        "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 5\n2 2 1\n");
    EXPECT_EQ(host_csr(symmetric).cols, (std::vector<I>{1, 0, 1}));
    EXPECT_EQ(host_csr(symmetric).values, (std::vector<V>{V{5}, V{5}, V{1}}));
}

TYPED_TEST(MtxRoundTrip, ComplexFilesNeedAComplexType)
{
    LOOM_TYPED_TEST_TYPES;
    const std::string text =
        "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 3 0\n2 1 1 -2\n";
    if constexpr (is_complex_v<V>) {
        const auto A = read_text<V, I>(text);
        EXPECT_EQ(host_csr(A).values, (std::vector<V>{V(3, 0), V(1, 2), V(1, -2)}));
    } else {
        expect_bad_input([&] { read_text<V, I>(text); }, {"<stream>:1:", "complex"});
    }
}

TYPED_TEST(MtxRoundTrip, ArrayFilesGiveTheirNonzerosToSparseReaders)
{
    LOOM_TYPED_TEST_TYPES;
    const auto A = read_text<V, I>(
        "%%MatrixMarket matrix array real symmetric\n3 3\n1\n0\n2\n0\n0\n3\n");
    EXPECT_EQ(host_csr(A).ptrs, (std::vector<I>{0, 2, 2, 4}));
    EXPECT_EQ(host_csr(A).cols, (std::vector<I>{0, 2, 0, 2}));
    EXPECT_EQ(host_csr(A).values, (std::vector<V>{V{1}, V{2}, V{2}, V{3}}));
}

TEST(MtxRead, DenseFromCoordinateSumsDuplicates)
{
    using V = Value;
    std::istringstream in(
        "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1\n1 2 2\n2 1 -1\n");
    EXPECT_EQ(matrix::read_dense<V>(test::reference(), in).to_host(),
              (std::vector<V>{V{0}, V{3}, V{-1}, V{0}}));
}

TEST(MtxRead, UnsortedFilesGiveSortedRowsWithDuplicatesInFileOrder)
{
    using V = Value;
    const auto A = read_text<V, Index>(
        "%%MatrixMarket matrix coordinate real general\n2 4 5\n1 4 1\n1 2 2\n2 1 3\n1 2 "
        "4\r\n1 1 5");  // CRLF and no final newline
    EXPECT_EQ(host_csr(A).ptrs, (std::vector<Index>{0, 4, 5}));
    EXPECT_EQ(host_csr(A).cols, (std::vector<Index>{0, 1, 1, 3, 0}));
    EXPECT_EQ(host_csr(A).values, (std::vector<V>{V{5}, V{2}, V{4}, V{1}, V{3}}));
}

TEST(MtxRead, LinesLongerThanABlock)
{
    using V = Value;
    std::string text = "%%MatrixMarket matrix coordinate real general\n% " +
                       std::string(300000, 'x') + "\n1 1 1\n1 1 " + std::string(200000, ' ') +
                       "7\n";
    EXPECT_EQ(host_csr(read_text<V, Index>(text)).values, std::vector<V>{V{7}});
}

TEST(MtxRead, OntoEveryBackend)
{
    const auto A0 = test::random_csr<Value, Index>(test::reference(), {50, 40, 4, true, false, true, 4});
    TempFile file, binary(".bin");
    matrix::write_mtx(file.path(), A0);
    matrix::write_binary(binary.path(), A0);
    const auto expected = with_sorted_rows(host_csr(A0));
    for (const auto& exec : test::backends()) {
        const auto A = matrix::read_csr<Value, Index>(exec, file.path());
        EXPECT_EQ(A.executor(), exec);
        EXPECT_EQ(host_csr(A), expected) << exec->name();
        const auto C = matrix::read_coo<Value, Index>(exec, file.path());
        EXPECT_EQ(C.executor(), exec);
        EXPECT_EQ(C.nnz(), A.nnz());
        const auto D = matrix::read_dense<Value>(exec, file.path());
        EXPECT_EQ(D.executor(), exec);
        EXPECT_EQ(D.to_host(), matrix::read_dense<Value>(test::reference(), file.path()).to_host());
        const auto B = matrix::read_binary_csr<Value, Index>(exec, binary.path());
        EXPECT_EQ(B.executor(), exec);
        EXPECT_EQ(host_csr(B), host_csr(A0));
        // Writing from device memory gives the same file.
        TempFile again(".bin");
        matrix::write_binary(again.path(), B);
        EXPECT_EQ(again.read(), binary.read());
    }
}

// ------------------------------------------------------------------------ malformed input

TEST(MtxMalformed, BannerAndHeader)
{
    expect_malformed("", 1, "empty input");
    expect_malformed("hello\n1 1 1\n", 1, "banner");
    expect_malformed("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "bad banner");
    expect_malformed("%%MatrixMarket vector coordinate real general\n", 1, "object 'vector'");
    expect_malformed("%%MatrixMarket matrix sparse real general\n", 1, "unknown format 'sparse'");
    expect_malformed("%%MatrixMarket matrix coordinate float general\n", 1, "unknown field 'float'");
    expect_malformed("%%MatrixMarket matrix coordinate real lower\n", 1, "unknown symmetry 'lower'");
    expect_malformed("%%MatrixMarket matrix array pattern general\n", 1, "pattern");
    expect_malformed("%%MatrixMarket matrix coordinate pattern skew-symmetric\n", 1, "skew");
}

TEST(MtxMalformed, SizeLine)
{
    const std::string banner = "%%MatrixMarket matrix coordinate real general\n% c\n";
    expect_malformed(banner, 3, "missing size line");
    expect_malformed(banner + "3 3\n", 3, "bad size line");
    expect_malformed(banner + "3 x 3\n", 3, "bad size line");
    expect_malformed(banner + "3 3 1 1\n", 3, "bad size line");
    expect_malformed(banner + "3 -3 1\n", 3, "negative");
    TempFile file;  // only a file tells how many entries can follow
    file.write(banner + "3 3 1000\n1 1 1\n");
    expect_bad_input([&] { matrix::read_csr<Value, Index>(test::reference(), file.path()); },
                     {file.path() + ":3:", "declares 1000 entries"});
    expect_malformed("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2, "square");
    expect_malformed("%%MatrixMarket matrix array real general\n2 2 4\n", 2, "bad size line");
}

TEST(MtxMalformed, Entries)
{
    const std::string head = "%%MatrixMarket matrix coordinate real general\n2 3 2\n";
    expect_malformed(head + "1 1 1\n", 4, "ends after 1 of the 2 entries");
    expect_malformed(head + "1 1 1\n\n2 2 2\n1 3 3\n", 6, "more entries than the 2");
    expect_malformed(head + "0 1 1\n2 2 2\n", 3, "row index 0 is out of range [1, 2]");
    expect_malformed(head + "1 1 1\n3 2 2\n", 4, "row index 3 is out of range");
    expect_malformed(head + "1 4 1\n2 2 2\n", 3, "column index 4 is out of range [1, 3]");
    expect_malformed(head + "1 1 abc\n2 2 2\n", 3, "value 'abc' is not a number");
    expect_malformed(head + "1 1 1.5x\n2 2 2\n", 3, "value '1.5x' is not a number");
    expect_malformed(head + "1 1 1\n2 2\n", 4, "missing value");
    expect_malformed(head + "1 1 1\n2\n", 4, "missing column index");
    expect_malformed(head + "1.5 1 1\n2 2 2\n", 3, "row index '1.5' is not an integer");
    expect_malformed(head + "1 1 1 7\n2 2 2\n", 3, "unexpected text '7'");
    expect_malformed("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n", 3,
                     "is not an integer");
    expect_malformed("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1 1\n", 3,
                     "unexpected text");
    expect_malformed("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 1\n2 2 1\n",
                     4, "diagonal entry (2, 2)");
}

TEST(MtxMalformed, ArrayValues)
{
    expect_malformed("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 6,
                     "ends after 3 of the 4");
    expect_malformed("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", 6,
                     "more entries than the 3");
    expect_malformed("%%MatrixMarket matrix array real general\n1 1\n1 2\n", 3,
                     "unexpected text");
    expect_malformed("%%MatrixMarket matrix array real general\n1 1\nx\n", 3, "not a number");
}

#if LOOM_HAS_COMPLEX_DOUBLE_ || LOOM_HAS_COMPLEX_FLOAT_
TEST(MtxMalformed, ComplexValuesNeedTwoParts)
{
    using C = std::conditional_t<LOOM_HAS_COMPLEX_DOUBLE_, std::complex<double>, std::complex<float>>;
    expect_bad_input(
        [] {
            std::istringstream in("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 2\n");
            matrix::read_csr<C, Index>(test::reference(), in);
        },
        {"<stream>:3:", "missing value"});
}
#endif

TEST(MtxMalformed, FilesAreNamedInMessages)
{
    TempFile file;
    file.write("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n");
    expect_bad_input([&] { matrix::read_csr<Value, Index>(test::reference(), file.path()); },
                     {"loom::matrix::read_csr", file.path() + ":3:", "row index 3"});
    expect_bad_input([&] { matrix::read_coo<Value, Index>(test::reference(), file.path()); },
                     {"loom::matrix::read_coo", file.path() + ":3:"});
    expect_bad_input([&] { matrix::read_dense<Value>(test::reference(), file.path()); },
                     {"loom::matrix::read_dense", file.path() + ":3:"});
}

TEST(MtxWrite, UnwritablePathIsIoError)
{
    const auto A = matrix::Csr<Value, Index>(test::reference(), {1, 1});
    EXPECT_THROW(matrix::write_mtx("/nonexistent/loom/out.mtx", A), IoError);
    EXPECT_THROW(matrix::write_binary("/nonexistent/loom/out.bin", A), IoError);
}

// ------------------------------------------------------------------------ the shared matrices

struct SharedMatrix {
    const char* file;
    MtxField field;
    MtxSymmetry symmetry;
    size_type rows;
    size_type expanded_nnz;
    double value_sum;     ///< sum of every expanded entry
    double weighted_sum;  ///< sum of value * (2 row + 3 col + 1), 0-based: catches misplaced entries
};

// Computed independently (a plain Python reader) from the files in /work/shared/matrices.
const SharedMatrix shared_matrices[] = {
    {"bcsstk01", MtxField::real, MtxSymmetry::symmetric, 48, 400, 46625043418.157524, 5962755482165.462},
    {"gr_30_30", MtxField::integer, MtxSymmetry::symmetric, 900, 7744, 356.0, 800466.0},
    {"jgl011", MtxField::pattern, MtxSymmetry::general, 11, 76, 76.0, 2077.0},
    {"add32", MtxField::real, MtxSymmetry::general, 4960, 23884, 24.704040790598665, 389969.0564957534},
    {"nos4", MtxField::real, MtxSymmetry::symmetric, 100, 594, 1.3577708799999977, 33.8709592900009},
    {"can_838", MtxField::pattern, MtxSymmetry::symmetric, 838, 10010, 10010.0, 18500210.0},
    {"west0989", MtxField::real, MtxSymmetry::general, 989, 3537, -5788878.342675467, -16096418712.45579},
};

TEST(MtxShared, KnownMatricesHaveTheirEntriesInPlace)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    for (const auto& m : shared_matrices) {
        SCOPED_TRACE(m.file);
        const auto path = test::shared_matrix_path(m.file);
        const auto header = matrix::read_mtx_header(path);
        EXPECT_EQ(header.field, m.field);
        EXPECT_EQ(header.symmetry, m.symmetry);
        const auto A = host_csr(matrix::read_csr<Value, Index>(test::reference(), path));
        ASSERT_EQ(A.size, (dim2{m.rows, m.rows}));
        ASSERT_EQ(static_cast<size_type>(A.values.size()), m.expanded_nnz);
        double sum = 0, weighted = 0, magnitude = 0, weighted_magnitude = 0;
        for (size_type r = 0; r < m.rows; ++r) {
            EXPECT_TRUE(std::is_sorted(A.cols.begin() + A.ptrs[r], A.cols.begin() + A.ptrs[r + 1]));
            for (auto k = A.ptrs[r]; k < A.ptrs[r + 1]; ++k) {
                const auto value = static_cast<double>(std::real(A.values[k]));
                const auto weight = static_cast<double>(2 * r + 3 * A.cols[k] + 1);
                sum += value;
                weighted += value * weight;
                magnitude += std::abs(value);
                weighted_magnitude += std::abs(value) * weight;
            }
        }
        EXPECT_NEAR(sum, m.value_sum, test::tolerance<Value>() * magnitude);
        EXPECT_NEAR(weighted, m.weighted_sum, test::tolerance<Value>() * weighted_magnitude);
    }
}

/// Entries and diagonal entries of a file, counted with iostreams: an independent oracle.
std::pair<size_type, size_type> count_entries(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
    }
    size_type entries = 0, diagonal = 0;
    while (std::getline(in, line)) {
        char* end = nullptr;
        const auto r = std::strtoll(line.c_str(), &end, 10);
        if (end == line.c_str()) continue;  // a blank line
        ++entries;
        diagonal += r == std::strtoll(end, nullptr, 10);
    }
    return {entries, diagonal};
}

TEST(MtxShared, EveryFileReadsWithItsDeclaredEntries)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    int files = 0;
    for (const auto& item : std::filesystem::directory_iterator(test::shared_matrix_folder())) {
        if (item.path().extension() != ".mtx") continue;
        const auto path = item.path().string();
        SCOPED_TRACE(path);
        ++files;
        const auto header = matrix::read_mtx_header(path);
        const auto [entries, diagonal] = count_entries(path);
        EXPECT_EQ(header.entries, entries);
        const auto expected =
            header.symmetry == MtxSymmetry::general ? entries : 2 * entries - diagonal;
        const auto A = matrix::read_csr<Value, Index>(test::reference(), path);
        EXPECT_EQ(A.nnz(), expected);
        EXPECT_NO_THROW(A.validate());
        EXPECT_EQ((matrix::read_coo<Value, Index>(test::reference(), path).nnz()), expected);
    }
    EXPECT_GE(files, 10);
}

// ------------------------------------------------------------------------ binary format

TYPED_TEST(MtxRoundTrip, BinaryIsExact)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto rows : test::awkward_sizes()) {
        const test::PatternSpec spec{rows, rows + 3, 5, rows > 2, false, true, 2};
        const auto A = test::random_csr<V, I>(test::reference(), spec);
        TempFile file(".bin");
        matrix::write_binary(file.path(), A);
        EXPECT_EQ(std::filesystem::file_size(file.path()),
                  48 + (rows + 1 + A.nnz()) * sizeof(I) + A.nnz() * sizeof(V));
        const auto B = matrix::read_binary_csr<V, I>(test::reference(), file.path());
        EXPECT_EQ(host_csr(B), host_csr(A));
    }
}

template <typename FromV, typename FromI, typename ToV, typename ToI>
void expect_binary_conversion()
{
    const test::PatternSpec spec{40, 50, 6, true, false, true, 8};
    const auto A = test::random_csr<FromV, FromI>(test::reference(), spec);
    TempFile file(".bin");
    matrix::write_binary(file.path(), A);
    const auto B = host_csr(matrix::read_binary_csr<ToV, ToI>(test::reference(), file.path()));
    const auto a = host_csr(A);
    EXPECT_EQ(B.ptrs, std::vector<ToI>(a.ptrs.begin(), a.ptrs.end()));
    EXPECT_EQ(B.cols, std::vector<ToI>(a.cols.begin(), a.cols.end()));
    ASSERT_EQ(B.values.size(), a.values.size());
    for (std::size_t k = 0; k < a.values.size(); ++k) {
        EXPECT_NEAR(std::abs(static_cast<std::complex<double>>(B.values[k]) -
                             static_cast<std::complex<double>>(a.values[k])),
                    0, 1e-6);
    }
}

TEST(MtxBinary, ConvertsValueAndIndexTypes)
{
#if LOOM_HAS_INT32 && LOOM_HAS_INT64
    using V = Value;
    expect_binary_conversion<V, int32, V, int64>();
    expect_binary_conversion<V, int64, V, int32>();
#endif
#if LOOM_HAS_FLOAT && LOOM_HAS_DOUBLE
    expect_binary_conversion<float, Index, double, Index>();
    expect_binary_conversion<double, Index, float, Index>();
#endif
#if LOOM_HAS_DOUBLE && LOOM_HAS_COMPLEX_FLOAT_
    expect_binary_conversion<double, Index, std::complex<float>, Index>();
#endif
#if LOOM_HAS_COMPLEX_FLOAT_ && LOOM_HAS_COMPLEX_DOUBLE_
    expect_binary_conversion<std::complex<float>, Index, std::complex<double>, Index>();
#endif
#if LOOM_HAS_COMPLEX_FLOAT_ && LOOM_HAS_DOUBLE
    const auto C = test::random_csr<std::complex<float>, Index>(test::reference(), {4, 4, 2});
    TempFile file(".bin");
    matrix::write_binary(file.path(), C);
    expect_bad_input([&] { matrix::read_binary_csr<double, Index>(test::reference(), file.path()); },
                     {file.path(), "complex"});
#endif
}

TEST(MtxBinary, CorruptFilesAreBadInputNamingTheFile)
{
    using V = Value;
    const auto A = test::random_csr<V, Index>(test::reference(), {20, 20, 3});
    TempFile good(".bin"), bad(".bin");
    matrix::write_binary(good.path(), A);
    const auto bytes = good.read();
    const auto read_bad = [&] { matrix::read_binary_csr<V, Index>(test::reference(), bad.path()); };

    bad.write("LOOMCSR");
    expect_bad_input(read_bad, {bad.path(), "truncated"});
    bad.write("NOTLOOM!" + bytes.substr(8));
    expect_bad_input(read_bad, {bad.path(), "bad magic"});
    bad.write(bytes.substr(0, bytes.size() - 1));
    expect_bad_input(read_bad, {bad.path(), "truncated"});
    bad.write(bytes + "x");
    expect_bad_input(read_bad, {bad.path(), "size mismatch"});
    auto version = bytes;
    version[8] = 9;
    bad.write(version);
    expect_bad_input(read_bad, {bad.path(), "version"});
    // The first column index lies right after the 21 row pointers.
    auto column = bytes;
    const Index out_of_range = 20;
    std::memcpy(column.data() + 48 + 21 * sizeof(Index), &out_of_range, sizeof out_of_range);
    bad.write(column);
    expect_bad_input(read_bad, {bad.path(), "column index 20"});
    auto pointers = bytes;
    const Index backwards = 1000;
    std::memcpy(pointers.data() + 48 + 5 * sizeof(Index), &backwards, sizeof backwards);
    bad.write(pointers);
    expect_bad_input(read_bad, {bad.path(), "row pointers"});
    EXPECT_THROW((matrix::read_binary_csr<V, Index>(test::reference(), "/nonexistent.bin")), IoError);
}

// ------------------------------------------------------------------------ hardening (issue 18)

TEST(MtxHardening, SymmetricEntriesAboveTheDiagonalAreErrorsNamingTheLine)
{
    // A(1, 2) listed besides A(2, 1) was mirrored twice: counted double.
    for (const std::string symmetry : {"symmetric", "skew-symmetric", "hermitian"}) {
        expect_malformed("%%MatrixMarket matrix coordinate real " + symmetry +
                             "\n2 2 2\n2 1 1\n1 2 1\n",
                         4, "entry (1, 2) lies above the diagonal");
    }
}

#if LOOM_HAS_COMPLEX_DOUBLE_ || LOOM_HAS_COMPLEX_FLOAT_
TEST(MtxHardening, HermitianDiagonalMustBeReal)
{
    using C = std::conditional_t<LOOM_HAS_COMPLEX_DOUBLE_, std::complex<double>, std::complex<float>>;
    expect_bad_input(
        [] {
            std::istringstream in(
                "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 2 1 3\n");
            matrix::read_csr<C, Index>(test::reference(), in);
        },
        {"<stream>:4:", "diagonal entry (2, 2) of a hermitian file is not real"});
    expect_bad_input(
        [] {
            std::istringstream in(
                "%%MatrixMarket matrix array complex hermitian\n2 2\n1 2\n3 0\n4 0\n");
            matrix::read_dense<C>(test::reference(), in);
        },
        {"<stream>:3:", "not real"});
}
#endif

TEST(MtxHardening, ACutInTheLastNumberIsDetected)
{
    const std::string head = "%%MatrixMarket matrix coordinate real general\n2 2 2\n";
    const std::string whole = head + "1 1 531278103.775\n2 2 531278103.775";
    // Without its final line break the file still reads: real files (e05r0000) end so.
    EXPECT_EQ(host_csr(read_text<Value, Index>(whole)).values.back(), Value(531278103.775));
    // Every cut inside the last number that leaves a valid number is refused.
    for (std::size_t cut = whole.size() - 12; cut < whole.size(); ++cut) {
        expect_malformed(whole.substr(0, cut), 4, "looks cut off");
    }
    TempFile file;
    file.write(whole.substr(0, whole.size() - 10));
    expect_bad_input([&] { matrix::read_csr<Value, Index>(test::reference(), file.path()); },
                     {file.path() + ":4:", "'531'", "looks cut off"});
    expect_malformed("%%MatrixMarket matrix array real general\n2 1\n0.125\n0.1", 4,
                     "looks cut off");
}

TEST(MtxHardening, ByteOrderMarkAndWindowsLineEndsAreAccepted)
{
    const auto A = read_text<Value, Index>(
        "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n2 1 5\r\n");
    EXPECT_EQ(host_csr(A).ptrs, (std::vector<Index>{0, 0, 1}));
    EXPECT_EQ(host_csr(A).values, (std::vector<Value>{Value{5}}));
}

TEST(MtxHardening, MessagesShowInputEscapedAndBounded)
{
    // A CRLF line quoted without its '\r'; control characters escaped; long lines cut.
    expect_malformed("%%MatrixMarket matrix coordinate real general\r\n1 1 1\r\n1 1 x\r\n", 3,
                     "value 'x' is not a number");
    expect_malformed("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 \x01\n", 3,
                     "value '\\x01'");
    try {
        std::istringstream in("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1 " +
                              std::string(10000, 'y') + "\n");
        matrix::read_csr<Value, Index>(test::reference(), in);
        ADD_FAILURE() << "no error";
    } catch (const BadInput& e) {
        EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
    }
    // Bare '\r' line ends (classic Mac) make one line: said so, not echoed raw.
    expect_malformed("%%MatrixMarket matrix coordinate real general\r1 1 1\r1 1 1\r", 1,
                     "bare carriage return");
}

TEST(MtxHardening, SizesBeyondMemoryAreRefusedBeforeAllocating)
{
    // A vector file declaring 3e9 x 3e9 (coordinate: few bytes, 72 exabytes dense).
    try {
        std::istringstream in(
            "%%MatrixMarket matrix coordinate real general\n3000000000 3000000000 0\n");
        matrix::read_dense<Value>(test::reference(), in);
        ADD_FAILURE() << "no error";
    } catch (const AllocationError& e) {
        EXPECT_NE(std::string(e.what()).find("a dense 3000000000 x 3000000000 matrix needs"),
                  std::string::npos)
            << e.what();
    }
    if constexpr (sizeof(Index) == 8) {
        std::istringstream in("%%MatrixMarket matrix coordinate real general\n"
                              "1000000000000000 1 0\n");
        EXPECT_THROW((matrix::read_csr<Value, Index>(test::reference(), in)), AllocationError);
    }
}

}  // namespace
}  // namespace loom::test
