// Inputs that fuzzing (fuzz/, fuzz_mtx) found the Matrix Market reader to mishandle. Each input
// is also in the seed corpus, fuzz/corpus/mtx/regression-*.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/io.hpp"
#include "support/executors.hpp"
#include "support/types.hpp"

namespace {

using namespace loom;

using Value = std::tuple_element_t<0, test::value_tuple>;
using Index = std::tuple_element_t<0, test::index_tuple>;

matrix::Dense<Value> read_dense_text(const std::string& text)
{
    std::istringstream in(text);
    return matrix::read_dense<Value>(test::reference(), in);
}

TEST(MtxFuzzFindings, ArrayWithNoRowsDoesNotWalkItsColumns)
{
    // It walked all 10^18 empty columns after the size line: a hang.
    const auto A =
        read_dense_text("%%MatrixMarket matrix array real general\n0 1000000000000000000\n");
    EXPECT_EQ(A.size(), (dim2{0, 1000000000000000000}));
}

TEST(MtxFuzzFindings, ArrayWithNoColumnsDoesNotWalkItsRows)
{
    // Read as a sparse matrix it walked all 2e9 empty rows for nonzeros: 13 s, a timeout
    // (fuzz_mtx, 10^6 runs, session 6).
    std::istringstream in("%%MatrixMarket matrix array real general\n2069806470 -00\n");
    const auto A = matrix::read_coo<Value, Index>(test::reference(), in);
    EXPECT_EQ(A.size(), (dim2{2069806470, 0}));
    EXPECT_EQ(A.nnz(), 0);
}

TEST(MtxFuzzFindings, SymmetricStreamDeclaringHugeEntryCountsIsAnError)
{
    // Twice the 5e18 declared entries overflowed (UBSan, fuzz_mtx, session 6) before the
    // stream's capacity guess was capped; now the missing entries are the error.
    std::istringstream in(
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 5000000000000000000\n1 1 1\n");
    EXPECT_THROW((matrix::read_coo<Value, Index>(test::reference(), in)), Error);
}

TEST(MtxFuzzFindings, ArrayFromAStreamAllocatesForTheValuesItHolds)
{
    // 3e9 x 3e9 values were allocated from the size line before any value was read (a stream's
    // length is unknown, so the size line cannot be checked against it): std::length_error.
    const std::string text =
        "%%MatrixMarket matrix array real general\n3000000000 3000000000\n1\n2\n";
    // The size line is refused before anything is allocated (it cannot fit in memory) or, on a
    // machine where it could, the stream's end is found after 2 values: a loom::Error either way.
    EXPECT_THROW(read_dense_text(text), Error);
    std::istringstream in(text);
    EXPECT_THROW((matrix::read_coo<Value, Index>(test::reference(), in)), Error);
}

TEST(MtxFuzzFindings, ArrayValuesStillLandInTheirPlaces)
{
    const auto A = read_dense_text(
        "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
    const std::vector<Value> expected{0, -1, -2, 1, 0, -3, 2, 3, 0};
    EXPECT_EQ(A.to_host(), expected);
}

}  // namespace
