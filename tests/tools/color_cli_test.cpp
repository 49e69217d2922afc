// `loom color` and `loom bench color` end to end, run as a child process as a user would.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
    EXPECT_EQ(loom("color A.mtx -o c.txt --algorithm rainbow").status, 2);
    EXPECT_EQ(loom("color A.mtx -o c.txt --distance 3").status, 1);
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
