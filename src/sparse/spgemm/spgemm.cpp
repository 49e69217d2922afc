// The SpGEMM handle, argument checks and backend dispatch (include/loom/sparse/spgemm.hpp).
#include "loom/sparse/spgemm.hpp"

#include <algorithm>
#include <optional>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "sparse/aliasing.hpp"
#include "sparse/analyzed_operands.hpp"
#include "sparse/fingerprint/kernels.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse {
namespace {

constexpr const char* symbolic_where = "loom::sparse::spgemm_symbolic";
constexpr const char* numeric_where = "loom::sparse::spgemm_numeric";
constexpr const char* spgemm_where = "loom::sparse::spgemm";
constexpr const char* jacobi_symbolic_where = "loom::sparse::spgemm_jacobi_symbolic";
constexpr const char* jacobi_numeric_where = "loom::sparse::spgemm_jacobi_numeric";
constexpr const char* jacobi_where = "loom::sparse::spgemm_jacobi";

using detail::executor_name;
using detail::JacobiScaling;
using detail::same_pattern_arrays;
using detail::SpgemmState;

/// `operand` lives in `exec`'s memory.
void check_memory(const char* where, const std::shared_ptr<const Executor>& exec,
                  const std::shared_ptr<const Executor>& operand, const char* name)
{
    if (!exec || !operand || !exec->same_memory_as(*operand)) {
        throw BadInput(where, std::string(name) +
                                  " must live in the memory of A's executor (A is on " +
                                  executor_name(exec) + ", " + name + " on " +
                                  executor_name(operand) + ")");
    }
}

template <typename V, typename I>
void check_product(const char* where, const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                   bool jacobi)
{
    if (!A.executor()) throw BadInput(where, "A has no executor (a default-constructed matrix)");
    check_memory(where, A.executor(), B.executor(), "B");
    if (jacobi && A.rows() != A.cols()) {
        throw DimensionMismatch(where, "A is " + to_string(A.size()) +
                                           ", but (I - omega D^-1 A) needs a square A");
    }
    if (A.cols() != B.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "B", B.size(),
                                "A needs as many columns as B has rows");
    }
}

/// The algorithm that runs: `automatic` is native everywhere (the native kernels are the
/// faster ones where cuSPARSE exists); `vendor` only on CUDA, for the plain product.
SpgemmAlgorithm resolve(const char* where, SpgemmAlgorithm algorithm, const Executor& exec,
                        bool jacobi)
{
    if (algorithm != SpgemmAlgorithm::vendor) return SpgemmAlgorithm::native;
    if (exec.is_host()) {
        throw NotSupported(where, "SpgemmAlgorithm::vendor is cuSPARSE, available on CUDA "
                                  "executors only; the operands live on " +
                                      exec.name() + " (use automatic or native)");
    }
    if (jacobi) {
        throw NotSupported(where, "cuSPARSE has no Jacobi-fused product "
                                  "(SpgemmAlgorithm::vendor); use automatic or native");
    }
    return SpgemmAlgorithm::vendor;
}

template <typename V, typename I>
std::pair<PatternFingerprint, PatternFingerprint> fingerprints(const matrix::Csr<V, I>& A,
                                                               const matrix::Csr<V, I>& B,
                                                               PatternCheck check)
{
    const auto a = pattern_fingerprint(A, check);
    return {a, same_pattern_arrays(A, B) ? a : pattern_fingerprint(B, check)};
}

/// C as the symbolic phase leaves it: its size, row pointers and storage for the entries
/// (with the columns, when the symbolic phase found them: they move into C).
template <typename V, typename I>
matrix::Csr<V, I> make_result(SpgemmState<I>& state)
{
    matrix::Csr<V, I> C(state.exec, state.size, state.nnz);
    if (state.size.rows > 0) {
        state.exec->copy_from(*state.exec, sizeof(I) * (state.size.rows + 1),
                              state.row_ptrs.data(), C.row_ptrs().data());
    }
    if (state.columns_from_symbolic) C.col_idxs() = std::move(state.columns);
    return C;
}

/// Whether this handle's numeric calls may compute values only once C's columns are known:
/// the native kernels with sorted rows (unsorted rows may come out in another order on the
/// next call), unless the options decline it. Which path: a record of the products'
/// positions (OpenMP; state.recorded), or, on CUDA, the light rows' lookup of C's columns.
template <typename I>
bool may_reuse_columns(const SpgemmState<I>& state, const SpgemmOptions& options)
{
    return options.reuse_columns && state.algorithm == SpgemmAlgorithm::native &&
           state.sort_output && state.nnz > 0;
}

