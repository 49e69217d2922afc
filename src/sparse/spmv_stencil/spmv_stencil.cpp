// Argument checks and backend dispatch of the stencil SpMV (loom/sparse/spmv_stencil.hpp).
#include "loom/sparse/spmv_stencil.hpp"

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "sparse/spmv/checks.hpp"
#include "sparse/spmv_stencil/kernels.hpp"

namespace loom::sparse {
namespace {

constexpr const char* where = "loom::sparse::spmv (Stencil)";

}  // namespace

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Stencil<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    spmv_checks::check_spmv(where, mode, A, x, y);
    if (spmv_checks::handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(where, *A.executor(), spmv_stencil, mode, alpha, A, x, beta, y);
}

#define LOOM_INSTANTIATE_SPMV_STENCIL(V, I)                                                    \
    template void spmv(Mode, V, const matrix::Stencil<V, I>&, const matrix::Dense<V>&, V,      \
                       matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_STENCIL)

}  // namespace loom::sparse
