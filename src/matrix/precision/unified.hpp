// The precision conversion written once for OpenMP and CUDA on the unified launchers.
#pragma once

#include "base/parallel.hpp"
#include "matrix/precision/kernels.hpp"

namespace loom::matrix::unified {

template <typename Exec, typename To, typename From>
void convert_values(const Exec& exec, size_type rows, size_type cols, const From* in,
                    size_type in_stride, To* out, size_type out_stride)
{
    // The storage types are their own kernel types: their conversions run on the device.
    loom::detail::parallel_for(
        exec, rows, cols,
        [=] LOOM_HOST_DEVICE(size_type i, size_type j) {
            out[i * out_stride + j] = precision::converted<To>(in[i * in_stride + j]);
        },
        "loom::matrix::convert_precision");
}

}  // namespace loom::matrix::unified
