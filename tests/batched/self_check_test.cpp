// The launcher's and routines' self-check on every backend (on CUDA when a GPU is present: the
// GPU coverage of the team layer and of the routines in every mode).
#include <gtest/gtest.h>

#include <complex>

#include "batched/self_check.hpp"
#include "support/executors.hpp"

namespace {

namespace check = loom::test::self_check;

void expect_no_failures(const std::shared_ptr<const loom::Executor>& exec,
                        const std::vector<std::string>& failures)
{
    SCOPED_TRACE(exec->name());
    for (const auto& failure : failures) ADD_FAILURE() << failure;
}

TEST(SelfCheck, Reference)
{
    const auto exec = loom::test::reference();
    expect_no_failures(exec, check::run_all<loom::ReferenceExecutor, std::complex<double>>(exec));
}

TEST(SelfCheck, Omp)
{
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    const std::shared_ptr<const loom::Executor> exec = loom::OmpExecutor::create();
    expect_no_failures(exec, check::run_all<loom::OmpExecutor, std::complex<double>>(exec));
}

TEST(SelfCheck, Cuda)
{
    LOOM_CUDA_OR_SKIP(cuda);
#if LOOM_HAS_CUDA
    expect_no_failures(cuda, check::run_all_cuda(cuda));
#else
    (void)cuda;
#endif
}

}  // namespace
