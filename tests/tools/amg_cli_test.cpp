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

}  // namespace
