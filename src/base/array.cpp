#include "loom/base/array.hpp"

#include <algorithm>

#include "base/array_kernels.hpp"
#include "base/dispatch.hpp"
#include "base/omp/launch.hpp"

namespace loom {

template <typename T>
void Array<T>::fill(const T& value)
{
    if (size_ == 0) return;
    // Not LOOM_RUN_KERNEL: the host backends fill here, only CUDA has a translation unit.
    exec_->run(detail::overloaded{
        [&](const ReferenceExecutor&) { std::fill_n(data_, size_, value); },
        [&](const OmpExecutor& e) { array_kernels::fill(e, data_, size_, value); },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL("loom::Array::fill", cuda::fill(e, data_, size_, value));
        }});
}

#define LOOM_INSTANTIATE_ARRAY(T) template void Array<T>::fill(const T&)
LOOM_FOR_EACH_ARRAY_TYPE(LOOM_INSTANTIATE_ARRAY);

}  // namespace loom