/// The symbolic phase into a new state and a new C (the caller's are replaced only once
/// everything succeeded). with_fingerprints: record the patterns for later numeric calls.
template <typename V, typename I>
std::unique_ptr<SpgemmState<I>> symbolic(const char* where, const SpgemmOptions& options,
                                         const matrix::Csr<V, I>& A,
                                         const matrix::Csr<V, I>& B, bool jacobi,
                                         bool with_fingerprints,
                                         std::optional<matrix::Csr<V, I>>& C)
{
    check_product(where, A, B, jacobi);
    const auto& exec = A.executor();
    auto state = std::make_unique<SpgemmState<I>>();
    state->exec = exec;
    state->algorithm = resolve(where, options.algorithm, *exec, jacobi);
    state->sort_output = options.sort_output;
    state->jacobi = jacobi;
    state->deterministic = options.deterministic;
    // a product without a handle is never repeated: nothing to record
    state->record_limit =
        with_fingerprints && options.reuse_columns ? options.reuse_memory_limit : 0;
    state->one_shot_record_limit = with_fingerprints ? 0 : options.reuse_memory_limit;
    state->transient_record_limit = options.reuse_memory_limit;
    // a one-shot product's numeric call, or a handle's that computes values only once C's
    // columns are known, gains from columns found here
    state->columns_in_symbolic = options.sort_output && (!with_fingerprints || options.reuse_columns);
    state->size = {A.rows(), B.cols()};
    if (with_fingerprints) {
        std::tie(state->a, state->b) = fingerprints(A, B, options.pattern_check);
    }
    if (state->algorithm == SpgemmAlgorithm::vendor) {
        LOOM_CUDA_CALL(where, {
            matrix::Csr<V, I> result;
            cuda::spgemm_vendor_symbolic(static_cast<const CudaExecutor&>(*exec), A, B, *state,
                                         result);
            C.emplace(std::move(result));
        });
    } else {
        LOOM_RUN_KERNEL(where, *exec, spgemm_symbolic, A, B, jacobi, *state);
        C.emplace(make_result<V, I>(*state));
        if (with_fingerprints && state->columns_from_symbolic && may_reuse_columns(*state, options)) {
            // C's columns are those a numeric call would write: its first call computes values
            state->written_c = pattern_fingerprint(*C, options.pattern_check);
        }
    }
    return state;
}

/// The numeric phase, arguments checked.
template <typename V, typename I>
void numeric([[maybe_unused]] const char* where, SpgemmState<I>& state,
             const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
             const JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    if (state.nnz == 0) return;
    const auto& exec = state.exec;
    if (state.algorithm == SpgemmAlgorithm::vendor) {
        LOOM_CUDA_CALL(where, cuda::spgemm_vendor_numeric(static_cast<const CudaExecutor&>(*exec),
                                                          state, A, B, C));
        return;
    }
    LOOM_RUN_KERNEL(where, *exec, spgemm_numeric, state, A, B, jacobi, C);
}

template <typename I>
bool has_known_columns_path(const SpgemmState<I>& state)
{
    return !state.exec->is_host();
}

/// Restores C's row pointers from the handle (cheap, and C's columns and values are then
/// written where the numeric kernels expect them even if C's pointers were touched).
template <typename V, typename I>
void restore_row_ptrs(const SpgemmState<I>& state, matrix::Csr<V, I>& C)
{
    if (state.size.rows == 0) return;
    state.exec->copy_from(*state.exec, sizeof(I) * (state.size.rows + 1), state.row_ptrs.data(),
                          C.row_ptrs().data());
}

/// Values only, C's columns being those this handle wrote last.
template <typename V, typename I>
void values_only([[maybe_unused]] const char* where, SpgemmState<I>& state,
                 const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                 const JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    const auto& exec = *state.exec;
    exec.run(loom::detail::overloaded{
        [&](const ReferenceExecutor&) {
            throw NotSupported(where, "the reference backend has no values-only SpGEMM");
        },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            // only with a record (see handle_numeric)
            LOOM_OMP_CALL(where, omp::spgemm_numeric_recorded(e, state, A, B, jacobi, C));
            state.values_path = SpgemmValuesPath::recorded;
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(where, state.values_path = cuda::spgemm_numeric_known_columns(
                                      e, state, A, B, jacobi, C));
        }});
    ++state.values_only_calls;
}

