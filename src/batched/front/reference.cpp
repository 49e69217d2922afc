// Reference front-level batched calls: the Serial routines, one matrix after the other on the
// calling thread, whatever the launch. The tests check them against plain loops written
// independently of the routines (tests/batched/batched_support.hpp).
#include "batched/front/families.hpp"
#include "batched/front/host_driver.hpp"

namespace loom::batched::backend {

using Exec = ReferenceExecutor;
#define LOOM_INSTANTIATE_BATCHED_FRONT(V)                                                      \
    LOOM_INSTANTIATE_BATCHED_FRONT_BLAS(V)                                                     \
    LOOM_INSTANTIATE_BATCHED_FRONT_LU(V) LOOM_INSTANTIATE_BATCHED_FRONT_FACTOR(V)              \
    LOOM_INSTANTIATE_BATCHED_FRONT_VECTOR(V) LOOM_INSTANTIATE_BATCHED_FRONT_SOLVE(V)           \
    LOOM_INSTANTIATE_BATCHED_FRONT_UTV(V)
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT)

}  // namespace loom::batched::backend
