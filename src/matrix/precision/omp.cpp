// OpenMP precision conversions: the unified kernel on the OpenMP launchers.
#include "base/omp/launch.hpp"
#include "matrix/precision/unified.hpp"

namespace loom::matrix::unified {

#define LOOM_INSTANTIATE_PRECISION_OMP(To, From) \
    LOOM_INSTANTIATE_PRECISION_KERNELS(OmpExecutor, To, From);
LOOM_FOR_EACH_PRECISION_PAIR(LOOM_INSTANTIATE_PRECISION_OMP)

}  // namespace loom::matrix::unified
