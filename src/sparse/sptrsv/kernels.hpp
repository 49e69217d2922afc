// Per-backend entry points of SpTRSV, and what the analysis hands them. sptrsv.cpp checks
// the arguments, analyses the pattern (on the host) and dispatches.
//
// Every solve reads op(T) as the rows of a triangular matrix (TriangularRows): T's own rows
// for op none, the rows of T^T otherwise, whose pattern the analysis builds once and whose
// values are gathered from T's through `value_index`, so that a solve always reads T's
// current values and a transposed solve needs no numeric phase of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/export.hpp"
#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/sptrsv.hpp"

namespace loom::sparse::detail {

/// op(T) as rows: row r of op(T) holds entries row_ptrs[r] .. row_ptrs[r + 1] - 1. Entries
/// with col == r are the diagonal (summed; never read for a unit diagonal); the others lie
/// in one triangle (checked by the analysis).
template <typename V, typename I>
struct TriangularRows {
    size_type n = 0;
    size_type nnz = 0;
    const I* row_ptrs = nullptr;
    const I* col_idxs = nullptr;
    const V* values = nullptr;
    /// nullptr: entry k's value is values[k]; otherwise values[value_index[k]].
    const I* value_index = nullptr;
    bool lower = true;
    bool unit = false;
    bool conjugate = false;

    LOOM_HOST_DEVICE LOOM_INLINE V value(I k) const
    {
        return values[value_index == nullptr ? k : value_index[k]];
    }
};

/// The level schedule of op(T): rows sorted by level, and how levels group into stages (a
/// fat level alone, or a run of consecutive thin levels chained).
template <typename I>
struct LevelSchedule {
    /// Rows of level l are order[level_ptrs[l] .. level_ptrs[l + 1] - 1], on the executor.
    Array<I> order;
    Array<I> level_ptrs;
    /// order and level_ptrs on the host (level_ptrs drives the loop over stages).
    std::vector<I> host_order;
    std::vector<I> host_level_ptrs;
    /// Stage s runs levels stage_ptrs[s] .. stage_ptrs[s + 1] - 1; chained[s] says whether
    /// they are thin ones run together.
    std::vector<size_type> stage_ptrs;
    std::vector<bool> chained;
    /// CUDA: all levels in one persistent launch with a grid barrier per level, instead of
    /// the stages' launches (chosen by the analysis' cost model, sptrsv.cpp).
    bool persistent = false;

    size_type levels() const
    {
        return host_level_ptrs.empty() ? 0 : static_cast<size_type>(host_level_ptrs.size()) - 1;
    }
    size_type stages() const { return static_cast<size_type>(chained.size()); }
};

/// op(T)'s rows copied in the schedule's level order (CUDA, persistent level set): position
/// i (row order[i]) holds the row's entries off the diagonal at ptrs[i] .. ptrs[i + 1] - 1
/// (cols, values; conjugated for conj_transpose) and 1 / its diagonal (1 for a unit one), so
/// that the rows of one level lie side by side (coalesced loads) and a solve reaches a row's
/// entries in two dependent loads instead of four (order -> row_ptrs -> cols -> x). The
/// values are T's at the last analysis or numeric phase.
template <typename V, typename I>
struct LevelOrderedRows {
    Array<I> ptrs;
    Array<I> cols;
    Array<V> values;
    Array<V> inverse_diagonal;
    /// Where each row sits in the copy.
    Array<I> position_of;
    /// One block (cuda.cu, one_block_kernel): the whole solve by one block of threads that
    /// holds the copy and x in shared memory, __syncthreads between levels; cols as
    /// positions in the copy (position_cols[k] = position_of[cols[k]]).
    bool one_block = false;
    Array<I> position_cols;
};

/// The supernodal schedule of op(T) (algorithm supernodal): its rows cut into supernodes,
/// runs of consecutive rows whose diagonal block is dense, and the inverses of those blocks
/// (the partitioned inverse). Every array lives on the executor unless it says host.
template <typename V, typename I>
struct Supernodes {
    /// Supernode s holds rows first_row[s] .. first_row[s + 1] - 1; count + 1 entries.
    Array<I> first_row;
    /// The supernode of every row.
    Array<I> row_super;
    /// Supernode s's block is the W x W row-major matrix at blocks[block_offset[s]], W =
    /// block_width[s]: its width rounded up to a power of two, padded with the identity so
    /// that blocks of one W form one uniform batch for batched::trtri.
    Array<size_type> block_offset;
    Array<I> block_width;
    Array<V> blocks;
    /// The batches: blocks of width batch_width[c] are the batch_count[c] matrices from
    /// blocks[batch_offset[c]] on (host).
    std::vector<size_type> batch_offset;
    std::vector<size_type> batch_count;
    std::vector<size_type> batch_width;
    /// Rows sorted by the level of their supernode; level l's rows are
    /// order[level_ptrs[l] .. level_ptrs[l + 1] - 1] (level_ptrs on the host).
    Array<I> order;
    std::vector<I> host_level_ptrs;
    /// The entries of level l's rows (host): how long its rows are, on average.
    std::vector<size_type> host_level_entries;

