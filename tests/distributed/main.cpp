// The distributed tests' main: MPI around GoogleTest. Every rank runs every test (a failure on
// any rank fails the run on all); rank 0 prints the usual progress, the other ranks only their
// failures, prefixed with their rank.
#include <mpi.h>

#include <cstdio>

#include <gtest/gtest.h>

namespace {

class RankFailures final : public ::testing::EmptyTestEventListener {
public:
    explicit RankFailures(int rank) : rank_(rank) {}

    void OnTestPartResult(const ::testing::TestPartResult& result) override
    {
        if (!result.failed()) return;
        std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_,
                     result.file_name() ? result.file_name() : "?", result.line_number(),
                     result.summary());
    }

private:
    int rank_;
};

}  // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new RankFailures(rank));
    }
    const int local = RUN_ALL_TESTS();
    int worst = 0;
    MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && worst != local) std::fprintf(stderr, "a test failed on another rank\n");
    MPI_Finalize();
    return worst;
}
