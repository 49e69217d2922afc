// loom spmm, loom sddmm and loom fusedmm end to end, and their benches, run as a user would.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/matrix/io.hpp"
#include "tools/loom_program.hpp"

namespace {

class SpmmCli : public loom::test::LoomProgram {
protected:
    /// A = [[1 0 2], [0 3 0]], X = (1, 2), Y = (1, 2, 3), B = W = [[1 4], [2 5], [3 6]].
    void write_inputs() const
    {
        write("A.mtx",
              "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1\n1 3 2\n2 2 3\n");
        write("X.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n");
        write("Y.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
        write("B.mtx", "%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n4\n5\n6\n");
    }

    /// The values of a sparse result in row order.
    std::vector<double> sparse_result(const std::string& name) const
    {
        return loom::matrix::read_csr<double>(loom::ReferenceExecutor::create(), path(name))
            .values()
            .to_host();
    }
};

TEST_F(SpmmCli, MultipliesOnEveryBackend)
{
    write_inputs();
    for (const auto& exec : execs()) {
        SCOPED_TRACE(exec);
        auto run = loom("spmm A.mtx B.mtx -o C.mtx --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("C.mtx"), (std::vector<double>{7, 16, 6, 15}));
        // A^T X with X = (1, 2): (1, 6, 2).
        run = loom("spmm A.mtx X.mtx -o Ct.mtx --mode t --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("Ct.mtx"), (std::vector<double>{1, 6, 2}));
    }
    EXPECT_EQ(loom("spmm A.mtx X.mtx -o C.mtx").status, 2);  // X has 2 rows, A 3 columns
}

TEST_F(SpmmCli, SamplesAndFusesOnEveryBackend)
{
    write_inputs();
    for (const auto& exec : execs()) {
        SCOPED_TRACE(exec);
        // X Y^T = [[1 2 3], [2 4 6]] sampled at (0, 0), (0, 2), (1, 1).
        auto run = loom("sddmm A.mtx X.mtx Y.mtx -o S.mtx --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(sparse_result("S.mtx"), (std::vector<double>{1, 3, 4}));
        // Z = S W: row 0 = 1 * (1, 4) + 3 * (3, 6), row 1 = 4 * (2, 5).
        run = loom("fusedmm A.mtx X.mtx Y.mtx B.mtx -o Z.mtx --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("Z.mtx"), (std::vector<double>{10, 22, 8, 20}));
        // scale: s = a_ij (x_i . y_j) = 1, 6, 12.
        run = loom("fusedmm A.mtx X.mtx Y.mtx B.mtx --op scale -o Z.mtx --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("Z.mtx"), (std::vector<double>{19, 40, 24, 60}));
        run = loom("fusedmm A.mtx X.mtx Y.mtx B.mtx --op sigmoid -o Z.mtx --exec " + exec);
        ASSERT_EQ(run.status, 0) << run.output;
        const auto s = [](double d) { return 1 / (1 + std::exp(-d)); };
        const auto z = result("Z.mtx");
        ASSERT_EQ(z.size(), 4u);
        EXPECT_NEAR(z[0], s(1) * 1 + s(3) * 3, 1e-14);
        EXPECT_NEAR(z[3], s(4) * 5, 1e-14);
    }
    EXPECT_EQ(loom("fusedmm A.mtx X.mtx Y.mtx B.mtx --op tanh -o Z.mtx").status, 1);
    EXPECT_EQ(loom("sddmm A.mtx Y.mtx X.mtx -o S.mtx").status, 2);
}

TEST_F(SpmmCli, SixteenBitStorageOnEveryBackend)
{
    write_inputs();
    // Small integers: exact in half and bfloat16, and their float sums too. Both precisions
    // per backend, one command each (every command takes both).
    for (const auto& exec : execs()) {
        SCOPED_TRACE(exec);
        const std::string on = " --exec " + exec;
        auto run = loom("spmm A.mtx B.mtx -o C.mtx --precision fp16" + on);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("C.mtx"), (std::vector<double>{7, 16, 6, 15}));
        run = loom("sddmm A.mtx X.mtx Y.mtx -o S.mtx --precision bf16" + on);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(sparse_result("S.mtx"), (std::vector<double>{1, 3, 4}));
        run = loom("fusedmm A.mtx X.mtx Y.mtx B.mtx --op scale -o Z.mtx --precision fp16" + on);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("Z.mtx"), (std::vector<double>{19, 40, 24, 60}));
        // A^T X with X = (1, 2): (1, 6, 2), through the explicit 16-bit transpose.
        run = loom("spmm A.mtx X.mtx -o Ct.mtx --mode t --precision bf16" + on);
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_EQ(result("Ct.mtx"), (std::vector<double>{1, 6, 2}));
    }
    // fp8 is no precision.
    EXPECT_EQ(loom("spmm A.mtx B.mtx -o C.mtx --precision fp8").status, 1);
}

TEST_F(SpmmCli, BenchesSixteenBitStorageWithASampledCheck)
{
    for (const std::string kernel : {"spmm", "fusedmm"}) {
        SCOPED_TRACE(kernel);
        const auto run = loom("bench " + kernel +
                              " --generate poisson2d:8 --k 33 --reps 1 --precision bf16 "
                              "--exec omp --threads 1 --copy-mib 1");
        ASSERT_EQ(run.status, 0) << run.output;
        EXPECT_NE(run.output.find("bf16 values"), std::string::npos) << run.output;
    }
    EXPECT_EQ(loom("bench sddmm --generate poisson2d:4 --precision fp16 --peer eigen --copy-mib 1")
                  .status,
              2);
}

}  // namespace
