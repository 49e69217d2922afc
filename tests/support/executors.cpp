#include "support/executors.hpp"

namespace loom::test {

std::vector<std::shared_ptr<const Executor>> backends()
{
    std::vector<std::shared_ptr<const Executor>> result;
    if (OmpExecutor::available()) result.push_back(OmpExecutor::create());
    if (CudaExecutor::available()) result.push_back(CudaExecutor::create(0));
    return result;
}

std::vector<std::shared_ptr<const Executor>> all_executors()
{
    auto result = backends();
    result.insert(result.begin(), reference());
    return result;
}

}  // namespace loom::test
