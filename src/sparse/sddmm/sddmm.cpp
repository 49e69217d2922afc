// Argument checks and backend dispatch of SDDMM (include/loom/sparse/sddmm.hpp).
#include "loom/sparse/sddmm.hpp"

#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate_storage.hpp"
#include "loom/base/error.hpp"
#include "sparse/sddmm/kernels.hpp"
#include "sparse/spmv/checks.hpp"

namespace loom::sparse {
namespace {

constexpr const char* sddmm_where = "loom::sparse::sddmm";

std::string described(const char* name, DenseLayout layout)
{
    return std::string(name) + " (" + to_string(layout) + ")";
}

template <typename V, typename I>
void check_sddmm(const matrix::Dense<V>& X, const matrix::Dense<V>& Y, const matrix::Csr<V, I>& S,
                 const SddmmOptions& options)
{
    const dim2 x = logical_size(X, options.x_layout);
    const dim2 y = logical_size(Y, options.y_layout);
    if (x.rows != S.rows()) {
        throw DimensionMismatch(sddmm_where, described("X", options.x_layout), x, "S", S.size(),
                                "X needs one row per row of S");
    }
    if (y.rows != S.cols()) {
        throw DimensionMismatch(sddmm_where, described("Y", options.y_layout), y, "S", S.size(),
                                "Y needs one row per column of S");
    }
    if (x.cols != y.cols) {
        throw DimensionMismatch(sddmm_where, described("X", options.x_layout), x,
                                described("Y", options.y_layout), y,
                                "X and Y need the same number of columns");
    }
    const auto& exec = S.executor();
    for (const auto* operand : {&X.executor(), &Y.executor()}) {
        if (!exec || !*operand || !exec->same_memory_as(**operand)) {
            throw BadInput(sddmm_where, "S, X and Y must live in one executor's memory (S is on " +
                                            spmv_checks::executor_name(exec) + ", X on " +
                                            spmv_checks::executor_name(X.executor()) + ", Y on " +
                                            spmv_checks::executor_name(Y.executor()) + ")");
        }
    }
    if (options.algorithm == SddmmAlgorithm::vendor && exec->is_host()) {
        throw NotSupported(sddmm_where,
                           "SddmmAlgorithm::vendor is cuSPARSE, available on CUDA executors "
                           "only; S lives on " +
                               exec->name() + " (automatic runs on every backend)");
    }
}

}  // namespace

SddmmAlgorithm parse_sddmm_algorithm(const std::string& text)
{
    return names_of(SddmmAlgorithm{}).parse(text, "loom::sparse::parse_sddmm_algorithm");
}

template <typename V, typename I>
void sddmm(compute_type_t<V> alpha, const matrix::Dense<V>& X, const matrix::Dense<V>& Y,
           compute_type_t<V> beta, matrix::Csr<V, I>& S, const SddmmOptions& options)
{
    check_sddmm(X, Y, S, options);
    if (S.nnz() == 0) return;
    const size_type k = logical_size(X, options.x_layout).cols;
    LOOM_RUN_KERNEL(sddmm_where, *S.executor(), sddmm_csr, alpha, operand(X, options.x_layout),
                    operand(Y, options.y_layout), k, beta, S, options.algorithm);
}

#define LOOM_INSTANTIATE_SDDMM(V, I)                                                         \
    template void sddmm(compute_type_t<V>, const matrix::Dense<V>&, const matrix::Dense<V>&, \
                        compute_type_t<V>, matrix::Csr<V, I>&, const SddmmOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM)

}  // namespace loom::sparse
