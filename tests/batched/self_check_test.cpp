// The launcher's and routines' self-check on every backend (on CUDA when a GPU is present: the
// GPU coverage of the team layer and of the routines in every mode).
#include <gtest/gtest.h>

#include "loom/launch/self_check.hpp"
#include "support/executors.hpp"

namespace {

void expect_passes(const std::shared_ptr<const loom::Executor>& exec)
{
    SCOPED_TRACE(exec->name());
    for (const auto& failure : loom::launch::self_check(exec)) ADD_FAILURE() << failure;
}

TEST(SelfCheck, Reference) { expect_passes(loom::test::reference()); }

TEST(SelfCheck, Omp)
{
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    expect_passes(loom::OmpExecutor::create());
}

TEST(SelfCheck, Cuda)
{
    LOOM_CUDA_OR_SKIP(cuda);
    expect_passes(cuda);
}

}  // namespace
