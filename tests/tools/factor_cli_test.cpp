// `loom factor`, `loom bench ilu` and the incomplete-factorization preconditioners of
// `loom solve`, run as a user would run them.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/matrix/io.hpp"
#include "loom/sparse/ilu.hpp"
#include "support/shared_matrices.hpp"
#include "tools/loom_program.hpp"

namespace {

class FactorCli : public loom::test::LoomProgram {
protected:
    /// [[4 -1 0], [-1 4 -1], [0 -1 4]]: tridiagonal, so ILU(0) and IC(0) are exact.
    void write_tridiagonal() const
    {
        write("A.mtx",
              "%%MatrixMarket matrix coordinate real general\n"
              "3 3 7\n1 1 4\n1 2 -1\n2 1 -1\n2 2 4\n2 3 -1\n3 2 -1\n3 3 4\n");
    }

    std::vector<double> values(const std::string& name) const
    {
        return loom::matrix::read_csr<double, loom::int32>(loom::ReferenceExecutor::create(),
                                                           path(name))
            .values()
            .to_host();
    }
};

TEST_F(FactorCli, FactorWritesTheExactFactorsOfATridiagonal)
{
    write_tridiagonal();
    for (const auto& exec : execs()) {
        SCOPED_TRACE(exec);
        const auto ilu = loom("factor A.mtx --type ilu0 -o L.mtx U.mtx --exec " + exec);
        ASSERT_EQ(ilu.status, 0) << ilu.output;
        // u11 = 4, l21 = -1/4, u22 = 4 - 1/4, l32 = -1/u22, u33 = 4 - 1/u22.
        const double u22 = 3.75;
        const auto l = values("L.mtx");
        const auto u = values("U.mtx");
        const std::vector<double> l_expected{1, -0.25, 1, -1 / u22, 1};
        const std::vector<double> u_expected{4, -1, u22, -1, 4 - 1 / u22};
        ASSERT_EQ(l.size(), l_expected.size());
        ASSERT_EQ(u.size(), u_expected.size());
        for (std::size_t k = 0; k < l.size(); ++k) EXPECT_NEAR(l[k], l_expected[k], 1e-14);
        for (std::size_t k = 0; k < u.size(); ++k) EXPECT_NEAR(u[k], u_expected[k], 1e-14);

        const auto ic = loom("factor A.mtx --type ic0 -o C.mtx --exec " + exec);
        ASSERT_EQ(ic.status, 0) << ic.output;
        const auto c = values("C.mtx");
        ASSERT_EQ(c.size(), 5u);
        EXPECT_NEAR(c[0], 2, 1e-14);
        EXPECT_NEAR(c[1], -0.5, 1e-14);
        EXPECT_NEAR(c[2], std::sqrt(u22), 1e-14);
    }
    const auto missing_u = loom("factor A.mtx --type ilu0 -o L.mtx");
    EXPECT_EQ(missing_u.status, 2) << missing_u.output;
    EXPECT_NE(missing_u.output.find("give 2 output files"), std::string::npos) << missing_u.output;
    EXPECT_EQ(loom("factor A.mtx --type lu -o L.mtx U.mtx").status, 1);
}

TEST_F(FactorCli, ZeroPivotNamesTheRowAndShiftingPasses)
{
    write("Z.mtx",
          "%%MatrixMarket matrix coordinate real general\n"
          "2 2 3\n1 2 1\n2 1 1\n2 2 1\n");  // a11 = 0
    const auto failed = loom("factor Z.mtx --type ilu0 -o L.mtx U.mtx --exec reference");
    EXPECT_EQ(failed.status, 2);
    EXPECT_NE(failed.output.find("row 0"), std::string::npos) << failed.output;
    const auto shifted =
        loom("factor Z.mtx --type ilu0 --shift on -o L.mtx U.mtx --exec reference");
    EXPECT_EQ(shifted.status, 0) << shifted.output;
    EXPECT_NE(shifted.output.find("diagonal shift"), std::string::npos) << shifted.output;
}

TEST_F(FactorCli, TypeAndShiftAreTheNamesOfTheLibrarysTables)
{
    write("Z.mtx",
          "%%MatrixMarket matrix coordinate real general\n"
          "2 2 3\n1 2 1\n2 1 1\n2 2 1\n");  // a11 = 0
    const auto help = loom("factor --help");
    for (const auto& entry : loom::sparse::ilu_kind_names) {
        EXPECT_NE(help.output.find(entry.description), std::string::npos) << entry.name;
    }
    const auto bad = loom("factor Z.mtx --type ilu0 --shift sometimes -o L.mtx U.mtx");
    EXPECT_EQ(bad.status, 1);
    for (const auto& entry : loom::sparse::diagonal_shift_names) {
        EXPECT_NE(bad.output.find(entry.name), std::string::npos) << bad.output;
    }
    // "auto" is an alias of automatic, which does not shift an ILU kind: row 0 breaks down.
    const auto automatic =
        loom("factor Z.mtx --type ilu0 --shift auto -o L.mtx U.mtx --exec reference");
    EXPECT_EQ(automatic.status, 2) << automatic.output;
    EXPECT_NE(automatic.output.find("row 0"), std::string::npos) << automatic.output;
}

TEST_F(FactorCli, BenchIluChecksAndTimes)
{
    const auto [run, report] =
        bench("ilu --generate poisson2d:30 --kind ic0 --exec " + host_exec() + " --reps 2");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(report["a"]["rows"], 900);
    EXPECT_EQ(report["kind"], "ic0");
    ASSERT_EQ(report["results"].size(), 5u);  // symbolic, numeric, solve analysis, solve, precond setup
    EXPECT_LT(report["quality_loom"].get<double>(), 1);
}

TEST_F(FactorCli, BenchIluTakesTheOptionsOfFactorAndNamesItsPeers)
{
    // --kind, --peer: names of their tables, a misspelling a usage error listing them.
    const auto bad_kind = loom("bench ilu --kind ilu9");
    EXPECT_EQ(bad_kind.status, 1);
    for (const auto& entry : loom::sparse::ilu_kind_names) {
        EXPECT_NE(bad_kind.output.find(entry.name), std::string::npos) << bad_kind.output;
    }
    const auto bad_peer = loom("bench ilu --peer mkl");
    EXPECT_EQ(bad_peer.status, 1);
    for (const auto* peer : {"none", "eigen", "csrilu02"}) {
        EXPECT_NE(bad_peer.output.find(peer), std::string::npos) << bad_peer.output;
    }
    // The checks and options of `loom factor`: --level >= 0, --drop-tolerance, --shift.
    EXPECT_EQ(loom("bench ilu --level -1").status, 1);
    EXPECT_EQ(loom("bench ilu --shift sometimes").status, 1);
    const auto [run, report] =
        bench("ilu --generate poisson2d:12 --kind ilut --drop-tolerance 1e-3 --shift on "
              "--peer none --exec reference --reps 1");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(report["kind"], "ilut");
    const auto help = loom("bench ilu --help");
    EXPECT_NE(help.output.find("--drop-tolerance"), std::string::npos) << help.output;
    EXPECT_NE(help.output.find("cuSPARSE csrilu02"), std::string::npos) << help.output;
    const auto factor_help = loom("factor --help");
    EXPECT_NE(factor_help.output.find("--steps"), std::string::npos) << factor_help.output;
}

TEST_F(FactorCli, SolveTakesTheIncompleteFactorizations)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRIX("sherman1");
    const auto sherman1 = loom::test::shared_matrix_path("sherman1");
    for (const auto* precond : {"ilu", "ilut", "parilu", "isai"}) {
        SCOPED_TRACE(precond);
        const auto run = loom("solve '" + sherman1 + "' --solver gmres --precond " + precond +
                              " --tol 1e-8 --max-iters 3000 --exec reference");
        ASSERT_EQ(run.status, 0) << run.output;
    }
}

}  // namespace
