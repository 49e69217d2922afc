// SpTRSV: argument checks, the analysis (on the host: the pattern is read back once), the
// handle and backend dispatch (include/loom/sparse/sptrsv.hpp).
#include "loom/sparse/sptrsv.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "sparse/spmv/checks.hpp"
#include "sparse/sptrsv/kernels.hpp"
#include "sparse/sptrsv/levels.hpp"
#include "sparse/sptrsv/state.hpp"

namespace loom::sparse {
namespace {

constexpr const char* symbolic_where = "loom::sparse::sptrsv_symbolic";
constexpr const char* numeric_where = "loom::sparse::sptrsv_numeric";
constexpr const char* solve_where = "loom::sparse::sptrsv_solve";

/// OpenMP: a level with fewer rows than this per thread costs more in its barrier than its
/// rows take one thread, so it joins a chained stage.
constexpr size_type omp_thin_rows_per_thread = 32;
/// CUDA: with more levels than this, a level-set solve pays more in launches (a few
/// microseconds each for fat levels, one SM for chained ones) than sync-free pays in
/// spinning, and sync-free is the automatic choice.
constexpr size_type cuda_level_set_max_levels = 64;

bool transposes(blas::Op op) { return op != blas::Op::none; }

/// Whether op(T) is lower triangular: T's triangle, swapped by a transpose.
bool solves_lower(const SptrsvOptions& options)
{
    return (options.uplo == blas::Uplo::lower) != transposes(options.op);
}

/// BadInput naming the first entry of T outside its triangle.
template <typename I>
void check_triangle(const std::vector<I>& ptrs, const std::vector<I>& cols, blas::Uplo uplo)
{
    const bool lower = uplo == blas::Uplo::lower;
    for (size_type r = 0; r + 1 < static_cast<size_type>(ptrs.size()); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            const size_type c = cols[k];
            if (lower ? c > r : c < r) {
                throw BadInput(symbolic_where,
                               "entry (" + std::to_string(r) + ", " + std::to_string(c) +
                                   ") lies " + (lower ? "above" : "below") + " the diagonal of " +
                                   (lower ? "a lower" : "an upper") + " triangular matrix");
            }
        }
    }
}

/// NumericalError naming the first row whose diagonal (duplicates summed) is zero or missing.
template <typename V, typename I>
void check_diagonal(const char* where, const matrix::Csr<V, I>& T, const SptrsvOptions& options)
{
    if (options.diag == blas::Diag::unit || T.rows() == 0) return;
    const auto diagonal = extract_diagonal(T).to_host();
    const auto zero = std::find(diagonal.begin(), diagonal.end(), V{0});
    if (zero != diagonal.end()) {
        throw NumericalError(where, "row " + std::to_string(zero - diagonal.begin()) +
                                        " has a zero or missing diagonal entry (a singular "
                                        "triangular matrix; use a unit diagonal if it is implied)");
    }
}

/// The rows of T^T, sorted, and for each of their entries its position in T (a counting
/// sort by column).
template <typename I>
void transpose_pattern(size_type n, const std::vector<I>& ptrs, const std::vector<I>& cols,
                       std::vector<I>& t_ptrs, std::vector<I>& t_cols, std::vector<I>& t_index)
{
    t_ptrs.assign(n + 1, 0);
    for (const auto c : cols) ++t_ptrs[c + 1];
    for (size_type r = 0; r < n; ++r) t_ptrs[r + 1] += t_ptrs[r];
    t_cols.resize(cols.size());
    t_index.resize(cols.size());
    auto next = t_ptrs;
    for (size_type r = 0; r < n; ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            const auto slot = next[cols[k]]++;
            t_cols[slot] = static_cast<I>(r);
            t_index[slot] = k;
        }
    }
}

/// The algorithm that runs: `automatic` resolved for the executor and the levels found;
/// NotSupported for one the executor cannot run.
SptrsvAlgorithm resolve(SptrsvAlgorithm asked, const Executor& exec, size_type levels)
{
    const bool cuda = exec.kind() == ExecKind::cuda;
    if (!cuda && (asked == SptrsvAlgorithm::sync_free || asked == SptrsvAlgorithm::vendor)) {
        throw NotSupported(symbolic_where, std::string("SptrsvAlgorithm::") + to_string(asked) +
                                               " runs on CUDA executors only; T lives on " +
                                               exec.name() + " (use level_set)");
    }
    if (asked != SptrsvAlgorithm::automatic) return asked;
    if (cuda && levels > cuda_level_set_max_levels) return SptrsvAlgorithm::sync_free;
    return SptrsvAlgorithm::level_set;
}

/// NotSupported unless cuSPARSE can solve with T.
template <typename V, typename I>
void check_vendor(const matrix::Csr<V, I>& T)
{
    if (sizeof(I) != sizeof(int32)) {
        throw NotSupported(symbolic_where,
                           "cuSPARSE's SpSV takes 32-bit indices only; this matrix has " +
                               std::string(type_name<I>()) + " indices (use level_set)");
    }
    if (column_order(T) != ColumnOrder::increasing) {
        throw NotSupported(symbolic_where,
                           std::string("cuSPARSE's SpSV needs rows sorted without duplicates, "
                                       "and T has ") +
                               to_string(column_order(T)) +
                               " columns (use level_set, or sparse::merge_duplicates first)");
    }
}

