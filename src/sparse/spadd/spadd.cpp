// SpAdd: argument checks, the handle, and backend dispatch (include/loom/sparse/spadd.hpp).
#include "loom/sparse/spadd.hpp"

#include <algorithm>
#include <limits>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "sparse/aliasing.hpp"
#include "sparse/analyzed_operands.hpp"
#include "sparse/spadd/kernels.hpp"
#include "sparse/spadd/state.hpp"

namespace loom::sparse {
namespace {

constexpr const char* symbolic_where = "loom::sparse::spadd_symbolic";
constexpr const char* numeric_where = "loom::sparse::spadd_numeric";

template <typename V, typename I>
void check_on(const char* where, const std::shared_ptr<const Executor>& exec,
              const matrix::Csr<V, I>& M, const char* name)
{
    if (!M.executor() || !M.executor()->same_memory_as(*exec)) {
        throw BadInput(where, std::string(name) + " must live in A's memory (A is on " +
                                  exec->name() + ", " + name + " on " +
                                  detail::executor_name(M.executor()) + ")");
    }
}

/// NotSupported unless cuSPARSE can add A and B.
template <typename V, typename I>
void check_vendor(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B)
{
    if (A.executor()->kind() != ExecKind::cuda) {
        throw NotSupported(symbolic_where,
                           "SpaddAlgorithm::vendor is cuSPARSE, available on CUDA executors "
                           "only; A lives on " + A.executor()->name() + " (use native)");
    }
    if (sizeof(I) != sizeof(int32)) {
        throw NotSupported(symbolic_where,
                           "cuSPARSE's csrgeam2 takes 32-bit indices only; this matrix has " +
                               std::string(type_name<I>()) + " indices (use native)");
    }
    for (const auto* M : {&A, &B}) {
        if (column_order(*M) != ColumnOrder::increasing) {
            throw NotSupported(symbolic_where,
                               std::string("cuSPARSE's csrgeam2 needs rows sorted without "
                                           "duplicates, and ") + (M == &A ? "A" : "B") +
                                   " has " + to_string(column_order(*M)) +
                                   " columns (use native, or sparse::merge_duplicates first)");
        }
    }
}

}  // namespace

SpaddAlgorithm parse_spadd_algorithm(const std::string& text)
{
    return names_of(SpaddAlgorithm{}).parse(text, "loom::sparse::parse_spadd_algorithm");
}

template <typename V, typename I>
SpaddAlgorithm SpaddHandle<V, I>::algorithm() const noexcept
{
    const auto* state = this->state();
    return state ? state->algorithm : this->options().algorithm;
}

template <typename V, typename I>
size_type SpaddHandle<V, I>::result_nnz() const
{
    return this->analysis("loom::sparse::SpaddHandle::result_nnz").c.nnz;
}

template <typename V, typename I>
void spadd_symbolic(SpaddHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                    const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    const auto& exec = A.executor();
    if (!exec) throw BadInput(symbolic_where, "A has no executor (it was default-constructed)");
    check_on(symbolic_where, exec, B, "B");
    detail::check_not_aliased(symbolic_where, C, "C", A, "A");
    detail::check_not_aliased(symbolic_where, C, "C", B, "B");
    if (A.size() != B.size()) {
        throw DimensionMismatch(symbolic_where, "A", A.size(), "B", B.size(),
                                "A and B must have the same shape");
    }
    if (A.nnz() + B.nnz() > std::numeric_limits<I>::max()) {
        throw NotSupported(symbolic_where,
                           "nnz(A) + nnz(B) = " + std::to_string(A.nnz() + B.nnz()) +
                               " may not fit the index type " + type_name<I>() +
                               " of the sum (use 64-bit indices)");
    }
    auto state = std::make_unique<detail::SpaddState<V, I>>();
    state->exec = exec;
    state->algorithm = handle.options().algorithm == SpaddAlgorithm::vendor
                           ? SpaddAlgorithm::vendor
                           : SpaddAlgorithm::native;
    if (state->algorithm == SpaddAlgorithm::vendor) check_vendor(A, B);

    matrix::Csr<V, I> result;
    exec->run(loom::detail::overloaded{
        [&](const ReferenceExecutor& e) {
            reference::spadd_symbolic(e, A, B, result, state->a_positions, state->b_positions);
        },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            LOOM_OMP_CALL(symbolic_where, omp::spadd_symbolic(e, A, B, result, state->a_positions,
                                                              state->b_positions));
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(symbolic_where, {
                if (state->algorithm == SpaddAlgorithm::vendor) {
                    state->vendor = cuda::spadd_vendor_symbolic(e, A, B, result);
                } else {
                    cuda::spadd_symbolic(e, A, B, result, state->a_positions, state->b_positions);
                }
            });
        }});
    const auto check = handle.options().pattern_check;
    state->a = pattern_fingerprint(A, check);
    state->b = pattern_fingerprint(B, check);
    C = std::move(result);
    state->c = pattern_fingerprint(C, check);  // after the move, which empties C's plan cache
    handle.adopt(std::move(state));
}

template <typename V, typename I>
void spadd_numeric(const SpaddHandle<V, I>& handle, V alpha, const matrix::Csr<V, I>& A, V beta,
                   const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    const auto& state = handle.analysis(numeric_where, "spadd_symbolic");
    const auto& exec = state.exec;
    detail::check_not_aliased(numeric_where, C, "C", A, "A");
    detail::check_not_aliased(numeric_where, C, "C", B, "B");
    detail::check_analyzed_operands<V, I>(
        numeric_where, *exec, handle.options().pattern_check,
        {{"A", state.a, A}, {"B", state.b, B}, {"C", state.c, C}});
    if (C.nnz() == 0) return;
    exec->run(loom::detail::overloaded{
        [&](const ReferenceExecutor& e) {
            reference::spadd_numeric(e, alpha, A, beta, B, state.a_positions, state.b_positions,
                                     C);
        },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            LOOM_OMP_CALL(numeric_where, omp::spadd_numeric(e, alpha, A, beta, B,
                                                            state.a_positions,
                                                            state.b_positions, C));
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(numeric_where, {
                if (state.algorithm == SpaddAlgorithm::vendor) {
                    cuda::spadd_vendor_numeric(e, state.vendor, alpha, A, beta, B, C);
                } else {
                    cuda::spadd_numeric(e, alpha, A, beta, B, state.a_positions,
                                        state.b_positions, C);
                }
            });
        }});
}

template <typename V, typename I>
matrix::Csr<V, I> spadd(V alpha, const matrix::Csr<V, I>& A, V beta, const matrix::Csr<V, I>& B,
                        const SpaddOptions& options)
{
    SpaddHandle<V, I> handle(options);
    matrix::Csr<V, I> C;
    spadd_symbolic(handle, A, B, C);
    spadd_numeric(handle, alpha, A, beta, B, C);
    return C;
}

#define LOOM_INSTANTIATE_SPADD(V, I)                                                           \
    template class SpaddHandle<V, I>;                                                          \
    template void spadd_symbolic(SpaddHandle<V, I>&, const matrix::Csr<V, I>&,                 \
                                 const matrix::Csr<V, I>&, matrix::Csr<V, I>&);                \
    template void spadd_numeric(const SpaddHandle<V, I>&, V, const matrix::Csr<V, I>&, V,      \
                                const matrix::Csr<V, I>&, matrix::Csr<V, I>&);                 \
    template matrix::Csr<V, I> spadd(V, const matrix::Csr<V, I>&, V, const matrix::Csr<V, I>&, \
                                     const SpaddOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPADD)

}  // namespace loom::sparse
