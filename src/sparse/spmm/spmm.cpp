// Argument checks and backend dispatch of SpMM (include/loom/sparse/spmm.hpp).
#include "loom/sparse/spmm.hpp"

#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate_storage.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "sparse/spmm/kernels.hpp"
#include "sparse/spmv/checks.hpp"

namespace loom::sparse {
namespace {

constexpr const char* spmm_where = "loom::sparse::spmm";

using spmv_checks::executor_name;
using spmv_checks::overlap;
using spmv_checks::transposes;

std::string described(const char* name, DenseLayout layout)
{
    return std::string(name) + " (" + to_string(layout) + ")";
}

/// Shapes fit op(A) in the operands' layouts, one executor, C apart from B, a known option.
template <typename V, typename I>
void check_spmm(Mode mode, const matrix::Csr<V, I>& A, const matrix::Dense<V>& B,
                const matrix::Dense<V>& C, const SpmmOptions& options)
{
    const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
    const dim2 b = logical_size(B, options.b_layout);
    const dim2 c = logical_size(C, options.c_layout);
    const std::string op_name = std::string("op(A) with mode ") + to_string(mode);
    if (b.rows != op.cols) {
        throw DimensionMismatch(spmm_where, op_name, op, described("B", options.b_layout), b,
                                "B needs one row per column of op(A)");
    }
    if (c.rows != op.rows) {
        throw DimensionMismatch(spmm_where, op_name, op, described("C", options.c_layout), c,
                                "C needs one row per row of op(A)");
    }
    if (b.cols != c.cols) {
        throw DimensionMismatch(spmm_where, described("B", options.b_layout), b,
                                described("C", options.c_layout), c,
                                "B and C need the same number of columns");
    }
    const auto& exec = A.executor();
    for (const auto* operand : {&B.executor(), &C.executor()}) {
        if (!exec || !*operand || !exec->same_memory_as(**operand)) {
            throw BadInput(spmm_where, "A, B and C must live in one executor's memory (A is on " +
                                           executor_name(exec) + ", B on " +
                                           executor_name(B.executor()) + ", C on " +
                                           executor_name(C.executor()) + ")");
        }
    }
    if (overlap(B, C)) {
        throw BadInput(spmm_where, "C shares elements with B; the result needs its own storage");
    }
    if (options.algorithm == SpmmAlgorithm::vendor && exec->is_host()) {
        throw NotSupported(spmm_where,
                           "SpmmAlgorithm::vendor is cuSPARSE, available on CUDA executors "
                           "only; A lives on " +
                               exec->name() + " (automatic runs on every backend)");
    }
}

}  // namespace

DenseLayout parse_dense_layout(const std::string& text)
{
    return names_of(DenseLayout{}).parse(text, "loom::sparse::parse_dense_layout");
}

SpmmAlgorithm parse_spmm_algorithm(const std::string& text)
{
    return names_of(SpmmAlgorithm{}).parse(text, "loom::sparse::parse_spmm_algorithm");
}

/// C = beta C when alpha is zero or there is nothing to add; true when that was all.
template <typename V>
bool handled_trivially(compute_type_t<V> alpha, compute_type_t<V> beta, matrix::Dense<V>& C)
{
    if constexpr (is_storage_only_v<V>) {
        if (C.size().count() == 0) return true;
        if (alpha != 0.0f) return false;
        if (beta == 0.0f) C.fill(V{0.0f});
        // blas::scal takes no 16-bit storage: another beta runs the kernel with alpha = 0,
        // which rounds beta * C once like any other product.
        return beta == 0.0f || beta == 1.0f;
    } else {
        return spmv_checks::handled_trivially(alpha, beta, C);
    }
}

template <typename V, typename I>
void spmm(Mode mode, compute_type_t<V> alpha, const matrix::Csr<V, I>& A, const matrix::Dense<V>& B,
          compute_type_t<V> beta, matrix::Dense<V>& C, const SpmmOptions& options)
{
    check_spmm(mode, A, B, C, options);
    // The layout does not matter to C = beta C: every element of the Dense is scaled.
    if (handled_trivially(alpha, beta, C)) return;
    if constexpr (is_storage_only_v<V>) {
        // 16-bit storage computes op(A) = A^T (= A^H, the types are real) from an explicit
        // transpose on every backend and for cuSPARSE: a scatter into C would need 16-bit
        // atomic adds and would lose the float sums.
        if (transposes(mode)) return spmm(Mode::none, alpha, transpose(A), B, beta, C, options);
    }
    const size_type k = logical_size(B, options.b_layout).cols;
    const auto b = operand(B, options.b_layout);
    const auto c = operand(C, options.c_layout);
    const auto& exec = *A.executor();
    if (options.algorithm == SpmmAlgorithm::vendor) {  // on CUDA only (check_spmm)
        exec.run(detail::overloaded{
            [](const ReferenceExecutor&) {}, [](const OmpExecutor&) {},
            [&]([[maybe_unused]] const CudaExecutor& e) {
                LOOM_CUDA_CALL(spmm_where, cuda::spmm_csr_vendor(e, mode, alpha, A, b, beta, c, k,
                                                                 options.vendor_algorithm));
            }});
        return;
    }
    // The OpenMP kernel walks rows of A: op(A) = A^T or A^H is computed from an explicit
    // transpose (deterministic, no atomics), built per call since A's values may change
    // between calls without notice. The reference and CUDA scatter into C instead.
    if constexpr (!is_storage_only_v<V>) {  // the 16-bit types transposed above
        if (transposes(mode) && exec.kind() == ExecKind::omp) {
            const auto At = mode == Mode::transpose ? transpose(A) : conj_transpose(A);
            LOOM_RUN_KERNEL(spmm_where, exec, spmm_csr, Mode::none, alpha, At, b, beta, c, k,
                            options.algorithm);
            return;
        }
    }
    LOOM_RUN_KERNEL(spmm_where, exec, spmm_csr, mode, alpha, A, b, beta, c, k, options.algorithm);
}

template <typename V, typename I>
SpmmAlgorithm choose_spmm_algorithm(const matrix::Csr<V, I>& A, size_type k)
{
    if (!A.executor()) {
        throw BadInput("loom::sparse::choose_spmm_algorithm", "A has no executor");
    }
    return LOOM_RUN_KERNEL("loom::sparse::choose_spmm_algorithm", *A.executor(), choose_spmm, A, k);
}

#define LOOM_INSTANTIATE_SPMM(V, I)                                                                \
    template void spmm(Mode, compute_type_t<V>, const matrix::Csr<V, I>&, const matrix::Dense<V>&, \
                       compute_type_t<V>, matrix::Dense<V>&, const SpmmOptions&);                  \
    template SpmmAlgorithm choose_spmm_algorithm(const matrix::Csr<V, I>&, size_type);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM)

}  // namespace loom::sparse