/// The width below which a level is thin on exec (see the constants above).
size_type thin_width(const Executor& exec)
{
    if (const auto* omp = dynamic_cast<const OmpExecutor*>(&exec)) {
        return omp_thin_rows_per_thread * std::max(omp->num_threads(), 1);
    }
    if (exec.kind() == ExecKind::cuda) return detail::cuda_chain_width;
    return 0;
}

/// b and x fit op(T), live in T's memory, and do not overlap.
template <typename V, typename I>
void check_solve(const std::shared_ptr<const Executor>& exec, const matrix::Csr<V, I>& T,
                 const matrix::Dense<V>& b, const matrix::Dense<V>& x)
{
    if (b.rows() != T.rows()) {
        throw DimensionMismatch(solve_where, "T", T.size(), "b", b.size(),
                                "b needs one row per row of T");
    }
    if (x.rows() != T.rows()) {
        throw DimensionMismatch(solve_where, "T", T.size(), "x", x.size(),
                                "x needs one row per row of T");
    }
    if (b.cols() != x.cols()) {
        throw DimensionMismatch(solve_where, "b", b.size(), "x", x.size(),
                                "b and x need the same number of columns");
    }
    for (const auto* operand : {&T.executor(), &b.executor(), &x.executor()}) {
        if (!*operand || !exec->same_memory_as(**operand)) {
            throw BadInput(solve_where,
                           "T, b and x must live in the memory of the executor "
                           "the analysis ran on (" +
                               exec->name() + ")");
        }
    }
    if (spmv_checks::overlap(b, x)) {
        throw BadInput(solve_where, "x shares elements with b; the solution needs its own storage");
    }
}

/// The epoch of a new sync-free solve; clears the flags when the counter wraps around.
template <typename V, typename I>
std::uint32_t next_epoch(const detail::SptrsvState<V, I>& state)
{
    if (++state.epoch == 0) {
        state.flags =
            Array<std::uint32_t>(state.exec, std::vector<std::uint32_t>(state.flags.size(), 0));
        state.epoch = 1;
    }
    return state.epoch;
}

}  // namespace

SptrsvAlgorithm parse_sptrsv_algorithm(const std::string& text)
{
    return names_of(SptrsvAlgorithm{}).parse(text, "loom::sparse::parse_sptrsv_algorithm");
}

const char* to_string(SptrsvAlgorithm algorithm) { return names_of(algorithm).to_string(algorithm); }

template <typename V, typename I>
SptrsvAlgorithm SptrsvHandle<V, I>::algorithm() const noexcept
{
    const auto* state = this->state();
    return state ? state->algorithm : this->options().algorithm;
}

template <typename V, typename I>
size_type SptrsvHandle<V, I>::levels() const
{
    return this->analysis("loom::sparse::SptrsvHandle::levels").levels;
}

template <typename V, typename I>
size_type SptrsvHandle<V, I>::max_level_width() const
{
    return this->analysis("loom::sparse::SptrsvHandle::max_level_width").max_level_width;
}

template <typename V, typename I>
size_type SptrsvHandle<V, I>::stages() const
{
    const auto& state = this->analysis("loom::sparse::SptrsvHandle::stages");
    return state.algorithm == SptrsvAlgorithm::level_set ? state.schedule.stages() : 1;
}

template <typename V, typename I>
void sptrsv_symbolic(SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T)
{
    const auto& exec = T.executor();
    if (!exec) throw BadInput(symbolic_where, "T has no executor (it was default-constructed)");
    if (T.rows() != T.cols()) {
        throw DimensionMismatch(symbolic_where, "T", T.size(), "T", T.size(),
                                "a triangular solve needs a square matrix");
    }
    const auto& options = handle.options();
    const auto n = T.rows();
    const auto ptrs = T.row_ptrs().to_host();
    const auto cols = T.col_idxs().to_host();
    check_triangle(ptrs, cols, options.uplo);
    check_diagonal(symbolic_where, T, options);

    auto state = std::make_unique<detail::SptrsvState<V, I>>();
    state->exec = exec;
    const bool lower = solves_lower(options);
    std::vector<I> level;
    if (transposes(options.op)) {
        std::vector<I> t_ptrs, t_cols, t_index;
        transpose_pattern(n, ptrs, cols, t_ptrs, t_cols, t_index);
        level = detail::row_levels(n, t_ptrs, t_cols, lower);
        state->transposed_row_ptrs = Array<I>(exec, t_ptrs);
        state->transposed_col_idxs = Array<I>(exec, t_cols);
        state->transposed_value_index = Array<I>(exec, t_index);
    } else {
        level = detail::row_levels(n, ptrs, cols, lower);
    }
    auto schedule = detail::level_schedule(level, thin_width(*exec));
    state->levels = schedule.levels();
    for (size_type l = 0; l < state->levels; ++l) {
        state->max_level_width = std::max<size_type>(
            state->max_level_width, schedule.host_level_ptrs[l + 1] - schedule.host_level_ptrs[l]);
    }
    state->algorithm = resolve(options.algorithm, *exec, state->levels);
    if (state->algorithm == SptrsvAlgorithm::level_set) {
        schedule.order = Array<I>(exec, schedule.host_order);
        schedule.level_ptrs = Array<I>(exec, schedule.host_level_ptrs);
        state->schedule = std::move(schedule);
    }
    if (state->algorithm == SptrsvAlgorithm::sync_free) {
        state->flags = Array<std::uint32_t>(exec, std::vector<std::uint32_t>(n + 1, 0));
    }
    if (state->algorithm == SptrsvAlgorithm::vendor) {
        check_vendor(T);
        LOOM_CUDA_CALL(symbolic_where, state->vendor = cuda::sptrsv_vendor_analysis(
                                           dynamic_cast<const CudaExecutor&>(*exec), T, options));
    }
    state->pattern = pattern_fingerprint(T, options.pattern_check);
    handle.adopt(std::move(state));
}

