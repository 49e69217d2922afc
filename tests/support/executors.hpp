// Executors under test, and a skip for CUDA tests on machines without a GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/executor.hpp"

namespace loom::test {

inline std::shared_ptr<const Executor> reference() { return ReferenceExecutor::create(); }

/// The executors compared against the reference: omp, and cuda when a device is present.
std::vector<std::shared_ptr<const Executor>> backends();

/// The reference followed by backends(): for tests that check each one against exact answers.
std::vector<std::shared_ptr<const Executor>> all_executors();

/// The CUDA executor, or nullptr (after GTEST_SKIP) when no GPU is present.
#define LOOM_CUDA_OR_SKIP(var)                                                 \
    if (!::loom::CudaExecutor::available()) GTEST_SKIP() << "no CUDA device"; \
    auto var = ::loom::CudaExecutor::create(0)

}  // namespace loom::test
