// `loom color` and `loom bench color` end to end, run as a child process as a user would.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/graph/coloring.hpp"
#include "loom/graph/mis2.hpp"
#include "tools/loom_program.hpp"

namespace {

class ColorCli : public loom::test::LoomProgram {
protected:
    /// The colors in a file written by `loom color`, one per line.
    std::vector<int> colors(const std::string& name) const
    {
        std::istringstream text(read(name));
        std::vector<int> result;
        for (int c = 0; text >> c;) result.push_back(c);
        return result;
    }
};

TEST_F(ColorCli, WritesOneColorPerVertex)
{
    // A path 0 - 1 - 2 - 3 stored one way only: the coloring sees both directions.
    write("A.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 3\n1 2\n2 3\n3 4\n");
    for (const auto& exec : execs()) {
        SCOPED_TRACE(exec);
        auto run = loom("color A.mtx -o c.txt --algorithm greedy --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(colors("c.txt"), (std::vector<int>{0, 1, 0, 1}));
        EXPECT_NE(run.output.find("2 colors"), std::string::npos) << run.output;
        run = loom("color A.mtx -o c.txt --distance 2 --algorithm greedy --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(colors("c.txt"), (std::vector<int>{0, 1, 2, 0}));
        // Rows 0, 1, 2 store columns 1, 2, 3: no two share one.
        run = loom("color A.mtx -o c.txt --bipartite --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(colors("c.txt"), (std::vector<int>{0, 0, 0, 0}));
        run = loom("color A.mtx -o c.txt --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        const auto c = colors("c.txt");
        ASSERT_EQ(c.size(), 4u);
        for (int v = 0; v < 3; ++v) EXPECT_NE(c[v], c[v + 1]) << v;
    }
}

TEST_F(ColorCli, RejectsAnAlgorithmOfTheOtherDistance)
{
    write("A.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
    const auto run = loom("color A.mtx -o c.txt --distance 2 --algorithm eb");
    EXPECT_EQ(run.status, 2);
    EXPECT_NE(run.output.find("does not color at distance 2"), std::string::npos) << run.output;
    EXPECT_EQ(loom("color A.mtx -o c.txt --distance 3").status, 1);
}

TEST_F(ColorCli, AlgorithmsAndModesAreTheNamesOfTheLibrarysTables)
{
    write("A.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n");
    // A misspelled name is a usage error listing the table's names.
    const auto rainbow = loom("color A.mtx -o c.txt --algorithm rainbow");
    EXPECT_EQ(rainbow.status, 1);
    const auto slow = loom("mis2 A.mtx -o s.txt --mode slow");
    EXPECT_EQ(slow.status, 1);
    const auto color_help = loom("color --help");
    const auto mis2_help = loom("mis2 --help");
    for (const auto& entry : loom::graph::coloring_algorithm_names) {
        EXPECT_NE(rainbow.output.find(entry.name), std::string::npos) << rainbow.output;
        EXPECT_NE(color_help.output.find(entry.description), std::string::npos) << entry.name;
    }
    for (const auto& entry : loom::graph::mis2_mode_names) {
        EXPECT_NE(slow.output.find(entry.name), std::string::npos) << slow.output;
        EXPECT_NE(mis2_help.output.find(entry.description), std::string::npos) << entry.name;
        const auto run = loom(std::string("mis2 A.mtx -o s.txt --exec reference --mode ") + entry.name);
        ASSERT_EQ(run.status, 0) << run.output;
        // In the path 0 - 1 - 2 every two vertices are within distance 2: one in the set.
        const auto set = read("s.txt");
        EXPECT_EQ(std::count(set.begin(), set.end(), '\n'), 1) << entry.name << ": " << set;
    }
    // Aliases of the table are accepted too.
    const auto aliased = loom("color A.mtx -o c.txt --algorithm auto --exec reference");
    EXPECT_EQ(aliased.status, 0) << aliased.output;
}

TEST_F(ColorCli, BenchChecksAndReportsEveryAlgorithm)
{
    const auto [run, report] = bench("color --generate poisson3d:8 --reps 2 --exec reference");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(report["benchmark"], "color");
    ASSERT_GE(report["results"].size(), 6u);  // greedy, automatic, vb, vbbit, vbcs, eb
    for (const auto& r : report["results"]) EXPECT_GE(r["colors"].get<int>(), 2) << r.dump();
}

}  // namespace
