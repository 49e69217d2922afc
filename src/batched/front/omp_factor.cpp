// OpenMP front-level potrf, potrs, qr and apply_q (the launches: host_driver.hpp).
#include "batched/front/families.hpp"
#include "batched/front/host_driver.hpp"

namespace loom::batched::backend {

using Exec = OmpExecutor;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT_FACTOR)

}  // namespace loom::batched::backend
