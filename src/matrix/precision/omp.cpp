// OpenMP precision conversions (matrix/precision/unified.hpp).
#include "base/omp/launch.hpp"
#include "matrix/precision/unified.hpp"

namespace loom::matrix::omp {

template <typename To, typename From>
void convert_values(const OmpExecutor& exec, size_type rows, size_type cols, const From* in,
                    size_type in_stride, To* out, size_type out_stride)
{
    unified::convert_values(exec, rows, cols, in, in_stride, out, out_stride);
}

#define LOOM_INSTANTIATE_PRECISION_OMP(To, From) \
    LOOM_INSTANTIATE_PRECISION_KERNELS(OmpExecutor, To, From);
LOOM_FOR_EACH_PRECISION_PAIR(LOOM_INSTANTIATE_PRECISION_OMP)

}  // namespace loom::matrix::omp