template <typename V, typename I>
void sptrsv_numeric(SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T)
{
    auto* state = handle.state();
    if (!state) {
        throw BadInput(numeric_where, "the handle has no analysis; run sptrsv_symbolic first");
    }
    if (!T.executor() || !state->exec->same_memory_as(*T.executor())) {
        throw BadInput(numeric_where,
                       "T must live in the memory of the executor the analysis "
                       "ran on (" +
                           state->exec->name() + ")");
    }
    check_pattern(numeric_where, "T", state->pattern, T, handle.options().pattern_check);
    check_diagonal(numeric_where, T, handle.options());
    if (state->algorithm == SptrsvAlgorithm::vendor) {
        LOOM_CUDA_CALL(numeric_where,
                       cuda::sptrsv_vendor_update(dynamic_cast<const CudaExecutor&>(*state->exec),
                                                  state->vendor, T));
    }
}

template <typename V, typename I>
void sptrsv_solve(const SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T,
                  const matrix::Dense<V>& b, matrix::Dense<V>& x)
{
    const auto* state = handle.state();
    if (!state) {
        throw BadInput(solve_where, "the handle has no analysis; run sptrsv_symbolic first");
    }
    const auto& options = handle.options();
    check_solve(state->exec, T, b, x);
    check_pattern(solve_where, "T", state->pattern, T, options.pattern_check);
    if (T.rows() == 0 || b.cols() == 0) return;

    detail::TriangularRows<V, I> rows;
    rows.n = T.rows();
    rows.nnz = T.nnz();
    rows.values = T.values().const_data();
    rows.lower = solves_lower(options);
    rows.unit = options.diag == blas::Diag::unit;
    rows.conjugate = options.op == blas::Op::conj_transpose;
    if (transposes(options.op)) {
        rows.row_ptrs = state->transposed_row_ptrs.const_data();
        rows.col_idxs = state->transposed_col_idxs.const_data();
        rows.value_index = state->transposed_value_index.const_data();
    } else {
        rows.row_ptrs = T.row_ptrs().const_data();
        rows.col_idxs = T.col_idxs().const_data();
    }
    state->exec->run(loom::detail::overloaded{
        [&](const ReferenceExecutor& e) {
            reference::sptrsv_level_set(e, rows, state->schedule, b, x);
        },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            LOOM_OMP_CALL(solve_where, omp::sptrsv_level_set(e, rows, state->schedule, b, x));
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(solve_where, {
                switch (state->algorithm) {
                case SptrsvAlgorithm::sync_free:
                    cuda::sptrsv_sync_free(e, rows, b, x, state->flags, next_epoch(*state));
                    break;
                case SptrsvAlgorithm::vendor:
                    cuda::sptrsv_vendor_solve(e, state->vendor, T, b, x);
                    break;
                default: cuda::sptrsv_level_set(e, rows, state->schedule, b, x);
                }
            });
        }});
}

template <typename V, typename I>
void sptrsv(const matrix::Csr<V, I>& T, const matrix::Dense<V>& b, matrix::Dense<V>& x,
            const SptrsvOptions& options)
{
    SptrsvHandle<V, I> handle(options);
    sptrsv_symbolic(handle, T);
    sptrsv_solve(handle, T, b, x);
}

#define LOOM_INSTANTIATE_SPTRSV(V, I)                                                          \
    template class SptrsvHandle<V, I>;                                                         \
    template void sptrsv_symbolic(SptrsvHandle<V, I>&, const matrix::Csr<V, I>&);              \
    template void sptrsv_numeric(SptrsvHandle<V, I>&, const matrix::Csr<V, I>&);               \
    template void sptrsv_solve(const SptrsvHandle<V, I>&, const matrix::Csr<V, I>&,            \
                               const matrix::Dense<V>&, matrix::Dense<V>&);                    \
    template void sptrsv(const matrix::Csr<V, I>&, const matrix::Dense<V>&, matrix::Dense<V>&, \
                         const SptrsvOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPTRSV)

}  // namespace loom::sparse
