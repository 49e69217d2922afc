// Per-backend kernels behind Array (the host ones are inline in array.cpp).
#pragma once

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"

namespace loom::cuda {

template <typename T>
void fill(const CudaExecutor& exec, T* data, size_type n, T value);

}  // namespace loom::cuda
