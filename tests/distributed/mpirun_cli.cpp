// `loom solve` under mpirun, as a user runs it: the residual history and x of one process
// whatever the partition (a file, METIS) and block format, and a bad --partition raising one
// clear error on every rank. Not a *_test.cpp: it runs mpirun itself, once (distributed.cli).
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>

#include "support/random.hpp"
#include "tools/loom_program.hpp"

namespace loom::test {
namespace {

/// iteration,column,residual rows of a --history file: the residuals in order.
std::vector<double> history_residuals(const std::string& csv)
{
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);  // the header
    std::vector<double> out;
    while (std::getline(in, line)) out.push_back(std::stod(line.substr(line.rfind(',') + 1)));
    return out;
}

class MpirunCli : public LoomProgram {
protected:
    /// `mpirun -np ranks loom args` in the test's folder, with `environment` set (VAR=value).
    Outcome mpirun(int ranks, const std::string& args, const std::string& environment = "") const
    {
        const auto command = "cd '" + dir_.string() + "' && " + environment + " " + LOOM_MPIEXEC +
                             " " + std::to_string(ranks) + " '" + loom_program + "' " + args +
                             " > mpirun.out 2>&1";
        const int status = std::system(command.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read("mpirun.out")};
    }

    /// A --partition file giving row r of n to rank (r * 7 / 5) % ranks: scattered runs.
    std::string write_parts(size_type n, int ranks, const std::string& name) const
    {
        std::string text;
        for (size_type row = 0; row < n; ++row) text += std::to_string(row * 7 / 5 % ranks) + "\n";
        write(name, text);
        return name;
    }
};

constexpr const char* problem =
    "solve --generate poisson2d:20 --solver cg --precond jacobi --tol 1e-10 --exec reference";

TEST_F(MpirunCli, SolveWritesTheHistoryAndSolutionOfOneProcess)
{
    const auto one = loom(std::string(problem) + " -o x1.mtx --history h1.csv");
    ASSERT_EQ(one.status, 0) << one.output;
    const auto parts = write_parts(400, 3, "parts.txt");
    const auto three = mpirun(3, std::string(problem) + " --partition " + parts +
                                     " --format sellp -o x3.mtx --history h3.csv");
    ASSERT_EQ(three.status, 0) << three.output;
    EXPECT_NE(three.output.find("rows by parts.txt, blocks in sellp"), std::string::npos)
        << three.output;
    // Rank 0 writes, once.
    EXPECT_EQ(three.output.find("wrote     h3.csv"), three.output.rfind("wrote     h3.csv"))
        << three.output;
    const auto expected = history_residuals(read("h1.csv"));
    const auto got = history_residuals(read("h3.csv"));
    ASSERT_GT(expected.size(), 5U);
    // The same iterations up to the order of the reductions.
    EXPECT_NEAR(double(got.size()), double(expected.size()), 1.0);
    for (std::size_t it = 0; it < std::min(got.size(), expected.size()); ++it) {
        EXPECT_NEAR(got[it], expected[it], 1e-8 * expected[0]) << "iteration " << it;
    }
    LOOM_EXPECT_NEAR_VECTORS(result("x3.mtx"), result("x1.mtx"), 1e-8);
}

TEST_F(MpirunCli, MetisPartitionWithEllBlocks)
{
    const auto run = mpirun(2,
                            "solve --generate poisson2d:30 --solver bicgstab --precond ilu "
                            "--partition metis --format ell -o x.mtx");
#if LOOM_TEST_HAS_METIS
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("rows by metis, blocks in ell"), std::string::npos) << run.output;
    EXPECT_EQ(result("x.mtx").size(), 900U);
#else
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("METIS"), std::string::npos) << run.output;
#endif
}

/// How often `text` occurs in `output`.
std::size_t occurrences(const std::string& output, const std::string& text)
{
    std::size_t count = 0;
    for (auto at = output.find(text); at != std::string::npos; at = output.find(text, at + 1)) {
        ++count;
    }
    return count;
}

TEST_F(MpirunCli, BadPartitionsRaiseOneClearErrorOnEveryRank)
{
    // Too few rows, a line that is no rank: both ranks print the same error (each exits with
    // status 2), neither waits for the other. mpirun is told not to abort the job on a failing
    // rank: its abort costs seconds (its exit status is then 0 whatever the ranks return).
    const std::string no_abort = "OMPI_MCA_orte_abort_on_non_zero_status=0";
    write_parts(399, 2, "short.txt");
    auto run = mpirun(2, "solve --generate poisson2d:20 --partition short.txt", no_abort);
    EXPECT_EQ(occurrences(run.output, "'short.txt' gives a rank to 399 rows, A has 400"), 2U)
        << run.output;
    write("word.txt", "0\n1\n\nx1\n");
    run = mpirun(2, "solve --generate poisson2d:2 --partition word.txt", no_abort);
    EXPECT_EQ(occurrences(run.output, "line 4 of 'word.txt': 'x1' is not a rank"), 2U)
        << run.output;
    // Neither a partition's name nor a file: a command-line error before anything runs.
    EXPECT_EQ(loom("solve --generate poisson2d:4 --partition nowhere.txt").status, 1);
    // Without mpirun there are no ranks to lay out.
    run = loom("solve --generate poisson2d:4 --format ell");
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("need mpirun"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace loom::test
