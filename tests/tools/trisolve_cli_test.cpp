// loom trisolve and loom bench sptrsv, run as a user would.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/sparse/cholmod.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "tools/loom_program.hpp"

namespace {

class TrisolveCli : public loom::test::LoomProgram {
protected:
    /// L = [[2 0 0], [1 4 0], [0 1 5]] with its rows unsorted, and b = L (1, 1, 2).
    void write_lower_system() const
    {
        write("L.mtx",
              "%%MatrixMarket matrix coordinate real general\n"
              "3 3 5\n2 2 4\n1 1 2\n2 1 1\n3 3 5\n3 2 1\n");
        write("b.mtx", "%%MatrixMarket matrix array real general\n3 1\n2\n5\n11\n");
    }
};

TEST_F(TrisolveCli, SolvesOnEveryBackend)
{
    write_lower_system();
    for (const auto& exec : execs()) {
        SCOPED_TRACE(exec);
        const auto run = loom("trisolve L.mtx b.mtx -o x.mtx --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("x.mtx"), (std::vector<double>{1, 1, 2}));
        // L^T x = b: x = (0.65, 0.7, 2.2).
        const auto transposed = loom("trisolve L.mtx b.mtx -o xt.mtx --op t --exec " + exec);
        ASSERT_EQ(transposed.status, 0) << transposed.output;
        const auto xt = result("xt.mtx");
        ASSERT_EQ(xt.size(), 3u);
        EXPECT_NEAR(xt[0], 0.65, 1e-15);
        EXPECT_NEAR(xt[1], 0.7, 1e-15);
        EXPECT_NEAR(xt[2], 2.2, 1e-15);
        // Unit diagonal: x = (2, 3, 8).
        const auto unit = loom("trisolve L.mtx b.mtx -o xu.mtx --unit --exec " + exec);
        ASSERT_EQ(unit.status, 0) << unit.output;
        EXPECT_EQ(result("xu.mtx"), (std::vector<double>{2, 3, 8}));
    }
}

TEST_F(TrisolveCli, RejectsAMatrixOutsideTheTriangle)
{
    write_lower_system();
    const auto run = loom("trisolve L.mtx b.mtx -o x.mtx --upper --exec reference");
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("entry (1, 0)"), std::string::npos) << run.output;
    EXPECT_EQ(loom("trisolve L.mtx b.mtx").status, 1);  // no -o
}

TEST_F(TrisolveCli, OpAndAlgorithmAreTheNamesOfTheLibrarysTables)
{
    write_lower_system();
    // --op takes every spelling of blas::op_names: "transpose" is "t".
    const auto transposed =
        loom("trisolve L.mtx b.mtx -o xt.mtx --op transpose --algorithm levels --exec reference");
    ASSERT_EQ(transposed.status, 0) << transposed.output;
    EXPECT_NEAR(result("xt.mtx").at(1), 0.7, 1e-15);
    const auto bad = loom("trisolve L.mtx b.mtx -o x.mtx --algorithm fastest");
    EXPECT_EQ(bad.status, 1);
    const auto help = loom("trisolve --help");
    for (const auto& entry : loom::sparse::sptrsv_algorithm_names) {
        EXPECT_NE(bad.output.find(entry.name), std::string::npos) << bad.output;
        EXPECT_NE(help.output.find(entry.description), std::string::npos) << entry.name;
    }
}

TEST_F(TrisolveCli, BenchChecksAndTimesEveryAlgorithm)
{
    const auto [run, report] =
        bench("sptrsv --generate poisson3d:12 --exec " + host_exec() + " --reps 2 --copy-mib 8");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(report["matrix"]["rows"], 1728);
    // level_set and supernodal: analysis, numeric, solve each.
    ASSERT_EQ(report["results"].size(), 6u);
    EXPECT_EQ(report["results"][2]["phase"], "solve");
    EXPECT_EQ(report["results"][2]["levels"], 34);  // 3 * 12 - 2 diagonal planes
    EXPECT_GT(report["results"][2]["gb_per_s"].get<double>(), 0);
    EXPECT_EQ(report["results"][5]["algorithm"], "supernodal");
}

TEST_F(TrisolveCli, BenchOpAndAlgorithmsAreTheNamesOfTheLibrarysTables)
{
    // --op takes every spelling of blas::op_names, --algorithms those of sptrsv_algorithm_names.
    const auto [run, report] = bench("sptrsv --generate poisson3d:6 --exec reference --reps 1 "
                                     "--copy-mib 8 --op transpose --algorithms levels");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(report["op"], "transpose");
    EXPECT_EQ(report["uplo"], "lower");
    ASSERT_EQ(report["results"].size(), 3u);  // level_set alone: analysis, numeric, solve
    EXPECT_EQ(report["results"][2]["algorithm"], "level_set");
    const auto bad = loom("bench sptrsv --algorithms fastest");
    EXPECT_EQ(bad.status, 1);
    for (const auto& entry : loom::sparse::sptrsv_algorithm_names) {
        EXPECT_NE(bad.output.find(entry.name), std::string::npos) << bad.output;
    }
    EXPECT_EQ(loom("bench sptrsv --op x").status, 1);
}

TEST_F(TrisolveCli, BenchSolvesWithACholmodFactor)
{
    if (!loom::sparse::cholmod_available()) GTEST_SKIP() << "built without CHOLMOD";
    const auto [run, report] = bench(
        "sptrsv --cholesky --generate poisson3d:8:27 --exec reference --reps 1 --copy-mib 8 "
        "--op t");
    ASSERT_EQ(run.status, 0) << run.output;
    ASSERT_EQ(report["results"].size(), 6u);
    EXPECT_EQ(report["results"][5]["algorithm"], "supernodal");
    EXPECT_EQ(report["results"][5]["phase"], "solve");
}

TEST_F(TrisolveCli, BenchSolvesWithANestedDissectionCholeskyPattern)
{
    // The stand-in for a CHOLMOD factor where CHOLMOD is missing: complete fill, so L holds
    // more than A's lower triangle (7-point 7^3: 343 + 3 * 294 entries); odd sides exercise
    // the uneven cuts of the dissection.
    const auto [run, report] =
        bench("sptrsv --nd-cholesky --generate poisson3d:7 --exec reference --reps 1 "
              "--copy-mib 8 --algorithms supernodal");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(report["matrix"]["rows"], 343);
    EXPECT_GT(report["matrix"]["nnz"].get<int>(), 343 + 3 * 294);
    ASSERT_EQ(report["results"].size(), 3u);  // --algorithms: supernodal alone
    EXPECT_EQ(report["results"][2]["algorithm"], "supernodal");
    EXPECT_LT(report["results"][2]["relative_error"].get<double>(), 1e-12);
    EXPECT_EQ(loom("bench sptrsv --nd-cholesky --generate poisson2d:7 --exec reference").status, 2);
}

}  // namespace

