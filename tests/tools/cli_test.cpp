// The `loom` program end to end: it is run as a child process, as a user would run it.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/config.hpp"
#include "tools/loom_program.hpp"

namespace {

class Cli : public loom::test::LoomProgram {
protected:
    nlohmann::json info(const std::string& name) const
    {
        const auto run = loom("info " + name + " --json");
        EXPECT_EQ(run.status, 0) << run.output;
        return nlohmann::json::parse(run.output);
    }

    /// [[1 2 0], [0 3 0]]: a 2 x 3 matrix, and x = (1, 1, 1).
    void write_small_system() const
    {
        write("A.mtx",
              "%%MatrixMarket matrix coordinate real general\n"
              "2 3 3\n1 1 1\n1 2 2\n2 2 3\n");
        write("x.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n1\n1\n");
        write("xt.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n");
        write("y0.mtx", "%%MatrixMarket matrix array real general\n2 1\n10\n20\n");
    }

};

TEST_F(Cli, GeneratesPoissonAndReportsIt)
{
    ASSERT_EQ(loom("generate poisson2d:10 -o A.mtx").status, 0);
    const auto facts = info("A.mtx");
    EXPECT_EQ(facts["rows"], 100);
    EXPECT_EQ(facts["cols"], 100);
    EXPECT_EQ(facts["nnz"], 5 * 100 - 4 * 10);
    EXPECT_EQ(facts["stored_entries"], 460);
    EXPECT_EQ(facts["field"], "real");
    EXPECT_EQ(facts["symmetry"], "general");
    EXPECT_EQ(facts["row_length"]["min"], 3);
    EXPECT_EQ(facts["row_length"]["max"], 5);
    EXPECT_DOUBLE_EQ(facts["row_length"]["mean"].get<double>(), 4.6);

    const auto text = loom("info A.mtx");
    EXPECT_EQ(text.status, 0);
    EXPECT_NE(text.output.find("100 x 100"), std::string::npos) << text.output;
}

TEST_F(Cli, GeneratesBinaryByExtension)
{
    ASSERT_EQ(loom("generate poisson3d:4:27 -o A.bin").status, 0);
    const auto facts = info("A.bin");
    EXPECT_EQ(facts["rows"], 64);
    EXPECT_EQ(facts["format"], "binary csr");
    EXPECT_EQ(facts["row_length"]["max"], 27);
}

TEST_F(Cli, InfoCountsSymmetricEntriesBothWays)
{
    write("S.mtx",
          "%%MatrixMarket matrix coordinate real symmetric\n"
          "3 3 3\n1 1 4\n2 1 -1\n3 3 2\n");
    const auto facts = info("S.mtx");
    EXPECT_EQ(facts["nnz"], 4);
    EXPECT_EQ(facts["stored_entries"], 3);
    EXPECT_EQ(facts["symmetry"], "symmetric");
    EXPECT_EQ(facts["row_length"]["min"], 1);
    EXPECT_EQ(facts["row_length"]["max"], 2);
}

TEST_F(Cli, ConvertRoundTripKeepsTheMatrix)
{
    ASSERT_EQ(loom("generate powerlaw:300:6:7 -o A.mtx").status, 0);
    ASSERT_EQ(loom("convert A.mtx -o A.bin").status, 0);
    ASSERT_EQ(loom("convert A.bin -o B.mtx").status, 0);
    EXPECT_EQ(read("A.mtx"), read("B.mtx"));
    EXPECT_EQ(info("A.bin")["nnz"], info("A.mtx")["nnz"]);
}

TEST_F(Cli, ConvertKeepsComplexValues)
{
    write("Z.mtx",
          "%%MatrixMarket matrix coordinate complex hermitian\n"
          "2 2 2\n1 1 2 0\n2 1 1 -1\n");
#if !LOOM_HAS_COMPLEX_DOUBLE_
    // A build without complex values says which type the file needs.
    const auto refused = loom("convert Z.mtx -o Z.bin");
    EXPECT_EQ(refused.status, 2) << refused.output;
    EXPECT_NE(refused.output.find("complex-double"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("Z.mtx"), std::string::npos) << refused.output;
#else
    ASSERT_EQ(loom("convert Z.mtx -o Z.bin").status, 0);
    EXPECT_EQ(info("Z.bin")["field"], "complex");
    ASSERT_EQ(loom("convert Z.bin -o W.mtx").status, 0);
    const auto facts = info("W.mtx");
    EXPECT_EQ(facts["field"], "complex");
    EXPECT_EQ(facts["nnz"], 3);
#endif
}

TEST_F(Cli, SpmvMatchesKnownAnswerOnEveryBackendAndFormat)
{
    write_small_system();
    for (const auto& exec : execs()) {
        for (const std::string format : {"auto", "csr", "coo", "ell", "sellp"}) {
            SCOPED_TRACE(exec + " " + format);
            const auto run =
                loom("spmv A.mtx x.mtx -o y.mtx --exec " + exec + " --format " + format);
            ASSERT_EQ(run.status, 0) << run.output;
            EXPECT_EQ(result("y.mtx"), (std::vector<double>{3, 3}));
        }
        const auto scaled =
            loom("spmv A.mtx x.mtx -o y.mtx --alpha 2 --beta 0.5 --y0 y0.mtx --exec " + exec);
        ASSERT_EQ(scaled.status, 0) << scaled.output;
        EXPECT_EQ(result("y.mtx"), (std::vector<double>{11, 16}));
        const auto transposed = loom("spmv A.mtx xt.mtx -o y.mtx --mode t --exec " + exec);
        ASSERT_EQ(transposed.status, 0) << transposed.output;
        EXPECT_EQ(result("y.mtx"), (std::vector<double>{1, 8, 0}));
    }
}

TEST_F(Cli, SpmvComputesInComplex)
{
#if !LOOM_HAS_COMPLEX_DOUBLE_
    GTEST_SKIP() << "complex<double> is not among LOOM_VALUE_TYPES";
#else
    write_small_system();
    const auto run =
        loom("spmv A.mtx x.mtx -o y.mtx --type complex-double --alpha 0,1 --exec reference");
    ASSERT_EQ(run.status, 0) << run.output;
    using Z = std::complex<double>;
    EXPECT_EQ(result<Z>("y.mtx"), (std::vector<Z>{{0, 3}, {0, 3}}));
#endif
}

TEST_F(Cli, SpgemmMatchesKnownAnswerOnEveryBackend)
{
    write_small_system();  // A = [[1 2 0], [0 3 0]]
    write("B.mtx",
          "%%MatrixMarket matrix coordinate real general\n"
          "3 2 4\n3 1 7\n1 2 1\n2 1 1\n2 1 1\n");  // unsorted, B(2, 1) = 1 + 1
    const auto ref = loom::ReferenceExecutor::create();
    for (const auto& exec : execs()) {
        for (const std::string order : {"", " --unsorted"}) {
            SCOPED_TRACE(exec + order);
            const auto run = loom("spgemm A.mtx B.mtx -o C.mtx --exec " + exec + order);
            ASSERT_EQ(run.status, 0) << run.output;
            const auto C = loom::matrix::read_csr<double, loom::int32>(ref, path("C.mtx"));
            EXPECT_EQ(C.size(), (loom::dim2{2, 2}));
            EXPECT_EQ(C.row_ptrs().to_host(), (std::vector<loom::int32>{0, 2, 3}));
            EXPECT_EQ(C.col_idxs().to_host(), (std::vector<loom::int32>{0, 1, 0}));
            EXPECT_EQ(C.values().to_host(), (std::vector<double>{4, 1, 6}));
        }
    }
    const auto mismatch = loom("spgemm A.mtx A.mtx -o C.mtx --exec reference");
    EXPECT_EQ(mismatch.status, 2) << mismatch.output;
    EXPECT_NE(mismatch.output.find("as many columns"), std::string::npos) << mismatch.output;
    EXPECT_EQ(loom("spgemm A.mtx B.mtx").status, 1);  // no -o
    const auto vendor = loom("spgemm A.mtx B.mtx -o C.mtx --algorithm vendor --exec reference");
    EXPECT_EQ(vendor.status, 2) << vendor.output;
}

TEST_F(Cli, BenchSpgemmChecksTimesAndComparesWithEigen)
{
    const auto [run, report] =
        bench("spgemm --generate poisson2d:20 --exec " + host_exec() + " --reps 2");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("GFLOP/s"), std::string::npos) << run.output;
    // A * A of the symmetric 5-point Laplacian: sum of the squared row lengths, which are 5
    // (18 x 18 interior points), 4 (4 x 18 edge points) and 3 (4 corners)
    EXPECT_EQ(report["matrix"]["rows"], 400);
    EXPECT_EQ(report["product"]["multiply_adds"], 324 * 25 + 72 * 16 + 4 * 9);
    ASSERT_EQ(report["results"].size(), 1u);
    for (const char* phase : {"symbolic", "numeric", "total"}) {
        EXPECT_GT(report["results"][0][phase]["gflop_per_s"].get<double>(), 0) << phase;
    }
    if (!loom::OmpExecutor::available()) return;
    const auto [eigen, peer] =
        bench("spgemm --generate poisson2d:20 --exec omp --threads 2 --peer eigen --reps 2");
    if (eigen.output.find("not built with Eigen") != std::string::npos) {
        EXPECT_EQ(eigen.status, 2);
        return;
    }
    ASSERT_EQ(eigen.status, 0) << eigen.output;
    ASSERT_EQ(peer["results"].size(), 2u);
    EXPECT_EQ(peer["results"][1]["kernel"], "eigen");
    EXPECT_GT(peer["results"][0]["total_speedup_vs_peer"].get<double>(), 0);
}

/// Over --check-limit the oracle checks a sample of rows (the longest and evenly spread
/// stretches) and says what it checked and how long that took.
TEST_F(Cli, BenchSpgemmChecksASampleOfLargeProducts)
{
    // on OpenMP (or without it, the reference backend) the oracle is the reference backend
    const auto [run, report] = bench("spgemm --generate powerlaw:1500:6:5 --exec " +
                                     host_exec() + " --check-limit 3000 --reps 1");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("the longest and evenly spread stretches"), std::string::npos)
        << run.output;
    EXPECT_GE(report["checked_rows"].get<int>(), 64);  // at least one row per stretch
    EXPECT_LT(report["checked_rows"].get<int>(), 1500);
    EXPECT_EQ(report["oracle"], "the reference backend");
    EXPECT_GE(report["check_seconds"].get<double>(), 0);
}