/// The numeric phase of a handle: values only when C's pattern fingerprint is the one this
/// handle's last full numeric call wrote and a values-only path exists (a record of the
/// products' positions, which the full phase makes when it fits the memory limit, or CUDA's
/// known-columns lookup); else the full phase, recording C's fingerprint afterwards where a
/// values-only path exists. Under PatternCheck::cached the record lives in C's plan cache
/// too, so that the next call's comparison costs no pass over C.
template <typename V, typename I>
void handle_numeric(const char* where, SpgemmState<I>& state, const SpgemmOptions& options,
                    const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                    const JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    const bool reuse = may_reuse_columns(state, options);
    const bool values_only_path = reuse && (state.recorded || has_known_columns_path(state));
    if (values_only_path && state.written_c &&
        pattern_fingerprint(C, options.pattern_check) == *state.written_c) {
        values_only(where, state, A, B, jacobi, C);
        // the kernel took C's columns through non-const access, which dropped the cached
        // fingerprint, but left them as they were
        detail::remember_pattern_fingerprint(C, *state.written_c);
        return;
    }
    state.written_c.reset();
    state.values_path = SpgemmValuesPath::full;
    restore_row_ptrs(state, C);
    numeric(where, state, A, B, jacobi, C);
    if (reuse && (state.recorded || has_known_columns_path(state))) {
        state.written_c = pattern_fingerprint(C, options.pattern_check);
    }
}

/// The handle's state after checking that a numeric phase of the given kind may use it with
/// these operands (see spgemm_numeric).
template <typename V, typename I>
SpgemmState<I>& checked_state(const char* where, SpgemmHandle<V, I>& handle,
                              const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                              const matrix::Csr<V, I>& C, bool jacobi)
{
    auto& state =
        handle.analysis(where, jacobi ? "spgemm_jacobi_symbolic" : "spgemm_symbolic");
    if (state.jacobi != jacobi) {
        throw BadInput(where, state.jacobi
                                  ? "the handle holds the symbolic phase of a Jacobi-fused "
                                    "product; use spgemm_jacobi_numeric"
                                  : "the handle holds the symbolic phase of a plain product; "
                                    "use spgemm_numeric, or spgemm_jacobi_symbolic first");
    }
    check_product(where, A, B, jacobi);
    check_memory(where, A.executor(), C.executor(), "C");
    detail::check_not_aliased(where, C, "C", A, "A");
    detail::check_not_aliased(where, C, "C", B, "B");
    detail::check_analyzed_operands<V, I>(where, *state.exec, handle.options().pattern_check,
                                          {{"A", state.a, A}, {"B", state.b, B}});
    if (C.size() != state.size || C.nnz() != state.nnz ||
        C.row_ptrs().size() != state.size.rows + 1) {
        throw BadInput(where, "C is " + to_string(C.size()) + " with " +
                                  std::to_string(C.nnz()) +
                                  " stored entries, but the symbolic phase made it " +
                                  to_string(state.size) + " with " + std::to_string(state.nnz) +
                                  "; pass the C that the symbolic phase produced");
    }
    return state;
}

void check_diagonal(const char* where, const std::shared_ptr<const Executor>& exec,
                    const std::shared_ptr<const Executor>& d_exec, size_type size, size_type n)
{
    check_memory(where, exec, d_exec, "D_inv");
    if (size != n) {
        throw DimensionMismatch(where, "D_inv has " + std::to_string(size) +
                                           " values, but A has " + std::to_string(n) +
                                           " rows (one inverse diagonal value per row)");
    }
}

template <typename V, typename I>
void jacobi_numeric(SpgemmHandle<V, I>& handle, V omega, const V* d_inv, size_type stride,
                    const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    auto& state = checked_state(jacobi_numeric_where, handle, A, B, C, true);
    const JacobiScaling<V> scaling{omega, d_inv, stride};
    handle_numeric(jacobi_numeric_where, state, handle.options(), A, B, &scaling, C);
}

/// 1 / the diagonal of A (A square), on A's executor; BadInput naming the first row whose
/// diagonal is zero or missing.
template <typename V, typename I>
Array<V> inverse_diagonal([[maybe_unused]] const char* where, const matrix::Csr<V, I>& A)
{
    Array<V> d_inv(A.executor(), A.rows());
    const int64 zero_row = LOOM_RUN_KERNEL(where, *A.executor(), inverse_diagonal, A, d_inv);
    if (zero_row >= 0) {
        throw BadInput(where, "the diagonal of A is zero in row " + std::to_string(zero_row) +
                                  " (no stored entry (i, i), or entries summing to zero), so "
                                  "D^-1 A does not exist");
    }
    return d_inv;
}

}  // namespace

