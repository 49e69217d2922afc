// `loom generate elasticity3d:N --coordinates`, then AMG with the rigid-body modes from that
// file through `loom solve`, `loom amg-info` and `loom bench amg`, run as a user would.
#include <string>

#include <gtest/gtest.h>

#include "tools/loom_program.hpp"

namespace {

using AmgCli = loom::test::LoomProgram;

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

TEST_F(AmgCli, RigidBodyModesFromACoordinatesFile)
{
    const auto made = loom("generate elasticity3d:4 -o A.mtx --coordinates xyz.mtx");
    ASSERT_EQ(made.status, 0) << made.output;
    const auto solved = loom("solve A.mtx --precond amg --coordinates xyz.mtx --threads 1 -q");
    ASSERT_EQ(solved.status, 0) << solved.output;
    EXPECT_TRUE(contains(solved.output, "converged after")) << solved.output;
    const auto iterated =
        loom("solve A.mtx --solver amg --coordinates xyz.mtx --dofs-per-node 3 --threads 1 -q");
    ASSERT_EQ(iterated.status, 0) << iterated.output;
    const auto info = loom("amg-info A.mtx --coordinates xyz.mtx --threads 1");
    ASSERT_EQ(info.status, 0) << info.output;
    EXPECT_TRUE(contains(info.output, "operator complexity")) << info.output;
    const auto bench = loom("bench amg --generate elasticity3d:3 --reps 1 --threads 1");
    ASSERT_EQ(bench.status, 0) << bench.output;
    EXPECT_TRUE(contains(bench.output, "amg-rbm-cg")) << bench.output;
}

TEST_F(AmgCli, CoordinatesNeedAmg)
{
    ASSERT_EQ(loom("generate elasticity3d:2 -o A.mtx --coordinates xyz.mtx").status, 0);
    const auto jacobi = loom("solve A.mtx --precond jacobi --coordinates xyz.mtx -q");
    EXPECT_EQ(jacobi.status, 2) << jacobi.output;
    EXPECT_TRUE(contains(jacobi.output, "--coordinates needs")) << jacobi.output;
    const auto wrong = loom("solve A.mtx --precond amg --coordinates xyz.mtx --dofs-per-node 4 -q");
    EXPECT_EQ(wrong.status, 2) << wrong.output;
    const auto none = loom("generate poisson2d:3 -o P.mtx --coordinates p.mtx");
    EXPECT_NE(none.status, 0) << none.output;
    EXPECT_TRUE(contains(none.output, "has no coordinates")) << none.output;
}

TEST_F(AmgCli, SolveTakesTheGeneratorsCoordinates)
{
    const auto solved =
        loom("solve --generate elasticity3d:3 --precond amg --threads 1 -q -v");
    ASSERT_EQ(solved.status, 0) << solved.output;
    EXPECT_TRUE(contains(solved.output, "rigid-body modes of the generator's coordinates"))
        << solved.output;
    const auto scalar = loom("solve --generate poisson3d:6 --precond amg --threads 1 -q -v");
    ASSERT_EQ(scalar.status, 0) << scalar.output;
    EXPECT_FALSE(contains(scalar.output, "rigid-body modes")) << scalar.output;
}

TEST_F(AmgCli, PairwiseAggregation)
{
    const auto solved = loom(
        "solve --generate poisson3d:8 --precond amg --aggregation pairwise --unsmoothed "
        "--threads 1 -q");
    ASSERT_EQ(solved.status, 0) << solved.output;
    EXPECT_TRUE(contains(solved.output, "converged after")) << solved.output;
    ASSERT_EQ(loom("generate poisson2d:12 -o P.mtx").status, 0);
    const auto info = loom("amg-info P.mtx --aggregation pgm --pairwise-passes 1 --threads 1");
    ASSERT_EQ(info.status, 0) << info.output;
    EXPECT_TRUE(contains(info.output, "operator complexity")) << info.output;
    const auto jacobi = loom("solve P.mtx --precond jacobi --aggregation pairwise -q");
    EXPECT_EQ(jacobi.status, 2) << jacobi.output;
}

}  // namespace
