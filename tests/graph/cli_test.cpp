// The graph commands as a user runs them: loom mis2 and loom reorder --rcm|--amd write what the
// library computes, the same on every backend, and refuse bad input with a message.
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "loom/graph/amd.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/graph/rcm.hpp"
#include "loom/matrix/io.hpp"
#include "loom/matrix/permutation.hpp"
#include "tools/loom_program.hpp"

namespace {

using loom::test::LoomProgram;
namespace graph = loom::graph;
namespace matrix = loom::matrix;

using GraphCli = LoomProgram;

std::vector<loom::int32> indices_of(const std::string& text)
{
    std::vector<loom::int32> result;
    std::istringstream in(text);
    for (loom::int32 index = 0; in >> index;) result.push_back(index);
    return result;
}

TEST_F(GraphCli, Mis2WritesTheLibrarysSetOnEveryBackend)
{
    ASSERT_EQ(loom("generate poisson3d:9 -o A.mtx").status, 0);
    const auto A = matrix::read_csr<double>(loom::ReferenceExecutor::create(), path("A.mtx"));
    for (const auto& entry : graph::mis2_mode_names) {
        const auto mode = entry.value;
        const auto set = graph::mis2(A, {mode}).to_host();
        const auto aggregation = graph::mis2_aggregation(A, {mode});
        for (const auto& exec : execs()) {
            const auto run = loom("mis2 A.mtx -o set.txt --aggregates agg.txt --mode " +
                                  std::string(to_string(mode)) + " --exec " + exec);
            ASSERT_EQ(run.status, 0) << run.output;
            EXPECT_EQ(indices_of(read("set.txt")), set) << exec;
            EXPECT_EQ(indices_of(read("agg.txt")), aggregation.aggregate_of.to_host()) << exec;
        }
    }
}

TEST_F(GraphCli, ReorderWritesPAPtAndThePermutation)
{
    ASSERT_EQ(loom("generate poisson2d:15 -o A.mtx").status, 0);
    const auto host = loom::ReferenceExecutor::create();
    const auto A = matrix::read_csr<double>(host, path("A.mtx"));
    for (const std::string ordering : {"rcm", "amd"}) {
        if (ordering == "amd" && !graph::amd_available()) continue;
        const auto perm = (ordering == "rcm" ? graph::rcm(A) : graph::amd(A)).to_host();
        for (const auto& exec : execs()) {
            const auto run =
                loom("reorder A.mtx --" + ordering + " -o B.mtx --perm p.txt --exec " + exec);
            ASSERT_EQ(run.status, 0) << run.output;
            EXPECT_EQ(indices_of(read("p.txt")), perm) << exec;
            const auto B = matrix::read_csr<double>(host, path("B.mtx"));
            const auto expected =
                matrix::Permutation<loom::int32>(host, loom::Array<loom::int32>(host, perm))
                    .permute(A);
            EXPECT_EQ(B.row_ptrs().to_host(), expected.row_ptrs().to_host()) << exec;
            EXPECT_EQ(B.col_idxs().to_host(), expected.col_idxs().to_host()) << exec;
            EXPECT_EQ(B.values().to_host(), expected.values().to_host()) << exec;
        }
    }
}

TEST_F(GraphCli, RefusesBadInput)
{
    write("R.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1.0\n");
    const auto mis2 = loom("mis2 R.mtx -o set.txt");
    EXPECT_NE(mis2.status, 0);
    EXPECT_NE(mis2.output.find("square"), std::string::npos) << mis2.output;
    const auto reorder = loom("reorder R.mtx --rcm -o B.mtx");
    EXPECT_NE(reorder.status, 0);
    EXPECT_NE(reorder.output.find("square"), std::string::npos) << reorder.output;
    EXPECT_NE(loom("reorder R.mtx -o B.mtx").status, 0);              // an ordering is required
    EXPECT_NE(loom("reorder R.mtx --rcm --amd -o B.mtx").status, 0);  // only one
    // An empty argument looped for ever in CLI11's option groups (fuzz_cli finding).
    EXPECT_EQ(loom("reorder R.mtx \"\" --nch -o B.mtx --rcm").status, 1);
    EXPECT_EQ(loom("reorder 080 \"\" --nch").status, 1);
    ASSERT_EQ(loom("generate poisson2d:4 -o A.mtx").status, 0);
    const auto mode = loom("mis2 A.mtx -o set.txt --mode slow");
    EXPECT_EQ(mode.status, 1);  // a usage error, listing the modes of the library's table
    for (const auto& entry : graph::mis2_mode_names) {
        EXPECT_NE(mode.output.find(entry.name), std::string::npos) << mode.output;
    }
}

}  // namespace