SpgemmAlgorithm parse_spgemm_algorithm(const std::string& text)
{
    return names_of(SpgemmAlgorithm{}).parse(text, "loom::sparse::parse_spgemm_algorithm");
}

template <typename V, typename I>
SpgemmValuesPath SpgemmHandle<V, I>::values_path() const
{
    return this->analysis("loom::sparse::SpgemmHandle::values_path").values_path;
}

template <typename V, typename I>
size_type SpgemmHandle<V, I>::recorded_bytes() const
{
    return this->analysis("loom::sparse::SpgemmHandle::recorded_bytes").recorded_bytes;
}

template <typename V, typename I>
SpgemmAlgorithm SpgemmHandle<V, I>::algorithm() const
{
    return this->analysis("loom::sparse::SpgemmHandle::algorithm").algorithm;
}

template <typename V, typename I>
bool SpgemmHandle<V, I>::jacobi() const
{
    return this->analysis("loom::sparse::SpgemmHandle::jacobi").jacobi;
}

template <typename V, typename I>
dim2 SpgemmHandle<V, I>::result_size() const
{
    return this->analysis("loom::sparse::SpgemmHandle::result_size").size;
}

template <typename V, typename I>
size_type SpgemmHandle<V, I>::result_nnz() const
{
    return this->analysis("loom::sparse::SpgemmHandle::result_nnz").nnz;
}

template <typename V, typename I>
size_type SpgemmHandle<V, I>::multiply_adds() const
{
    return this->analysis("loom::sparse::SpgemmHandle::multiply_adds").multiply_adds;
}

template <typename V, typename I>
const Array<I>& SpgemmHandle<V, I>::row_ptrs() const
{
    return this->analysis("loom::sparse::SpgemmHandle::row_ptrs").row_ptrs;
}

template <typename V, typename I>
const Array<int64>& SpgemmHandle<V, I>::row_flops() const
{
    return this->analysis("loom::sparse::SpgemmHandle::row_flops").row_flops;
}

template <typename V, typename I>
size_type SpgemmHandle<V, I>::values_only_calls() const
{
    return this->analysis("loom::sparse::SpgemmHandle::values_only_calls").values_only_calls;
}

template <typename V, typename I>
bool SpgemmHandle<V, I>::columns_from_symbolic() const
{
    return this->analysis("loom::sparse::SpgemmHandle::columns_from_symbolic")
        .columns_from_symbolic;
}

template <typename V, typename I>
void spgemm_symbolic(SpgemmHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                     const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    std::optional<matrix::Csr<V, I>> result;
    auto state = symbolic(symbolic_where, handle.options(), A, B, false, true, result);
    C = std::move(*result);
    handle.adopt(std::move(state));
}

template <typename V, typename I>
void spgemm_numeric(SpgemmHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                    const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    auto& state = checked_state(numeric_where, handle, A, B, C, false);
    handle_numeric<V, I>(numeric_where, state, handle.options(), A, B, nullptr, C);
}

template <typename V, typename I>
matrix::Csr<V, I> spgemm(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                         const SpgemmOptions& options)
{
    check_product(spgemm_where, A, B, false);
    if (resolve(spgemm_where, options.algorithm, *A.executor(), false) ==
        SpgemmAlgorithm::vendor) {
        LOOM_CUDA_CALL(spgemm_where,
                       return cuda::spgemm_vendor(
                           static_cast<const CudaExecutor&>(*A.executor()), A, B));
    }
    // A handle of its own is never reused: no fingerprints.
    std::optional<matrix::Csr<V, I>> C;
    const auto state = symbolic(spgemm_where, options, A, B, false, false, C);
    if (state->columns_from_symbolic) {
        values_only<V, I>(spgemm_where, *state, A, B, nullptr, *C);
    } else {
        numeric<V, I>(spgemm_where, *state, A, B, nullptr, *C);
    }
    return std::move(*C);
}

template <typename V, typename I>
void spgemm_jacobi_symbolic(SpgemmHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                            const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    std::optional<matrix::Csr<V, I>> result;
    auto state = symbolic(jacobi_symbolic_where, handle.options(), A, B, true, true, result);
    C = std::move(*result);
    handle.adopt(std::move(state));
}

