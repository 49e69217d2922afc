// A dense operand of the SpMM/SDDMM/FusedMM kernels as a logical matrix, whatever its layout:
// element (i, j) sits at data[i * row_step + j * col_step]. Row-major has col_step 1,
// column-major (a Dense holding the transpose) row_step 1. Usable on the host and in kernels.
#pragma once

#include "loom/launch/macros.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmm.hpp"

namespace loom::sparse {

template <typename T>
struct DenseOperand {
    T* data;
    long long row_step;
    long long col_step;

    LOOM_HOST_DEVICE LOOM_INLINE T& operator()(long long i, long long j) const
    {
        return data[i * row_step + j * col_step];
    }
    LOOM_HOST_DEVICE LOOM_INLINE bool row_major() const { return col_step == 1; }
};

/// The logical rows x cols shape of d stored with `layout`.
template <typename V>
dim2 logical_size(const matrix::Dense<V>& d, DenseLayout layout)
{
    return layout == DenseLayout::row_major ? d.size() : d.size().transposed();
}

template <typename V>
DenseOperand<const V> operand(const matrix::Dense<V>& d, DenseLayout layout)
{
    const long long stride = d.stride();
    if (layout == DenseLayout::row_major) return {d.data(), stride, 1};
    return {d.data(), 1, stride};
}

template <typename V>
DenseOperand<V> operand(matrix::Dense<V>& d, DenseLayout layout)
{
    const long long stride = d.stride();
    if (layout == DenseLayout::row_major) return {d.data(), stride, 1};
    return {d.data(), 1, stride};
}

}  // namespace loom::sparse
