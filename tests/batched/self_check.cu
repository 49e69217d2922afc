// The self-check on CUDA: the shared checks with thrust::complex on the device.
#include <thrust/complex.h>

#include "batched/self_check.hpp"

namespace loom::test::self_check {

std::vector<std::string> run_all_cuda(const std::shared_ptr<const Executor>& exec)
{
    return run_all<CudaExecutor, thrust::complex<double>>(exec);
}

}  // namespace loom::test::self_check
