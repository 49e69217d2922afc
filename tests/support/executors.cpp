#include "support/executors.hpp"

namespace loom::test {

std::vector<std::shared_ptr<const Executor>> backends()
{
    std::vector<std::shared_ptr<const Executor>> result;
    if (OmpExecutor::available()) result.push_back(OmpExecutor::create());
    if (CudaExecutor::available()) result.push_back(CudaExecutor::create(0));
    return result;
}

}  // namespace loom::test