TEST_F(Cli, WrongUsageExitsWithOne)
{
    write_small_system();
    EXPECT_EQ(loom("").status, 1);
    EXPECT_EQ(loom("frobnicate").status, 1);
    EXPECT_EQ(loom("spmv A.mtx x.mtx").status, 1);  // no -o
    EXPECT_EQ(loom("spmv A.mtx x.mtx -o y.mtx --mode q").status, 1);
    EXPECT_EQ(loom("spmv A.mtx x.mtx -o y.mtx --alpha two").status, 1);
    EXPECT_EQ(loom("bench spmv").status, 1);  // no matrix
    EXPECT_EQ(loom("bench spmv A.mtx --generate poisson2d:4").status, 1);
    const auto beta = loom("spmv A.mtx x.mtx -o y.mtx --beta 1");
    EXPECT_EQ(beta.status, 1);
    EXPECT_NE(beta.output.find("--y0"), std::string::npos) << beta.output;
    EXPECT_EQ(loom("--help").status, 0);
    EXPECT_EQ(loom("bench spmv --help").status, 0);
}

TEST_F(Cli, BadExecOrTypeIsRefusedAlikeByEveryCommand)
{
    write_small_system();
    // The line of the message that names the bad value, the same whichever command reads it.
    const auto refusal = [&](const std::string& args, const std::string& value) {
        const auto run = loom(args);
        EXPECT_EQ(run.status, 1) << args << "\n" << run.output;
        const auto at = run.output.find(value);
        EXPECT_NE(at, std::string::npos) << args << "\n" << run.output;
        if (at == std::string::npos) return std::string();
        const auto begin = run.output.rfind('\n', at) + 1;  // npos + 1 == 0
        return run.output.substr(begin, run.output.find('\n', at) - begin);
    };
    const auto spmv_exec = refusal("spmv A.mtx x.mtx -o y.mtx --exec bogus", "bogus");
    EXPECT_NE(spmv_exec.find("reference, omp, cuda, cuda:N"), std::string::npos) << spmv_exec;
    EXPECT_EQ(refusal("spadd A.mtx A.mtx -o C.mtx --exec bogus", "bogus"), spmv_exec);
    EXPECT_EQ(refusal("bench spmv --generate poisson2d:4 --exec bogus", "bogus"), spmv_exec);
    EXPECT_EQ(refusal("spmv A.mtx x.mtx -o y.mtx --exec cuda:x", "cuda:x"),
              refusal("solve --exec cuda:x", "cuda:x"));

    const auto spmv_type = refusal("spmv A.mtx x.mtx -o y.mtx --type bogus", "bogus");
    EXPECT_NE(spmv_type.find("complex-double"), std::string::npos) << spmv_type;
    EXPECT_EQ(refusal("spgemm A.mtx A.mtx -o C.mtx --type bogus", "bogus"), spmv_type);
    EXPECT_EQ(refusal("bench spmv --generate poisson2d:4 --type bogus", "bogus"), spmv_type);
    // Where auto is a choice, it is listed too.
    EXPECT_NE(refusal("spadd A.mtx A.mtx -o C.mtx --type bogus", "bogus").find("auto"),
              std::string::npos);
}

