// loom::launch::self_check on the host backends, and the dispatch to the CUDA one.
#include "loom/launch/self_check.hpp"

#include "launch/self_check.hpp"
#include "loom/base/error.hpp"
#include "loom/config.hpp"

namespace loom::launch {
namespace check {
#if LOOM_HAS_CUDA
std::vector<std::string> run_all_cuda(const std::shared_ptr<const Executor>& exec);
#endif
}  // namespace check

std::vector<std::string> self_check(const std::shared_ptr<const Executor>& exec)
{
    switch (exec->kind()) {
    case ExecKind::reference:
        return check::run_all<ReferenceExecutor, std::complex<double>>(exec);
    case ExecKind::omp:
        return check::run_all<OmpExecutor, std::complex<double>>(exec);
    case ExecKind::cuda:
#if LOOM_HAS_CUDA
        return check::run_all_cuda(exec);
#else
        throw NotCompiled("loom::launch::self_check", "the CUDA backend");
#endif
    }
    return {};
}

}  // namespace loom::launch
