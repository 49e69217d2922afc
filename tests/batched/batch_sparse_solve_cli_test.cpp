// `loom solve --batch FOLDER -o OUTDIR` run as a user would: every system of a folder solved,
// right-hand sides from NAME_b.mtx or A * ones, solutions written, and exit status 3 naming the
// systems that did not converge.
#include <cmath>

#include <gtest/gtest.h>

#include "tools/loom_program.hpp"

namespace {

class BatchSolveCli : public loom::test::LoomProgram {
protected:
    /// tridiag(-1, 4, -1) of order n in Matrix Market.
    void write_tridiagonal(const std::string& name, int n) const
    {
        std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(n) +
                           " " + std::to_string(n) + " " + std::to_string(3 * n - 2) + "\n";
        for (int i = 1; i <= n; ++i) {
            if (i > 1) text += std::to_string(i) + " " + std::to_string(i - 1) + " -1\n";
            text += std::to_string(i) + " " + std::to_string(i) + " 4\n";
            if (i < n) text += std::to_string(i) + " " + std::to_string(i + 1) + " -1\n";
        }
        write(name, text);
    }
};

TEST_F(BatchSolveCli, SolvesEverySystemOfAFolder)
{
    std::filesystem::create_directories(path("in"));
    write_tridiagonal("in/small.mtx", 5);
    write_tridiagonal("in/large.mtx", 40);
    write_tridiagonal("in/one.mtx", 1);
    std::string rhs = "%%MatrixMarket matrix array real general\n5 1\n";
    for (int i = 0; i < 5; ++i) rhs += std::to_string(i + 1) + "\n";
    write("in/small_b.mtx", rhs);
    for (const auto& exec : execs())
    for (const std::string solver : {"cg", "bicgstab", "gmres", "ir"}) {
        const auto run = loom("solve --batch in -o out --tol 1e-12 --precond jacobi --exec " + exec +
                              " --solver " + solver);
        ASSERT_EQ(run.status, 0) << solver << ": " << run.output;
        EXPECT_NE(run.output.find("3 systems"), std::string::npos) << run.output;
        // b = A * ones where no NAME_b.mtx is given: x = ones.
        for (double v : result("out/large_x.mtx")) EXPECT_NEAR(v, 1.0, 1e-9) << solver;
        EXPECT_NEAR(result("out/one_x.mtx").at(0), 1.0, 1e-12) << solver;
        // small: A x = (1, ..., 5).
        const auto x = result("out/small_x.mtx");
        ASSERT_EQ(x.size(), 5u);
        for (int i = 0; i < 5; ++i) {
            const double ax = 4 * x[i] - (i > 0 ? x[i - 1] : 0) - (i < 4 ? x[i + 1] : 0);
            EXPECT_NEAR(ax, i + 1, 1e-9) << solver << " row " << i;
        }
    }
}

TEST_F(BatchSolveCli, ExitThreeNamesTheSystemsThatDidNotConverge)
{
    std::filesystem::create_directories(path("in"));
    write_tridiagonal("in/easy.mtx", 1);
    write_tridiagonal("in/hard.mtx", 60);
    const auto run = loom("solve --batch in --max-iters 2 --precond none");
    EXPECT_EQ(run.status, 3) << run.output;
    EXPECT_NE(run.output.find("hard did not converge"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("easy did not converge"), std::string::npos) << run.output;
}

TEST_F(BatchSolveCli, BadInput)
{
    EXPECT_EQ(loom("solve --batch missing-folder").status, 2);
    std::filesystem::create_directories(path("in"));
    write_tridiagonal("in/a.mtx", 4);
    write("in/a_b.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
    const auto run = loom("solve --batch in");
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("a_b.mtx"), std::string::npos) << run.output;
    EXPECT_EQ(loom("solve --batch in --precond ilu").status, 2);
}

}  // namespace