TEST_F(Cli, SpaddTakesAType)
{
    write_small_system();
    const auto sum = loom("spadd A.mtx A.mtx -o C.mtx --type double --exec reference");
    ASSERT_EQ(sum.status, 0) << sum.output;
    const auto C = loom::matrix::read_csr<double, loom::int32>(loom::ReferenceExecutor::create(),
                                                               path("C.mtx"));
    EXPECT_EQ(C.values().to_host(), (std::vector<double>{2, 4, 6}));
    // A complex scale with a real type is a loom::Error, as in spmv.
    EXPECT_EQ(loom("spadd A.mtx A.mtx -o C.mtx --alpha 1,1 --type double").status, 2);
}

TEST_F(Cli, LoomErrorsExitWithTwoAndSayWhat)
{
    write_small_system();
    write("bad.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 x 2\n");
    const auto cases = {
        "info missing.mtx",
        "info bad.mtx",
        "info A.txt",
        "generate poisson3d:zero -o A2.mtx",
        "spmv A.mtx xt.mtx -o y.mtx --exec reference",             // x has the wrong size
        "spmv A.mtx x.mtx -o y.mtx --alpha 1,1 --exec reference",  // complex alpha, real type
        "spmv A.mtx x.mtx -o y.mtx --algorithm vendor --exec reference",
        "bench spmv --generate poisson2d:8 --peer cusparse --exec reference",
    };
    for (const auto* args : cases) {
        const auto run = loom(args);
        EXPECT_EQ(run.status, 2) << args << "\n" << run.output;
        EXPECT_EQ(run.output.rfind("loom: error: ", 0), 0u) << args << "\n" << run.output;
    }
    EXPECT_NE(loom("info bad.mtx").output.find("bad.mtx:4"), std::string::npos);  // file:line
}

