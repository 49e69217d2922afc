#include <gtest/gtest.h>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/resources.hpp"
#include "support/executors.hpp"

namespace {

TEST(Executor, ReferenceAllocatesAndCopies)
{
    auto ref = loom::ReferenceExecutor::create();
    loom::Array<double> a(ref, {1.0, 2.0, 3.0});
    loom::Array<double> b(ref, a);
    EXPECT_EQ(b.to_host(), (std::vector<double>{1.0, 2.0, 3.0}));
    EXPECT_EQ(ref->name(), "reference");
}

TEST(Executor, ArrayFillOnEveryBackend)
{
    for (const auto& exec : loom::test::backends()) {
        loom::Array<int> a(exec, 33);
        a.fill(7);
        EXPECT_EQ(a.to_host(), std::vector<int>(33, 7)) << exec->name();
    }
}

TEST(Executor, ArrayCrossesExecutors)
{
    auto ref = loom::ReferenceExecutor::create();
    for (const auto& exec : loom::test::backends()) {
        loom::Array<float> host(ref, {1.f, 2.f, 3.f, 4.f});
        loom::Array<float> there(exec, host);
        loom::Array<float> back(ref, there);
        EXPECT_EQ(back.to_host(), host.to_host()) << exec->name();
    }
}

TEST(Executor, ArrayViewDoesNotOwn)
{
    auto ref = loom::ReferenceExecutor::create();
    std::vector<double> data{1, 2, 3};
    {
        auto v = loom::Array<double>::view(ref, 3, data.data());
        EXPECT_FALSE(v.is_owning());
        v.fill(5.0);
    }
    EXPECT_EQ(data, (std::vector<double>{5, 5, 5}));
}

TEST(Executor, NegativeSizeIsBadInput)
{
    EXPECT_THROW(loom::Array<double>(loom::ReferenceExecutor::create(), -1), loom::BadInput);
}

TEST(Executor, OmpThreadCountIsLimited)
{
    // 100000 threads crashed inside the OpenMP runtime.
    for (const int threads : {-1, loom::max_omp_threads + 1, 100000}) {
        EXPECT_THROW(loom::OmpExecutor::create(threads), loom::BadInput) << threads;
    }
    if (!loom::OmpExecutor::available()) GTEST_SKIP() << "no OpenMP";
    EXPECT_EQ(loom::OmpExecutor::create(3)->num_threads(), 3);
    EXPECT_EQ(loom::OmpExecutor::create(loom::max_omp_threads)->num_threads(),
              loom::max_omp_threads);
    const auto by_default = loom::OmpExecutor::create()->num_threads();
    EXPECT_GE(by_default, 1);
    EXPECT_LE(by_default, loom::max_omp_threads);
}

TEST(Executor, MakeExecutorByName)
{
    EXPECT_EQ(loom::make_executor("reference")->kind(), loom::ExecKind::reference);
    EXPECT_THROW(loom::make_executor("gpu"), loom::BadInput);
    if (!loom::CudaExecutor::available()) {
        EXPECT_THROW(loom::make_executor("cuda"), loom::Error);
    }
}

TEST(Executor, CudaExecutorReportsDevice)
{
    LOOM_CUDA_OR_SKIP(cuda);
    EXPECT_EQ(cuda->name(), "cuda:0");
    EXPECT_GT(cuda->multiprocessor_count(), 0);
}

}  // namespace
