// The `loom` program under an adversarial user (issue 18): options out of range, files that
// lie, outputs that must not be lost, exit codes that mean one thing each.
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/config.hpp"
#include "tools/loom_program.hpp"

namespace {

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

class HardeningCli : public loom::test::LoomProgram {
protected:
    /// An SPD 3 x 3 system: solves in a few iterations.
    void write_system() const
    {
        write("A.mtx",
              "%%MatrixMarket matrix coordinate real symmetric\n"
              "3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n");
        write("x.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n1\n1\n");
    }
};

TEST_F(HardeningCli, ThreadsOutsideTheLimitAreCommandLineErrors)
{
    write_system();
    // --threads 100000 crashed inside the OpenMP runtime (SIGSEGV).
    for (const std::string command :
         {"solve --generate poisson3d:4", "spmv A.mtx x.mtx -o y.mtx", "spgemm A.mtx A.mtx -o C.mtx",
          "transpose A.mtx -o At.mtx", "trisolve A.mtx x.mtx -o y.mtx", "color A.mtx -o c.txt",
          "bench spmv --generate poisson2d:4"}) {
        for (const std::string threads : {"100000", "0", "-2", "1025"}) {
            const auto run = loom(command + " --exec omp --threads " + threads);
            EXPECT_EQ(run.status, 1) << command << " --threads " << threads << "\n" << run.output;
            // CLI11 words the range its own way from version to version.
            EXPECT_TRUE(contains(run.output, "--threads") && contains(run.output, "1024"))
                << run.output;
        }
    }
}

TEST_F(HardeningCli, DeeplyNestedConfigsAreRefused)
{
    std::string deep, thirty;
    for (int level = 0; level < 6000; ++level) {
        deep += R"({"solver": "cg", "criteria": {"max_iters": 1}, "preconditioner": )";
    }
    deep += "\"none\"" + std::string(6000, '}');
    write("deep.json", deep);
    for (int level = 0; level < 30; ++level) {
        thirty += R"({"solver": "bicgstab", "criteria": {"max_iters": 1}, "preconditioner": )";
    }
    thirty += "\"none\"" + std::string(30, '}');
    write("thirty.json", thirty);
    for (const std::string file : {"deep.json", "thirty.json"}) {
        const auto run = loom("solve --generate poisson2d:4 --config " + file);
        EXPECT_EQ(run.status, 2) << run.output.substr(0, 500);
        EXPECT_TRUE(contains(run.output, "more than 8 solvers nested")) << run.output.substr(0, 500);
        EXPECT_LT(run.output.size(), 800u);
    }
}

TEST_F(HardeningCli, InternalErrorsExitWithTwoNotThree)
{
    // Each exited with 3, which means "not converged".
    write("huge.json", R"({"solver": "cg", "criteria": {"relative_residual": 1e400}})");
    for (const std::string args : {"solve --generate poisson2d:4 --config huge.json",
                                   "generate random:4611686018427387904:1:1 -o r.mtx"}) {
        const auto run = loom(args);
        EXPECT_EQ(run.status, 2) << args << "\n" << run.output;
        EXPECT_EQ(run.output.rfind("loom: error: ", 0), 0u) << args << "\n" << run.output;
    }
}

TEST_F(HardeningCli, VectorFileDeclaringHugeSizesIsRefused)
{
    // A 3e9 x 3e9 b (exit 3 before) is refused before any allocation, naming the memory.
    write_system();
    write("b.mtx", "%%MatrixMarket matrix coordinate real general\n"
                   "3000000000 3000000000 0\n");
    const auto run = loom("solve A.mtx b.mtx");
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "GB of memory")) << run.output;
}

TEST_F(HardeningCli, TolerancesAndCountsMustBeFiniteAndReadable)
{
    for (const std::string args : {"--tol 1e400", "--tol nan", "--tol -1", "--max-iters -3",
                                   "--restart 0"}) {
        const auto run = loom("solve --generate poisson2d:4 " + args);
        EXPECT_EQ(run.status, 1) << args << "\n" << run.output;
        // CLI11's range check printed the largest double with all its 309 digits.
        EXPECT_FALSE(contains(run.output, "17976931348623157")) << run.output;
        EXPECT_LT(run.output.size(), 400u) << run.output;
    }
}