TEST_F(Cli, BenchSpmvChecksTimesAndWritesJson)
{
    const auto [run, report] = bench("spmv --generate poisson2d:30 --exec " + host_exec() +
                                     " --format csr,sellp --reps 3 --copy-mib 8");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("GB/s"), std::string::npos) << run.output;
    EXPECT_EQ(report["matrix"]["nnz"], 5 * 900 - 4 * 30);
    ASSERT_EQ(report["results"].size(), 2u);
    for (const auto& result : report["results"]) {
        EXPECT_LE(result["relative_error"].get<double>(), result["tolerance"].get<double>());
        EXPECT_GT(result["gb_per_s"].get<double>(), 0);
    }
    EXPECT_GT(report["copy_bandwidth"]["gb_per_s"].get<double>(), 0);
}

TEST_F(Cli, BenchSpmvAgainstEigen)
{
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    const auto [run, report] = bench(
        "spmv --generate poisson3d:8 --exec omp --threads 2 --peer eigen --reps 3 --copy-mib 8");
    if (run.output.find("not built with Eigen") != std::string::npos) {
        EXPECT_EQ(run.status, 2);
        GTEST_SKIP() << "built without Eigen";
    }
    ASSERT_EQ(run.status, 0) << run.output;
    ASSERT_EQ(report["results"].size(), 2u);
    EXPECT_EQ(report["results"][1]["kernel"], "eigen");
    EXPECT_DOUBLE_EQ(report["results"][1]["speedup_vs_peer"].get<double>(), 1.0);
}