template <typename V, typename I>
void spgemm_jacobi_numeric(SpgemmHandle<V, I>& handle, V omega, const matrix::Dense<V>& D_inv,
                           const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                           matrix::Csr<V, I>& C)
{
    if (!A.executor()) throw BadInput(jacobi_numeric_where, "A has no executor");
    if (D_inv.cols() != 1) {
        throw DimensionMismatch(jacobi_numeric_where, "D_inv is " + to_string(D_inv.size()) +
                                                          ", expected one column");
    }
    check_diagonal(jacobi_numeric_where, A.executor(), D_inv.executor(), D_inv.rows(),
                      A.rows());
    jacobi_numeric(handle, omega, D_inv.data(), D_inv.stride(), A, B, C);
}

template <typename V, typename I>
void spgemm_jacobi_numeric(SpgemmHandle<V, I>& handle, V omega, const Array<V>& D_inv,
                           const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                           matrix::Csr<V, I>& C)
{
    if (!A.executor()) throw BadInput(jacobi_numeric_where, "A has no executor");
    check_diagonal(jacobi_numeric_where, A.executor(), D_inv.executor(), D_inv.size(),
                      A.rows());
    jacobi_numeric(handle, omega, D_inv.data(), size_type{1}, A, B, C);
}

template <typename V, typename I>
matrix::Csr<V, I> spgemm_jacobi(V omega, const Array<V>& D_inv, const matrix::Csr<V, I>& A,
                                const matrix::Csr<V, I>& B, const SpgemmOptions& options)
{
    check_product(jacobi_where, A, B, true);
    check_diagonal(jacobi_where, A.executor(), D_inv.executor(), D_inv.size(), A.rows());
    std::optional<matrix::Csr<V, I>> C;
    const auto state = symbolic(jacobi_where, options, A, B, true, false, C);
    const JacobiScaling<V> scaling{omega, D_inv.data(), 1};
    if (state->columns_from_symbolic) {
        values_only<V, I>(jacobi_where, *state, A, B, &scaling, *C);
    } else {
        numeric(jacobi_where, *state, A, B, &scaling, *C);
    }
    return std::move(*C);
}

template <typename V, typename I>
void spgemm_jacobi_numeric(SpgemmHandle<V, I>& handle, V omega, const matrix::Csr<V, I>& A,
                           const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    check_product(jacobi_numeric_where, A, B, true);
    const auto d_inv = inverse_diagonal(jacobi_numeric_where, A);
    jacobi_numeric(handle, omega, d_inv.data(), size_type{1}, A, B, C);
}

template <typename V, typename I>
matrix::Csr<V, I> spgemm_jacobi(V omega, const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                const SpgemmOptions& options)
{
    check_product(jacobi_where, A, B, true);
    return spgemm_jacobi(omega, inverse_diagonal(jacobi_where, A), A, B, options);
}

#define LOOM_INSTANTIATE_SPGEMM(V, I)                                                          \
    template class SpgemmHandle<V, I>;                                                         \
    template void spgemm_symbolic(SpgemmHandle<V, I>&, const matrix::Csr<V, I>&,              \
                                  const matrix::Csr<V, I>&, matrix::Csr<V, I>&);              \
    template void spgemm_numeric(SpgemmHandle<V, I>&, const matrix::Csr<V, I>&,               \
                                 const matrix::Csr<V, I>&, matrix::Csr<V, I>&);               \
    template matrix::Csr<V, I> spgemm(const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,     \
                                      const SpgemmOptions&);                                   \
    template void spgemm_jacobi_symbolic(SpgemmHandle<V, I>&, const matrix::Csr<V, I>&,       \
                                         const matrix::Csr<V, I>&, matrix::Csr<V, I>&);       \
    template void spgemm_jacobi_numeric(SpgemmHandle<V, I>&, V, const matrix::Dense<V>&,      \
                                        const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,   \
                                        matrix::Csr<V, I>&);                                   \
    template void spgemm_jacobi_numeric(SpgemmHandle<V, I>&, V, const Array<V>&,              \
                                        const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,   \
                                        matrix::Csr<V, I>&);                                   \
    template matrix::Csr<V, I> spgemm_jacobi(V, const Array<V>&, const matrix::Csr<V, I>&,    \
                                             const matrix::Csr<V, I>&, const SpgemmOptions&); \
    template void spgemm_jacobi_numeric(SpgemmHandle<V, I>&, V, const matrix::Csr<V, I>&,     \
                                        const matrix::Csr<V, I>&, matrix::Csr<V, I>&);         \
    template matrix::Csr<V, I> spgemm_jacobi(V, const matrix::Csr<V, I>&,                     \
                                             const matrix::Csr<V, I>&, const SpgemmOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM)

}  // namespace loom::sparse