TEST_F(HardeningCli, NonFiniteRightHandSideIsReported)
{
    write_system();
    write("b.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\nnan\n1\n");
    const auto run = loom("solve A.mtx b.mtx");
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "non-finite value (nan) at row 2, column 1")) << run.output;
    EXPECT_FALSE(contains(run.output, "residual  0.000e+00")) << run.output;
}

TEST_F(HardeningCli, UnconvergedSolveNeverOverwritesTheOutput)
{
    write_system();
    const std::string previous = "%%MatrixMarket matrix array real general\n3 1\n7\n7\n7\n";
    write("x_out.mtx", previous);
    const auto run = loom("solve A.mtx -o x_out.mtx --max-iters 1 --precond none");
    EXPECT_EQ(run.status, 3) << run.output;
    EXPECT_EQ(read("x_out.mtx"), previous);
    EXPECT_TRUE(contains(run.output, "wrote     x_out.not-converged.mtx")) << run.output;
    EXPECT_EQ(result("x_out.not-converged.mtx").size(), 3u);
    // Asked explicitly, the iterate replaces it.
    const auto forced =
        loom("solve A.mtx -o x_out.mtx --max-iters 1 --precond none --overwrite-unconverged");
    EXPECT_EQ(forced.status, 3) << forced.output;
    EXPECT_NE(read("x_out.mtx"), previous);
    // A converged solve writes the file itself.
    ASSERT_EQ(loom("solve A.mtx -o x_out.mtx").status, 0);
    EXPECT_NEAR(result("x_out.mtx")[0], 1.0, 1e-6);  // b = A * 1
}

TEST_F(HardeningCli, WriteErrorsExitNonZeroAndKeepThePreviousFile)
{
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    write_system();
    // --history to /dev/full printed "wrote" and exited 0; JSON reports likewise. (A device
    // is written in place: only regular files go through a temporary and a rename.)
    for (const std::string args :
         {"solve A.mtx --history /dev/full",
          "bench spmv --generate poisson2d:8 --reps 1 --copy-mib 1 --json /dev/full"}) {
        const auto run = loom(args);
        EXPECT_EQ(run.status, 2) << args << "\n" << run.output;
        EXPECT_TRUE(contains(run.output, "/dev/full")) << run.output;
    }
    // No temporary file is left behind, and the target is replaced only by a whole file.
    ASSERT_EQ(loom("generate poisson2d:4 -o A2.mtx").status, 0);
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
        EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp-")) << entry.path();
    }
}