    size_type count() const { return first_row.size() == 0 ? 0 : first_row.size() - 1; }
    size_type levels() const
    {
        return host_level_ptrs.empty() ? 0 : static_cast<size_type>(host_level_ptrs.size()) - 1;
    }
};

/// LOOM_SPTRSV_PROFILE=1: the analysis prints the time of each step to stderr (the executor
/// synchronised first); a measurement switch.
class LOOM_EXPORT AnalysisLaps {
public:
    explicit AnalysisLaps(const Executor& exec);
    void lap(const char* step);

private:
    const Executor* exec_;
    bool on_;
    double last_ = 0;
};

/// CUDA: a level of fewer rows than this is thin, and consecutive thin levels run in one
/// launch of one block (cuda.cu), synchronised by __syncthreads between levels.
constexpr size_type cuda_chain_width = 1024;

}  // namespace loom::sparse::detail

#define LOOM_DECLARE_SPTRSV_KERNELS(Exec)                                                         \
    /* x = op(T)^-1 b, rows by level stage by stage */                                            \
    template <typename V, typename I>                                                             \
    void sptrsv_level_set(const Exec& exec, const detail::TriangularRows<V, I>& rows,             \
                          const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,    \
                          matrix::Dense<V>& x);                                                   \
    /* the diagonal blocks of op(T)'s supernodes (not yet inverted) into supernodes.blocks */     \
    template <typename V, typename I>                                                             \
    void sptrsv_supernodal_blocks(const Exec& exec, const detail::TriangularRows<V, I>& rows,     \
                                  detail::Supernodes<V, I>& supernodes);                          \
    /* x = op(T)^-1 b, supernodes level by level; work: n x k scratch */                          \
    template <typename V, typename I>                                                             \
    void sptrsv_supernodal(const Exec& exec, const detail::TriangularRows<V, I>& rows,            \
                           const detail::Supernodes<V, I>& supernodes, const matrix::Dense<V>& b, \
                           matrix::Dense<V>& x, matrix::Dense<V>& work)

#define LOOM_INSTANTIATE_SPTRSV_KERNELS(Exec, V, I)                                           \
    template void sptrsv_level_set(const Exec&, const detail::TriangularRows<V, I>&,          \
                                   const detail::LevelSchedule<I>&, const matrix::Dense<V>&,  \
                                   matrix::Dense<V>&);                                        \
    template void sptrsv_supernodal_blocks(const Exec&, const detail::TriangularRows<V, I>&,  \
                                           detail::Supernodes<V, I>&);                        \
    template void sptrsv_supernodal(const Exec&, const detail::TriangularRows<V, I>&,         \
                                    const detail::Supernodes<V, I>&, const matrix::Dense<V>&, \
                                    matrix::Dense<V>&, matrix::Dense<V>&);

