// OpenMP multigrid setup kernels (the unified ones, multigrid/kernels/unified.hpp).
#include "base/omp/launch.hpp"
#include "base/instantiate.hpp"
#include "multigrid/kernels/kernels.hpp"
#include "multigrid/kernels/unified.hpp"

namespace loom::multigrid::unified {

LOOM_INSTANTIATE_MULTIGRID_ALL_KERNELS(OmpExecutor)

}  // namespace loom::multigrid::unified
