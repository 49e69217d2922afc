// Argument checks and backend dispatch of SpMV (include/loom/sparse/spmv.hpp).
#include "loom/sparse/spmv.hpp"

#include <cstdint>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "sparse/spmv/checks.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse {
namespace {

constexpr const char* spmv_where = "loom::sparse::spmv";

using spmv_checks::check_spmv;
using spmv_checks::handled_trivially;

}  // namespace

Mode parse_mode(const std::string& text)
{
    return names_of(Mode{}).parse(text, "loom::sparse::parse_mode");
}

SpmvAlgorithm parse_spmv_algorithm(const std::string& text)
{
    return names_of(SpmvAlgorithm{}).parse(text, "loom::sparse::parse_spmv_algorithm");
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Csr<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y, const SpmvOptions& options)
{
    check_spmv(spmv_where, mode, A, x, y);
    // Checked before the trivial cases so that a bad option fails the same way on any input.
    if (options.algorithm == SpmvAlgorithm::vendor && A.executor()->is_host()) {
        throw NotSupported(spmv_where,
                           "SpmvAlgorithm::vendor is cuSPARSE, available on CUDA executors "
                           "only; A lives on " +
                               A.executor()->name() + " (automatic runs on every backend)");
    }
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(spmv_where, *A.executor(), spmv_csr, mode, alpha, A, x, beta, y,
                    options);
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Coo<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(spmv_where, mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(spmv_where, *A.executor(), spmv_coo, mode, alpha, A, x, beta, y);
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Ell<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(spmv_where, mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(spmv_where, *A.executor(), spmv_ell, mode, alpha, A, x, beta, y);
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Sellp<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(spmv_where, mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(spmv_where, *A.executor(), spmv_sellp, mode, alpha, A, x, beta, y);
}

template <typename V, typename I>
SpmvAlgorithm choose_spmv_algorithm(const matrix::Csr<V, I>& A)
{
    if (!A.executor()) {
        throw BadInput("loom::sparse::choose_spmv_algorithm", "A has no executor");
    }
    return LOOM_RUN_KERNEL("loom::sparse::choose_spmv_algorithm", *A.executor(),
                           choose_csr_algorithm, A);
}

#define LOOM_INSTANTIATE_SPMV(V, I)                                                            \
    template void spmv(Mode, V, const matrix::Csr<V, I>&, const matrix::Dense<V>&, V,          \
                       matrix::Dense<V>&, const SpmvOptions&);                                 \
    template void spmv(Mode, V, const matrix::Coo<V, I>&, const matrix::Dense<V>&, V,          \
                       matrix::Dense<V>&);                                                     \
    template void spmv(Mode, V, const matrix::Ell<V, I>&, const matrix::Dense<V>&, V,          \
                       matrix::Dense<V>&);                                                     \
    template void spmv(Mode, V, const matrix::Sellp<V, I>&, const matrix::Dense<V>&, V,        \
                       matrix::Dense<V>&);                                                     \
    template SpmvAlgorithm choose_spmv_algorithm(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV)

}  // namespace loom::sparse