TEST_F(Cli, SpaddAndTransposeMatchKnownAnswers)
{
    write_small_system();  // A = [[1 2 0], [0 3 0]]
    write("B.mtx",
          "%%MatrixMarket matrix coordinate real general\n"
          "2 3 3\n1 3 5\n2 2 1\n2 2 1\n");  // a duplicate entry: B(2, 2) = 2
    for (const auto& exec : execs()) {
        SCOPED_TRACE(exec);
        const auto sum = loom("spadd A.mtx B.mtx --alpha 2 --beta -1 -o C.mtx --exec " + exec);
        ASSERT_EQ(sum.status, 0) << sum.output;
        const auto C = loom::matrix::read_csr<double, loom::int32>(
            loom::ReferenceExecutor::create(), path("C.mtx"));
        EXPECT_EQ(C.row_ptrs().to_host(), (std::vector<loom::int32>{0, 3, 4}));
        EXPECT_EQ(C.col_idxs().to_host(), (std::vector<loom::int32>{0, 1, 2, 1}));
        EXPECT_EQ(C.values().to_host(), (std::vector<double>{2, 4, -5, 4}));

        const auto transposed = loom("transpose A.mtx -o At.mtx --exec " + exec);
        ASSERT_EQ(transposed.status, 0) << transposed.output;
        ASSERT_EQ(loom("transpose At.mtx -o Att.mtx --exec " + exec).status, 0);
        const auto At = loom::matrix::read_csr<double, loom::int32>(
            loom::ReferenceExecutor::create(), path("At.mtx"));
        EXPECT_EQ(At.size(), (loom::dim2{3, 2}));
        EXPECT_EQ(At.col_idxs().to_host(), (std::vector<loom::int32>{0, 0, 1}));
        EXPECT_EQ(At.values().to_host(), (std::vector<double>{1, 2, 3}));
        const auto ref = loom::ReferenceExecutor::create();
        const auto A = loom::matrix::read_csr<double, loom::int32>(ref, path("A.mtx"));
        const auto Att = loom::matrix::read_csr<double, loom::int32>(ref, path("Att.mtx"));
        EXPECT_EQ(Att.col_idxs().to_host(), A.col_idxs().to_host());
        EXPECT_EQ(Att.values().to_host(), A.values().to_host());
    }
    const auto mismatch = loom("spadd A.mtx At.mtx -o C.mtx --exec reference");
    EXPECT_EQ(mismatch.status, 2) << mismatch.output;
    EXPECT_NE(mismatch.output.find("same shape"), std::string::npos) << mismatch.output;
    EXPECT_EQ(loom("spadd A.mtx B.mtx").status, 1);  // no -o
}

TEST_F(Cli, BenchSpaddAndStencilCheckAndTime)
{
    const auto [spadd, report] = bench("spadd --generate random:2000:1500:8 --exec " +
                                       host_exec() + " --reps 2 --copy-mib 8");
    ASSERT_EQ(spadd.status, 0) << spadd.output;
    EXPECT_EQ(report["a"]["rows"], 2000);
    ASSERT_EQ(report["results"].size(), 3u);  // symbolic, numeric, total
    EXPECT_GT(report["results"][1]["gb_per_s"].get<double>(), 0);

    const auto [stencil, facts] = bench("spmv-stencil --grid 20 --points 27 --exec " +
                                        host_exec() + " --reps 2 --copy-mib 8");
    ASSERT_EQ(stencil.status, 0) << stencil.output;
    EXPECT_EQ(facts["rows"], 8000);
    ASSERT_EQ(facts["results"].size(), 2u);  // stencil, csr
    for (const auto& result : facts["results"]) {
        EXPECT_GT(result["fraction_of_copy_bandwidth"].get<double>(), 0);
    }
}

TEST_F(Cli, BenchIoTimesTextAndBinary)
{
    const auto [run, report] = bench("io --generate poisson2d:20 --reps 2");
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_GT(report["read_csr"]["mb_per_s"].get<double>(), 0);
    EXPECT_GT(report["read_binary_csr"]["gb_per_s"].get<double>(), 0);
}

TEST_F(Cli, BatchedBenchPeerIsANameOfItsTable)
{
    for (const char* bench : {"batched-spmv", "batched-solve"}) {
        const auto run = loom(std::string("bench ") + bench + " --peer nobody");
        EXPECT_EQ(run.status, 1) << run.output;
        EXPECT_NE(run.output.find("loop"), std::string::npos) << run.output;
        EXPECT_NE(run.output.find("none"), std::string::npos) << run.output;
    }
}

}  // namespace