namespace loom::sparse::reference {
/// The reference ignores the schedule: one row after the other in dependency order.
LOOM_DECLARE_SPTRSV_KERNELS(ReferenceExecutor);
}  // namespace loom::sparse::reference
namespace loom::sparse::omp {
LOOM_DECLARE_SPTRSV_KERNELS(OmpExecutor);
}
namespace loom::sparse::cuda {
LOOM_DECLARE_SPTRSV_KERNELS(CudaExecutor);

/// Builds (pattern = true) or refreshes the values of (pattern = false) op(T)'s level-ordered
/// copy for the schedule's order.
template <typename V, typename I>
void sptrsv_level_ordered_rows(const CudaExecutor& exec, const detail::TriangularRows<V, I>& rows,
                               const detail::LevelSchedule<I>& schedule, bool pattern,
                               detail::LevelOrderedRows<V, I>& copy);
/// The level set when the schedule is persistent: one cooperative launch on the level-ordered
/// copy, a grid barrier per level, each group's next row loaded before it (cuda.cu).
template <typename V, typename I>
void sptrsv_persistent_level_set(const CudaExecutor& exec,
                                 const detail::LevelOrderedRows<V, I>& copy,
                                 const detail::LevelSchedule<I>& schedule,
                                 const matrix::Dense<V>& b, matrix::Dense<V>& x);
/// The shared memory one block may hold (bytes): the one-block solve's limit.
size_type sptrsv_one_block_capacity(const CudaExecutor& exec);
/// The shared memory the one-block solve of a copy takes: x and the copy (values, inverse
/// diagonal, pointers, columns) and the level pointers.
template <typename V, typename I>
constexpr size_type sptrsv_one_block_bytes(size_type n, size_type entries, size_type levels)
{
    return (2 * n + entries) * sizeof(V) + (n + 1 + entries + levels + 1) * sizeof(I);
}
/// Turns the copy's one-block form on: its columns as positions (position_cols).
template <typename V, typename I>
void sptrsv_one_block_prepare(const CudaExecutor& exec, detail::LevelOrderedRows<V, I>& copy);
/// The one-block solve (copy.one_block).
template <typename V, typename I>
void sptrsv_one_block(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x);
/// Sync-free: one launch of resident blocks, a group of lanes per row, the positions of the
/// level-ordered copy dealt round-robin; x is filled with a "not solved" sentinel first and
/// polled by the rows that read it (cuda.cu).
template <typename V, typename I>
void sptrsv_sync_free(const CudaExecutor& exec, const detail::LevelOrderedRows<V, I>& copy,
                      const detail::LevelSchedule<I>& schedule, const matrix::Dense<V>& b,
                      matrix::Dense<V>& x);

/// The analysis on the device (sptrsv.cpp: device_analysis), each step the same answer as
/// its host counterpart in sptrsv.cpp, without reading T's pattern back.
/// What one pass over T finds wrong: the first row holding an entry outside its triangle,
/// and the first whose diagonal entries (summed) are zero or missing; n for none.
struct SptrsvBadRows {
    size_type outside_triangle = 0;
    size_type zero_diagonal = 0;
};
/// Both checks of the analysis in one pass and one read-back; zero_diagonal is n for a unit
/// diagonal.
template <typename V, typename I>
SptrsvBadRows sptrsv_first_bad_rows(const CudaExecutor& exec, size_type n, const I* ptrs,
                                    const I* cols, const V* values, bool lower, bool unit);
/// The first i with values[i * stride] == 0, or n (the numeric phase's diagonal check).
template <typename V>
size_type sptrsv_first_zero(const CudaExecutor& exec, const V* values, size_type n,
                            size_type stride);
/// T^T's pattern, rows sorted, and where T stores each of its entries (transpose_pattern).
template <typename I>
void sptrsv_transpose_pattern(const CudaExecutor& exec, size_type n, size_type nnz, const I* ptrs,
                              const I* cols, Array<I>& t_ptrs, Array<I>& t_cols,
                              Array<I>& t_index);
/// Every row's level in op(T) (its rows: ptrs, cols) by one sync-free pass, and the rows
/// sorted by level, ascending within one (row_levels + level_schedule): sets order,
/// level_ptrs and host_level_ptrs; the stages are left to group_stages.
template <typename I>
void sptrsv_level_schedule(const CudaExecutor& exec, size_type n, size_type nnz, const I* ptrs,
                           const I* cols, bool lower, detail::LevelSchedule<I>& schedule);
/// schedule = `given` (order and level_ptrs copied, host_level_ptrs read back) when it is a
/// level schedule of op(T) (its rows: ptrs, cols): every row once, levels not empty, each row
/// in a later level than the rows its entries off the diagonal name (not necessarily the
/// earliest one); false, schedule untouched, otherwise. Two passes and one read-back.
template <typename I>
bool sptrsv_given_schedule(const CudaExecutor& exec, size_type n, const I* ptrs, const I* cols,
                           const SptrsvLevels<I>& given, detail::LevelSchedule<I>& schedule);
/// How many supernodes supernode_starts finds in a lower pattern (ptrs, cols).
template <typename I>
size_type sptrsv_count_supernodes(const CudaExecutor& exec, size_type n, const I* ptrs,
                                  const I* cols, size_type max_width);

/// cuSPARSE SpSV (cusparse.cu) on T itself (op passed to cuSPARSE): its analysis, kept in
/// the returned object; 32-bit indices, sorted rows (checked by the caller).
template <typename V, typename I>
std::shared_ptr<void> sptrsv_vendor_analysis(const CudaExecutor& exec, const matrix::Csr<V, I>& T,
                                             const SptrsvOptions& options);
/// cusparseSpSV_updateMatrix with T's current values.
template <typename V, typename I>
void sptrsv_vendor_update(const CudaExecutor& exec, const std::shared_ptr<void>& vendor,
                          const matrix::Csr<V, I>& T);
/// cusparseSpSV_solve for one right-hand side of stride 1.
template <typename V, typename I>
void sptrsv_vendor_solve(const CudaExecutor& exec, const std::shared_ptr<void>& vendor,
                         const matrix::Csr<V, I>& T, const matrix::Dense<V>& b,
                         matrix::Dense<V>& x);
}  // namespace loom::sparse::cuda
