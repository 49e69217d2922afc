// SpTRSV: argument checks, the analysis (on the host: the pattern is read back once), the
// handle and backend dispatch (include/loom/sparse/sptrsv.hpp).
#include "loom/sparse/sptrsv.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/batched/front.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "sparse/spmv/checks.hpp"
#include "sparse/sptrsv/kernels.hpp"
#include "sparse/sptrsv/levels.hpp"
#include "sparse/sptrsv/state.hpp"

namespace loom::sparse {
namespace detail {

AnalysisLaps::AnalysisLaps(const Executor& exec)
    : exec_(&exec), on_(std::getenv("LOOM_SPTRSV_PROFILE") != nullptr)
{
    if (on_) {
        exec_->synchronize();
        last_ = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
}

void AnalysisLaps::lap(const char* step)
{
    if (!on_) return;
    exec_->synchronize();
    const double now =
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    std::fprintf(stderr, "sptrsv analysis: %s %.3f ms\n", step, (now - last_) * 1e3);
    last_ = now;
}

}  // namespace detail
namespace {

constexpr const char* symbolic_where = "loom::sparse::sptrsv_symbolic";
constexpr const char* numeric_where = "loom::sparse::sptrsv_numeric";
constexpr const char* solve_where = "loom::sparse::sptrsv_solve";
constexpr const char* levels_where = "loom::sparse::sptrsv_levels";

/// What an analysis computes: everything a solve needs, or only the level schedule
/// (sptrsv_levels: no diagonal check, no supernodes).
enum class Scope { solve, schedule };

/// OpenMP: a level with fewer rows than this per thread costs more in its barrier than its
/// rows take one thread, so it joins a chained stage.
constexpr size_type omp_thin_rows_per_thread = 32;
/// CUDA: the per-solve costs (microseconds) of the schedules, measured on the H200 (double;
/// NOTES.md "automatic"): a fat level launched on its own costs ~5 us (launch + drain: 2389
/// us for the 478 levels of the 160^3 ILU(0) L, session 9); one level of the persistent
/// level-set kernel on the level-ordered copy ~2.6 us (a grid barrier and the level's x
/// loads: 1258 us there, 9.67 ms for the 3999 levels of the 2000^2 5-point L; session 10);
/// a level of a chained stage ~2.5 us per round of a block's groups on a factor larger than
/// the L2 (the fit of both launched figures: 2375 and 22545 us by this model; ~1 us when the
/// factor sits in L2: mcfe, 537 us for 568 thin levels); sync-free ~5.3 us per level (2512
/// us on 160^3, session 10: the polls of waiting warps slow the warps they wait on). The
/// bandwidth the entries take is the same for all and left out.
constexpr double cuda_launch_us = 5.0;
constexpr double cuda_persistent_level_us = 2.6;
constexpr double cuda_chained_round_us = 2.5;
constexpr double cuda_sync_free_hop_us = 5.3;
/// Sync-free's throughput on wide levels (~10 G rows/s): an estimate, not measured.
constexpr double cuda_sync_free_row_us = 0.0001;
/// CUDA, the one-block solve of small factors (cuda.cu): the launch and the staging of the
/// copy into shared memory, and a round of a level (ceil(width / groups)); fitted to the
/// H200 figures of session 12 (ILU(0) L, 1024 threads: add32 37.4 us for ~58 rounds,
/// sherman5 28.4 us for ~55, mcfe 245 us for ~580).
constexpr double cuda_one_block_us = 10.0;
constexpr double cuda_one_block_round_us = 0.4;
/// The widest supernode: a wider run of dense rows is cut, so that an inverted block stays
/// a short dense product per row, its padding to a power of two small, and the cut adds a
/// level only every 64 rows.
constexpr size_type max_supernode_width = 64;
/// CUDA: automatic picks supernodal when op(T)'s supernodes average at least this many rows
/// (then a supernodal level replaces at least that many level-set levels).
constexpr size_type cuda_supernodal_min_mean_width = 4;

bool transposes(blas::Op op) { return op != blas::Op::none; }

/// Whether op(T) is lower triangular: T's triangle, swapped by a transpose.
bool solves_lower(const SptrsvOptions& options)
{
    return (options.uplo == blas::Uplo::lower) != transposes(options.op);
}

/// BadInput naming the first entry of T outside its triangle.
template <typename I>
void check_triangle(const char* where, const std::vector<I>& ptrs, const std::vector<I>& cols,
                    blas::Uplo uplo)
{
    const bool lower = uplo == blas::Uplo::lower;
    for (size_type r = 0; r + 1 < static_cast<size_type>(ptrs.size()); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            const size_type c = cols[k];
            if (lower ? c > r : c < r) {
                throw BadInput(where,
                               "entry (" + std::to_string(r) + ", " + std::to_string(c) +
                                   ") lies " + (lower ? "above" : "below") + " the diagonal of " +
                                   (lower ? "a lower" : "an upper") + " triangular matrix");
            }
        }
    }
}

/// The error for a singular T: row's diagonal entries are missing or sum to zero.
NumericalError zero_diagonal(const char* where, size_type row)
{
    return NumericalError(where, "row " + std::to_string(row) +
                                     " has a zero or missing diagonal entry (a singular "
                                     "triangular matrix; use a unit diagonal if it is implied)");
}

/// NumericalError naming the first row whose diagonal (duplicates summed) is zero or missing;
/// found on T's executor (CUDA: only the row comes back).
template <typename V, typename I>
void check_diagonal(const char* where, const matrix::Csr<V, I>& T, const SptrsvOptions& options)
{
    if (options.diag == blas::Diag::unit || T.rows() == 0) return;
    const auto diagonal = extract_diagonal(T);
    size_type zero = 0;
    if (T.executor()->kind() == ExecKind::cuda) {
        LOOM_CUDA_CALL(where, zero = cuda::sptrsv_first_zero(
                                  dynamic_cast<const CudaExecutor&>(*T.executor()),
                                  diagonal.data(), T.rows(), diagonal.stride()));
    } else {
        const auto host = diagonal.to_host();
        zero = std::find(host.begin(), host.end(), V{0}) - host.begin();
    }
    if (zero < T.rows()) throw zero_diagonal(where, zero);
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

/// Where op(T)'s supernodes start, n last: a row joins the supernode above it while their
/// diagonal block stays dense (every entry present) and at most max_supernode_width wide.
/// ptrs, cols: the lower one of T and T^T (a block dense in one is dense in the other).
template <typename I>
std::vector<I> supernode_starts(size_type n, const std::vector<I>& ptrs, const std::vector<I>& cols)
{
    std::vector<I> first{0};
    if (n == 0) return first;
    std::vector<I> seen(n, -1);
    for (size_type r = 1; r < n; ++r) {
        const size_type s = first.back();
        if (r - s < max_supernode_width) {
            size_type found = 0;
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                const size_type c = cols[k];
                if (c >= s && c < r && seen[c] != r) {
                    seen[c] = static_cast<I>(r);
                    ++found;
                }
            }
            if (found == r - s) continue;
        }
        first.push_back(static_cast<I>(r));
    }
    first.push_back(static_cast<I>(n));
    return first;
}

/// The partition the caller gave (options.supernodes), its runs cut at max_supernode_width;
/// BadInput unless it runs from 0 to n in increasing steps.
template <typename I>
std::vector<I> given_supernode_starts(size_type n, const std::vector<size_type>& given)
{
    bool valid = given.size() >= 2 && given.front() == 0 && given.back() == n;
    for (std::size_t s = 0; valid && s + 1 < given.size(); ++s) valid = given[s] < given[s + 1];
    if (!valid && !(n == 0 && given.size() == 1 && given.front() == 0)) {
        throw BadInput(symbolic_where,
                       "options.supernodes must rise strictly from 0 to n = " + std::to_string(n) +
                           " (where each supernode starts, "
                           "n last)");
    }
    std::vector<I> first{0};
    for (std::size_t s = 0; s + 1 < given.size(); ++s) {
        for (auto r = given[s] + max_supernode_width; r < given[s + 1]; r += max_supernode_width) {
            first.push_back(static_cast<I>(r));
        }
        first.push_back(static_cast<I>(given[s + 1]));
    }
    return first;
}

/// The supernodal schedule on exec: supernodes sorted by their level in op(T)'s supernodal
/// elimination tree (one more than the highest supernode they read), and their diagonal
/// blocks laid out in batches of one padded width, the padding set to the identity (the
/// blocks themselves are gathered and inverted by invert_diagonal_blocks). ptrs, cols:
/// op(T)'s rows.
template <typename V, typename I>
detail::Supernodes<V, I> supernodal_schedule(const std::shared_ptr<const Executor>& exec,
                                             const std::vector<I>& first,
                                             const std::vector<I>& ptrs, const std::vector<I>& cols,
                                             bool lower)
{
    const size_type count = static_cast<size_type>(first.size()) - 1;
    const size_type n = first.back();
    std::vector<I> row_super(n);
    for (size_type s = 0; s < count; ++s) {
        std::fill(row_super.begin() + first[s], row_super.begin() + first[s + 1], I(s));
    }
    std::vector<I> level(count, 0);
    for (size_type i = 0; i < count; ++i) {
        const auto s = lower ? i : count - 1 - i;
        I l = 0;
        for (auto k = ptrs[first[s]]; k < ptrs[first[s + 1]]; ++k) {
            const auto t = row_super[cols[k]];
            if (t != s) l = std::max<I>(l, level[t] + 1);
        }
        level[s] = l;
    }
    detail::Supernodes<V, I> supernodes;
    const auto levels = count == 0 ? 0 : *std::max_element(level.begin(), level.end()) + 1;
    auto& level_ptrs = supernodes.host_level_ptrs;
    level_ptrs.assign(levels + 1, 0);
    for (size_type s = 0; s < count; ++s) level_ptrs[level[s] + 1] += first[s + 1] - first[s];
    for (I l = 0; l < levels; ++l) level_ptrs[l + 1] += level_ptrs[l];
    std::vector<I> order(n);
    auto next = level_ptrs;
    supernodes.host_level_entries.assign(levels, 0);
    for (size_type s = 0; s < count; ++s) {
        for (auto r = first[s]; r < first[s + 1]; ++r) order[next[level[s]]++] = r;
        supernodes.host_level_entries[level[s]] += ptrs[first[s + 1]] - ptrs[first[s]];
    }
    // Blocks by padded width, narrowest batch first.
    std::vector<I> width(count);
    std::vector<size_type> offset(count);
    size_type total = 0;
    for (size_type w = 1; w <= max_supernode_width; w *= 2) {
        size_type in_batch = 0;
        for (size_type s = 0; s < count; ++s) {
            const size_type rows = first[s + 1] - first[s];
            if (rows > w || (w > 1 && rows <= w / 2)) continue;
            width[s] = static_cast<I>(w);
            offset[s] = total + in_batch++ * w * w;
        }
        if (in_batch == 0) continue;
        supernodes.batch_offset.push_back(total);
        supernodes.batch_count.push_back(in_batch);
        supernodes.batch_width.push_back(w);
        total += in_batch * w * w;
    }
    std::vector<V> blocks(total, V{0});
    for (size_type s = 0; s < count; ++s) {
        for (size_type i = first[s + 1] - first[s]; i < width[s]; ++i) {
            blocks[offset[s] + i * width[s] + i] = V{1};
        }
    }
    supernodes.first_row = Array<I>(exec, first);
    supernodes.row_super = Array<I>(exec, row_super);
    supernodes.block_offset = Array<size_type>(exec, offset);
    supernodes.block_width = Array<I>(exec, width);
    supernodes.blocks = Array<V>(exec, blocks);
    supernodes.order = Array<I>(exec, order);
    return supernodes;
}

/// Whether automatic picks supernodal: on CUDA, for supernodes of op(T) that average at
/// least cuda_supernodal_min_mean_width rows.
bool picks_supernodal(const Executor& exec, size_type n, size_type supernodes)
{
    return exec.kind() == ExecKind::cuda && n >= cuda_supernodal_min_mean_width * supernodes;
}

/// The level-set schedule's cost on CUDA launched stage by stage (constants above).
/// long_rows: a warp per row (cuda.cu), so fewer rows per chained block.
template <typename I>
double cuda_launched_us(const detail::LevelSchedule<I>& schedule, bool long_rows)
{
    const double groups_per_block = long_rows ? 32 : 256;  // cuda.cu: 1024 threads / G
    double cost = 0;
    for (size_type s = 0; s < schedule.stages(); ++s) {
        if (!schedule.chained[s]) {
            cost += cuda_launch_us;
            continue;
        }
        for (auto l = schedule.stage_ptrs[s]; l < schedule.stage_ptrs[s + 1]; ++l) {
            const auto width = schedule.host_level_ptrs[l + 1] - schedule.host_level_ptrs[l];
            cost += cuda_chained_round_us * std::ceil(width / groups_per_block);
        }
    }
    return cost;
}

/// CUDA: whether the level set runs as one persistent launch (a grid barrier per level)
/// rather than stage by stage: for many fat levels, not for a run of thin chained ones.
template <typename I>
void choose_persistent(detail::LevelSchedule<I>& schedule, const Executor& exec, bool long_rows)
{
    schedule.persistent =
        exec.kind() == ExecKind::cuda &&
        cuda_persistent_level_us * static_cast<double>(schedule.levels()) <
            cuda_launched_us(schedule, long_rows);
}

/// The level-set schedule's cost on CUDA, persistent or launched (constants above).
template <typename I>
double cuda_level_set_us(const detail::LevelSchedule<I>& schedule, bool long_rows)
{
    return schedule.persistent ? cuda_persistent_level_us * static_cast<double>(schedule.levels())
                               : cuda_launched_us(schedule, long_rows);
}

/// The one-block solve's cost (constants above): a round of its groups per level.
template <typename I>
double cuda_one_block_cost_us(const detail::LevelSchedule<I>& schedule, bool long_rows)
{
    const double groups = long_rows ? 128 : 256;  // cuda.cu: 1024 threads / (8 or 4 lanes)
    double cost = cuda_one_block_us;
    for (size_type l = 0; l < schedule.levels(); ++l) {
        const auto width = schedule.host_level_ptrs[l + 1] - schedule.host_level_ptrs[l];
        cost += cuda_one_block_round_us * std::ceil(width / groups);
    }
    return cost;
}

/// Whether op(T) may fit the one-block solve (cuda.cu): its copy (at most `entries` off the
/// diagonal, `levels` levels) and x in one block's shared memory.
template <typename V, typename I>
bool may_fit_one_block([[maybe_unused]] const Executor& exec, size_type n, size_type entries,
                       size_type levels)
{
    if (exec.kind() != ExecKind::cuda || n == 0) return false;
    size_type capacity = 0;
    LOOM_CUDA_CALL(symbolic_where, capacity = cuda::sptrsv_one_block_capacity(
                                       dynamic_cast<const CudaExecutor&>(exec)));
    return cuda::sptrsv_one_block_bytes<V, I>(n, entries, levels) <= capacity;
}

/// The model behind automatic on CUDA: whether a sync-free solve is expected to beat the
/// level-set schedule (constants above).
template <typename I>
bool sync_free_is_faster(const detail::LevelSchedule<I>& schedule, bool long_rows)
{
    const double level_set = cuda_level_set_us(schedule, long_rows);
    const double rows = static_cast<double>(schedule.host_level_ptrs[schedule.levels()]);
    const double sync_free = std::max(cuda_sync_free_hop_us * static_cast<double>(schedule.levels()),
                                      cuda_sync_free_row_us * rows);
    return sync_free < level_set;
}

/// The algorithm that runs: `automatic` resolved for the executor and what the analysis
/// found; NotSupported for one the executor cannot run. On CUDA: supernodal for wide
/// supernodes, else the faster of level_set and sync_free by sync_free_is_faster; level_set
/// on the host.
/// small: op(T) may fit the one-block solve, which beats supernodal's two launches a level.
template <typename I>
SptrsvAlgorithm resolve(SptrsvAlgorithm asked, const Executor& exec,
                        const detail::LevelSchedule<I>& schedule, size_type n, size_type nnz,
                        size_type supernodes, bool small)
{
    const bool cuda = exec.kind() == ExecKind::cuda;
    if (!cuda && (asked == SptrsvAlgorithm::sync_free || asked == SptrsvAlgorithm::vendor)) {
        throw NotSupported(symbolic_where, std::string("SptrsvAlgorithm::") + to_string(asked) +
                                               " runs on CUDA executors only; T lives on " +
                                               exec.name() + " (use level_set)");
    }
    if (asked != SptrsvAlgorithm::automatic) return asked;
    if (!small && picks_supernodal(exec, n, supernodes)) return SptrsvAlgorithm::supernodal;
    if (cuda && sync_free_is_faster(schedule, nnz > 8 * n)) return SptrsvAlgorithm::sync_free;
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

/// op(T) as the kernels read it: T's rows, or those of T^T the analysis built.
template <typename V, typename I>
detail::TriangularRows<V, I> triangular_rows(const detail::SptrsvState<V, I>& state,
                                             const SptrsvOptions& options,
                                             const matrix::Csr<V, I>& T)
{
    detail::TriangularRows<V, I> rows;
    rows.n = T.rows();
    rows.nnz = T.nnz();
    rows.values = T.values().const_data();
    rows.lower = solves_lower(options);
    rows.unit = options.diag == blas::Diag::unit;
    rows.conjugate = options.op == blas::Op::conj_transpose;
    if (transposes(options.op)) {
        rows.row_ptrs = state.transposed_row_ptrs.const_data();
        rows.col_idxs = state.transposed_col_idxs.const_data();
        rows.value_index = state.transposed_value_index.const_data();
    } else {
        rows.row_ptrs = T.row_ptrs().const_data();
        rows.col_idxs = T.col_idxs().const_data();
    }
    return rows;
}

/// The partitioned inverse: gathers T's current values into the supernodes' diagonal blocks
/// and inverts them in place, one batched TRTRI per padded width.
template <typename V, typename I>
void invert_diagonal_blocks([[maybe_unused]] const char* where, detail::SptrsvState<V, I>& state,
                            const SptrsvOptions& options, const matrix::Csr<V, I>& T)
{
    if (T.rows() == 0) return;
    const auto rows = triangular_rows(state, options, T);
    auto& supernodes = state.supernodes;
    state.exec->run(loom::detail::overloaded{
        [&](const ReferenceExecutor& e) {
            reference::sptrsv_supernodal_blocks(e, rows, supernodes);
        },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            LOOM_OMP_CALL(where, omp::sptrsv_supernodal_blocks(e, rows, supernodes));
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(where, cuda::sptrsv_supernodal_blocks(e, rows, supernodes));
        }});
    const auto uplo = rows.lower ? blas::Uplo::lower : blas::Uplo::upper;
    Array<int32> info(state.exec, 0);
    for (size_type c = 0; c < static_cast<size_type>(supernodes.batch_count.size()); ++c) {
        const auto w = supernodes.batch_width[c];
        auto batch =
            matrix::BatchDense<V>::view(state.exec, supernodes.batch_count[c], {w, w}, w, w * w,
                                        supernodes.blocks.data() + supernodes.batch_offset[c]);
        batched::trtri(uplo, blas::Diag::non_unit, batch, info);
    }
}

/// Whether the solve reads the level schedule: level_set its stages, sync_free its order.
bool uses_schedule(SptrsvAlgorithm algorithm)
{
    return algorithm == SptrsvAlgorithm::level_set || algorithm == SptrsvAlgorithm::sync_free;
}

/// The level schedule the analysis kept, for the handle's queries; BadInput for an algorithm
/// that keeps none.
template <typename V, typename I>
const detail::LevelSchedule<I>& kept_schedule(const detail::SptrsvState<V, I>& state,
                                              const char* where)
{
    if (!uses_schedule(state.algorithm)) {
        throw BadInput(where, std::string("SptrsvAlgorithm::") + to_string(state.algorithm) +
                                  " keeps no level schedule (analyse with level_set)");
    }
    return state.schedule;
}

/// What the handle reports of the levels found.
template <typename V, typename I>
void record_levels(detail::SptrsvState<V, I>& state, const detail::LevelSchedule<I>& schedule)
{
    state.levels = schedule.levels();
    for (size_type l = 0; l < state.levels; ++l) {
        state.max_level_width = std::max<size_type>(
            state.max_level_width, schedule.host_level_ptrs[l + 1] - schedule.host_level_ptrs[l]);
    }
}

/// BadInput for a matrix without an executor, DimensionMismatch for one that is not square.
template <typename V, typename I>
void check_square(const char* where, const matrix::Csr<V, I>& T)
{
    if (!T.executor()) throw BadInput(where, "T has no executor (it was default-constructed)");
    if (T.rows() != T.cols()) {
        throw DimensionMismatch(where, "T", T.size(), "T", T.size(),
                                "a triangular solve needs a square matrix");
    }
}

/// At most how many of T's entries lie off the diagonal: a stored diagonal (checked by the
/// analysis) takes one entry a row.
template <typename V, typename I>
size_type off_diagonal_bound(const matrix::Csr<V, I>& T, const SptrsvOptions& options)
{
    return options.diag == blas::Diag::unit ? T.nnz() : T.nnz() - T.rows();
}

/// The analysis on the host (T's pattern read back once); every executor and algorithm.
template <typename V, typename I>
std::unique_ptr<detail::SptrsvState<V, I>> host_analysis(const matrix::Csr<V, I>& T,
                                                         const SptrsvOptions& options,
                                                         Scope scope = Scope::solve)
{
    const auto& exec = T.executor();
    const auto n = T.rows();
    const auto ptrs = T.row_ptrs().to_host();
    const auto cols = T.col_idxs().to_host();
    check_triangle(scope == Scope::solve ? symbolic_where : levels_where, ptrs, cols,
                   options.uplo);
    if (scope == Scope::solve) check_diagonal(symbolic_where, T, options);

    auto state = std::make_unique<detail::SptrsvState<V, I>>();
    state->exec = exec;
    const bool lower = solves_lower(options);
    std::vector<I> t_ptrs, t_cols, t_index;
    const bool finds_supernodes = scope == Scope::solve;
    if (transposes(options.op) || (finds_supernodes && options.uplo == blas::Uplo::upper)) {
        transpose_pattern(n, ptrs, cols, t_ptrs, t_cols, t_index);
    }
    const auto& op_ptrs = transposes(options.op) ? t_ptrs : ptrs;
    const auto& op_cols = transposes(options.op) ? t_cols : cols;
    if (transposes(options.op) && scope == Scope::solve) {
        state->transposed_row_ptrs = Array<I>(exec, t_ptrs);
        state->transposed_col_idxs = Array<I>(exec, t_cols);
        state->transposed_value_index = Array<I>(exec, t_index);
    }
    const auto level = detail::row_levels(n, op_ptrs, op_cols, lower);
    const auto first = !finds_supernodes ? std::vector<I>{}
                       : !options.supernodes.empty()
                           ? given_supernode_starts<I>(n, options.supernodes)
                       : options.uplo == blas::Uplo::lower ? supernode_starts(n, ptrs, cols)
                                                           : supernode_starts(n, t_ptrs, t_cols);
    state->supernode_count = finds_supernodes ? static_cast<size_type>(first.size()) - 1 : 0;
    auto schedule = detail::level_schedule(level, thin_width(*exec));
    choose_persistent(schedule, *exec, T.nnz() > 8 * n);
    record_levels(*state, schedule);
    state->algorithm =
        resolve(options.algorithm, *exec, schedule, n, T.nnz(), state->supernode_count,
                may_fit_one_block<V, I>(*exec, n, off_diagonal_bound(T, options), schedule.levels()));
    if (uses_schedule(state->algorithm)) {
        schedule.order = Array<I>(exec, schedule.host_order);
        schedule.level_ptrs = Array<I>(exec, schedule.host_level_ptrs);
        state->schedule = std::move(schedule);
    }
    if (state->algorithm == SptrsvAlgorithm::supernodal) {
        state->supernodes = supernodal_schedule<V>(exec, first, op_ptrs, op_cols, lower);
        invert_diagonal_blocks(symbolic_where, *state, options, T);
    }
    if (state->algorithm == SptrsvAlgorithm::vendor) {
        check_vendor(T);
        LOOM_CUDA_CALL(symbolic_where, state->vendor = cuda::sptrsv_vendor_analysis(
                                           dynamic_cast<const CudaExecutor&>(*exec), T, options));
    }
    return state;
}

/// Whether the analysis runs on the device: on CUDA for the algorithms whose schedule the
/// device computes (level sets, sync-free, and automatic unless it picks supernodal).
bool analyses_on_device(const Executor& exec, const SptrsvOptions& options)
{
    const auto algorithm = options.algorithm;
    return exec.kind() == ExecKind::cuda && options.supernodes.empty() &&
           (algorithm == SptrsvAlgorithm::automatic || algorithm == SptrsvAlgorithm::level_set ||
            algorithm == SptrsvAlgorithm::sync_free);
}

/// The analysis on a CUDA executor without reading T's pattern back: the same checks,
/// levels, stages and supernode count as host_analysis, from kernels (cuda.cu); only the
/// level pointers and a few kilobytes of the supernode count come back. nullptr when
/// automatic picks supernodal, whose schedule the host builds.
template <typename V, typename I>
std::unique_ptr<detail::SptrsvState<V, I>> device_analysis(const matrix::Csr<V, I>& T,
                                                           [[maybe_unused]] const SptrsvOptions& options,
                                                           [[maybe_unused]] Scope scope = Scope::solve,
                                                           [[maybe_unused]] const SptrsvLevels<I>* given = nullptr)
{
    auto state = std::make_unique<detail::SptrsvState<V, I>>();
    state->exec = T.executor();
    [[maybe_unused]] const char* where = scope == Scope::solve ? symbolic_where : levels_where;
    LOOM_CUDA_CALL(where, {
        const auto& exec = dynamic_cast<const CudaExecutor&>(*state->exec);
        const auto n = T.rows();
        const auto* ptrs = T.row_ptrs().const_data();
        const auto* cols = T.col_idxs().const_data();
        const bool t_lower = options.uplo == blas::Uplo::lower;
        const bool solves = scope == Scope::solve;
        detail::AnalysisLaps laps(exec);
        const auto bad = cuda::sptrsv_first_bad_rows(
            exec, n, ptrs, cols, T.values().const_data(), t_lower,
            !solves || options.diag == blas::Diag::unit);
        if (bad.outside_triangle < n) {
            // Only the error message reads the pattern back.
            check_triangle(where, T.row_ptrs().to_host(), T.col_idxs().to_host(), options.uplo);
        }
        if (bad.zero_diagonal < n) throw zero_diagonal(symbolic_where, bad.zero_diagonal);
        laps.lap("checks");
        Array<I> t_ptrs, t_cols, t_index;
        if (transposes(options.op) || (solves && !t_lower)) {
            cuda::sptrsv_transpose_pattern(exec, n, T.nnz(), ptrs, cols, t_ptrs, t_cols, t_index);
        }
        // Supernodes are found on the lower one of T and T^T, as supernode_starts.
        if (solves) {
            state->supernode_count =
                t_lower ? cuda::sptrsv_count_supernodes(exec, n, ptrs, cols, max_supernode_width)
                        : cuda::sptrsv_count_supernodes(exec, n, t_ptrs.const_data(),
                                                        t_cols.const_data(), max_supernode_width);
        }
        laps.lap("transpose, supernodes");
        // The levels are not known yet: at most n.
        const auto entries = off_diagonal_bound(T, options);
        if (solves && options.algorithm == SptrsvAlgorithm::automatic &&
            picks_supernodal(exec, n, state->supernode_count) &&
            !may_fit_one_block<V, I>(exec, n, entries, n)) {
            return nullptr;
        }
        const bool op_transposed = transposes(options.op);
        detail::LevelSchedule<I> schedule;
        // A handed-over schedule that holds (sptrsv_given_schedule) replaces the level pass.
        const bool given_holds =
            given && cuda::sptrsv_given_schedule(exec, n, op_transposed ? t_ptrs.const_data() : ptrs,
                                                 op_transposed ? t_cols.const_data() : cols,
                                                 *given, schedule);
        if (!given_holds)  // (the call kept as it was: one statement)
        cuda::sptrsv_level_schedule(exec, n, T.nnz(), op_transposed ? t_ptrs.const_data() : ptrs,
                                    op_transposed ? t_cols.const_data() : cols,
                                    solves_lower(options), schedule);
        laps.lap("level schedule");
        detail::group_stages(schedule, thin_width(exec));
        choose_persistent(schedule, exec, T.nnz() > 8 * n);
        record_levels(*state, schedule);
        state->algorithm =
            resolve(options.algorithm, exec, schedule, n, T.nnz(), state->supernode_count,
                    may_fit_one_block<V, I>(exec, n, entries, schedule.levels()));
        if (op_transposed) {
            state->transposed_row_ptrs = std::move(t_ptrs);
            state->transposed_col_idxs = std::move(t_cols);
            state->transposed_value_index = std::move(t_index);
        }
        if (uses_schedule(state->algorithm)) state->schedule = std::move(schedule);
    });
    return state;
}

/// Whether the solve may read op(T)'s level-ordered copy: CUDA's persistent level set,
/// its one-block solve (decided once the copy is built), and sync-free.
template <typename V, typename I>
bool keeps_level_ordered_rows(const detail::SptrsvState<V, I>& state, const SptrsvOptions& options,
                              const matrix::Csr<V, I>& T)
{
    const auto& schedule = state.schedule;
    return state.exec->kind() == ExecKind::cuda &&
           ((state.algorithm == SptrsvAlgorithm::level_set &&
             (schedule.persistent || may_fit_one_block<V, I>(*state.exec, T.rows(),
                                                             off_diagonal_bound(T, options),
                                                             schedule.levels()))) ||
            state.algorithm == SptrsvAlgorithm::sync_free);
}

/// Builds (pattern) or refreshes the level-ordered copy of op(T) where the solve reads it.
/// On building, a level set takes the one-block solve when the model prefers it and the
/// copy fits, and otherwise keeps the copy only when persistent.
template <typename V, typename I>
void level_ordered_rows([[maybe_unused]] const char* where, detail::SptrsvState<V, I>& state,
                        [[maybe_unused]] const SptrsvOptions& options, const matrix::Csr<V, I>& T,
                        bool pattern)
{
    if (T.rows() == 0 || (pattern ? !keeps_level_ordered_rows(state, options, T)
                                  : state.level_ordered.ptrs.size() == 0)) {
        return;
    }
    LOOM_CUDA_CALL(where, {
        const auto& exec = dynamic_cast<const CudaExecutor&>(*state.exec);
        auto& copy = state.level_ordered;
        auto& schedule = state.schedule;
        cuda::sptrsv_level_ordered_rows(exec, triangular_rows(state, options, T), schedule, pattern,
                                        copy);
        if (!pattern || state.algorithm != SptrsvAlgorithm::level_set) return;
        const bool long_rows = T.nnz() > 8 * T.rows();  // as the analysis' cost model
        if (cuda_one_block_cost_us(schedule, long_rows) < cuda_level_set_us(schedule, long_rows) &&
            cuda::sptrsv_one_block_bytes<V, I>(T.rows(), copy.cols.size(), schedule.levels()) <=
                cuda::sptrsv_one_block_capacity(exec)) {
            cuda::sptrsv_one_block_prepare(exec, copy);
        } else if (!schedule.persistent) {
            copy = {};
        }
    });
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
    if (state.algorithm == SptrsvAlgorithm::supernodal) return 2 * state.supernodes.levels();
    if (state.algorithm != SptrsvAlgorithm::level_set || state.schedule.persistent ||
        state.level_ordered.one_block) {
        return 1;
    }
    return state.schedule.stages();
}

template <typename V, typename I>
size_type SptrsvHandle<V, I>::supernodes() const
{
    return this->analysis("loom::sparse::SptrsvHandle::supernodes").supernode_count;
}

template <typename V, typename I>
const Array<I>& SptrsvHandle<V, I>::level_ptrs() const
{
    constexpr const char* where = "loom::sparse::SptrsvHandle::level_ptrs";
    return kept_schedule(this->analysis(where), where).level_ptrs;
}

template <typename V, typename I>
const Array<I>& SptrsvHandle<V, I>::level_rows() const
{
    constexpr const char* where = "loom::sparse::SptrsvHandle::level_rows";
    return kept_schedule(this->analysis(where), where).order;
}

template <typename V, typename I>
SptrsvLevels<I> sptrsv_levels(const matrix::Csr<V, I>& T, const SptrsvOptions& options)
{
    check_square(levels_where, T);
    const SptrsvOptions level_set{.algorithm = SptrsvAlgorithm::level_set,
                                  .uplo = options.uplo,
                                  .op = options.op};
    auto state = analyses_on_device(*T.executor(), level_set)
                     ? device_analysis(T, level_set, Scope::schedule)
                     : host_analysis(T, level_set, Scope::schedule);
    return {std::move(state->schedule.level_ptrs), std::move(state->schedule.order)};
}

template <typename V, typename I>
void sptrsv_symbolic(SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T)
{
    sptrsv_symbolic(handle, T, SptrsvLevels<I>{});
}

template <typename V, typename I>
void sptrsv_symbolic(SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T,
                     const SptrsvLevels<I>& levels)
{
    check_square(symbolic_where, T);
    const auto& exec = T.executor();
    const auto& options = handle.options();
    const auto* given = levels.level_ptrs.size() > 0 ? &levels : nullptr;
    auto state = analyses_on_device(*exec, options)
                     ? device_analysis(T, options, Scope::solve, given)
                     : nullptr;
    if (!state) state = host_analysis(T, options);
    detail::AnalysisLaps laps(*exec);
    level_ordered_rows(symbolic_where, *state, options, T, true);
    laps.lap("level-ordered copy");
    state->pattern = pattern_fingerprint(T, options.pattern_check);
    laps.lap("fingerprint");
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
    level_ordered_rows(numeric_where, *state, handle.options(), T, false);
    if (state->algorithm == SptrsvAlgorithm::supernodal) {
        invert_diagonal_blocks(numeric_where, *state, handle.options(), T);
    }
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

    const auto rows = triangular_rows(*state, options, T);
    const bool supernodal = state->algorithm == SptrsvAlgorithm::supernodal;
    matrix::Dense<V> work;
    if (supernodal) work = matrix::Dense<V>(state->exec, b.size());
    state->exec->run(loom::detail::overloaded{
        [&](const ReferenceExecutor& e) {
            if (supernodal) {
                reference::sptrsv_supernodal(e, rows, state->supernodes, b, x, work);
            } else {
                reference::sptrsv_level_set(e, rows, state->schedule, b, x);
            }
        },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            LOOM_OMP_CALL(solve_where, {
                if (supernodal) {
                    omp::sptrsv_supernodal(e, rows, state->supernodes, b, x, work);
                } else {
                    omp::sptrsv_level_set(e, rows, state->schedule, b, x);
                }
            });
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(solve_where, {
                switch (state->algorithm) {
                case SptrsvAlgorithm::sync_free:
                    cuda::sptrsv_sync_free(e, state->level_ordered, state->schedule, b, x);
                    break;
                case SptrsvAlgorithm::vendor:
                    cuda::sptrsv_vendor_solve(e, state->vendor, T, b, x);
                    break;
                case SptrsvAlgorithm::supernodal:
                    cuda::sptrsv_supernodal(e, rows, state->supernodes, b, x, work);
                    break;
                default:
                    if (state->level_ordered.one_block) {
                        cuda::sptrsv_one_block(e, state->level_ordered, state->schedule, b, x);
                    } else if (state->schedule.persistent) {
                        cuda::sptrsv_persistent_level_set(e, state->level_ordered,
                                                          state->schedule, b, x);
                    } else {
                        cuda::sptrsv_level_set(e, rows, state->schedule, b, x);
                    }
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
    template void sptrsv_symbolic(SptrsvHandle<V, I>&, const matrix::Csr<V, I>&,               \
                                  const SptrsvLevels<I>&);                                     \
    template void sptrsv_numeric(SptrsvHandle<V, I>&, const matrix::Csr<V, I>&);               \
    template void sptrsv_solve(const SptrsvHandle<V, I>&, const matrix::Csr<V, I>&,            \
                               const matrix::Dense<V>&, matrix::Dense<V>&);                    \
    template void sptrsv(const matrix::Csr<V, I>&, const matrix::Dense<V>&, matrix::Dense<V>&, \
                         const SptrsvOptions&);                                                \
    template SptrsvLevels<I> sptrsv_levels(const matrix::Csr<V, I>&, const SptrsvOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPTRSV)

}  // namespace loom::sparse