TEST_F(HardeningCli, OutputsKeepTheirPermissions)
{
    ASSERT_EQ(loom("generate poisson2d:4 -o A.mtx").status, 0);
    ::chmod(path("A.mtx").c_str(), 0640);
    ASSERT_EQ(loom("generate poisson2d:5 -o A.mtx").status, 0);
    struct stat info {};
    ASSERT_EQ(::stat(path("A.mtx").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0640u);
}

TEST_F(HardeningCli, DenseOutputsMustBeMatrixMarket)
{
    write_system();
    // -o x.bin wrote Matrix Market text into a .bin file.
    // spmm and fusedmm took any name and failed only after computing.
    for (const std::string args :
         {"solve A.mtx -o x.bin", "spmv A.mtx x.mtx -o y.bin", "trisolve A.mtx x.mtx -o y.bin",
          "spmm A.mtx x.mtx -o y.bin", "fusedmm A.mtx x.mtx x.mtx x.mtx -o y.bin"}) {
        const auto run = loom(args);
        EXPECT_EQ(run.status, 1) << args << "\n" << run.output;
        EXPECT_TRUE(contains(run.output, "name the file .mtx")) << run.output;
    }
    EXPECT_FALSE(std::filesystem::exists(path("x.bin")));
    // Sparse outputs take either, and a bad name fails before any work.
    EXPECT_EQ(loom("spgemm A.mtx A.mtx -o C.bin").status, 0);
    EXPECT_EQ(loom("spgemm A.mtx A.mtx -o C.txt").status, 1);
    EXPECT_EQ(loom("sddmm A.mtx x.mtx x.mtx -o S.txt").status, 1);
}

TEST_F(HardeningCli, BadScalarsAreCommandLineErrorsEverywhere)
{
    write_system();
    // spadd exited 2 and spmv 1 for the same bad number.
    for (const std::string args : {"spadd A.mtx A.mtx -o C.mtx --alpha 1x",
                                   "spmv A.mtx x.mtx -o y.mtx --alpha 1x",
                                   "spadd A.mtx A.mtx -o C.mtx --beta 1e999"}) {
        EXPECT_EQ(loom(args).status, 1) << args;
    }
    // A long bad value is echoed in bounded form.
    const auto run = loom("spmv A.mtx x.mtx -o y.mtx --alpha " + std::string(5000, '7') + "x");
    EXPECT_EQ(run.status, 1);
    EXPECT_LT(run.output.size(), 1000u) << run.output.size();
}

TEST_F(HardeningCli, MessagesOfBadFilesAreReadable)
{
    // A BOM is skipped; CR line ends never reach the message raw.
    write("bom.mtx", "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n");
    EXPECT_EQ(loom("info bom.mtx").status, 0);
    write("crlf.mtx", "%%MatrixMarket matrix coordinate real general\r\n1 1 1\r\n1 1 x\r\n");
    const auto crlf = loom("info crlf.mtx");
    EXPECT_EQ(crlf.status, 2);
    EXPECT_FALSE(contains(crlf.output, "\r")) << crlf.output;
    write("cr.mtx", "%%MatrixMarket matrix coordinate real general\r1 1 1\r1 1 2\r");
    const auto cr = loom("info cr.mtx");
    EXPECT_EQ(cr.status, 2);
    EXPECT_TRUE(contains(cr.output, "bare carriage return")) << cr.output;
    EXPECT_FALSE(contains(cr.output, "\r")) << cr.output;
    // A symmetric file listing both triangles counted A(1, 2) twice.
    write("both.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 5\n"
                      "1 2 5\n");
    const auto both = loom("info both.mtx");
    EXPECT_EQ(both.status, 2);
    EXPECT_TRUE(contains(both.output, "both.mtx:5: entry (1, 2) lies above the diagonal"))
        << both.output;
}

TEST_F(HardeningCli, InfoReportsNonFiniteValues)
{
    write("nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 nan\n2 2 inf\n"
                     "1 2 1\n");
    const auto text = loom("info nan.mtx");
    EXPECT_EQ(text.status, 0) << text.output;
    EXPECT_TRUE(contains(text.output, "2 NaN or infinite (of 3)")) << text.output;
    const auto json = loom("info nan.mtx --json");
    EXPECT_TRUE(contains(json.output, "\"non_finite_values\": 2")) << json.output;
    write_system();
    EXPECT_TRUE(contains(loom("info A.mtx").output, "all finite"));
}

TEST_F(HardeningCli, ComplexFilesNeedNoType)
{
    write("C.mtx", "%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 1 2\n2 2 3 0\n");
    write("cx.mtx", "%%MatrixMarket matrix array complex general\n2 1\n1 0\n1 0\n");
    for (const std::string args : {"spmv C.mtx cx.mtx -o y.mtx", "spgemm C.mtx C.mtx -o D.mtx",
                                   "transpose C.mtx -o Ct.mtx", "spadd C.mtx C.mtx -o E.mtx"}) {
        const auto run = loom(args + " --exec reference");
        if (LOOM_HAS_COMPLEX_DOUBLE_) {
            EXPECT_EQ(run.status, 0) << args << "\n" << run.output;
        } else {
            // Read as complex (the type this build lacks), never refused as complex into real.
            EXPECT_EQ(run.status, 2) << args << "\n" << run.output;
            EXPECT_TRUE(contains(run.output, "complex-double")) << args << "\n" << run.output;
        }
    }
}

TEST_F(HardeningCli, SolveDefaultsToJacobi)
{
    const auto run = loom("solve --generate poisson2d:8");
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "preconditioner jacobi")) << run.output;
}

}  // namespace
