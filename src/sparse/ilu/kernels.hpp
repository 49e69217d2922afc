// Per-backend entry points of the incomplete factorizations. ilu.cpp analyses the patterns
// (on the host), checks and dispatches; the work on one row is written once in rows.hpp.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "sparse/ilu/rows.hpp"
#include "sparse/sptrsv/kernels.hpp"

namespace loom::sparse::detail {

/// What ParILUT / ParICT's pattern search needs besides A on its base pattern.
struct ThresholdParams {
    /// Add-sweep-drop-sweep steps.
    int steps = 3;
    /// Off-diagonal entries kept: of F (ILU), of F's upper part (IC, whose lower part mirrors it).
    size_type budget = 0;
    /// Off-diagonal entries below drop_tolerance times the 2-norm of their row of A go.
    double drop_tolerance = 0.0;
    bool cholesky = false;
};

/// A gathered onto F (rows.hpp: assembled_entry): A's values, the gather lists, and
/// shift * scale on the diagonal (scale: nullptr for none).
template <typename V, typename I>
struct Assembly {
    const V* a = nullptr;
    const I* gather_ptrs = nullptr;
    const I* sources = nullptr;
    const V* scale = nullptr;
    V shift{};
};

/// The order of the IKJ factorization's rows: SpTRSV's level schedule of F's strictly lower
/// dependencies and, on CUDA, the blocks each level is cut into (cuda.cu).
template <typename I>
struct IluSchedule : LevelSchedule<I> {
    /// CUDA: level l's rows are cut into blocks of rows_per_block rows; its blocks are
    /// level_blocks[l] .. level_blocks[l + 1] - 1 (on the device), `blocks` in all.
    Array<I> level_blocks;
    /// CUDA: the level of each row (factorize_by_levels takes a row's lower entries on rows
    /// two or more levels back before it waits on the level just before).
    Array<I> row_levels;
    size_type blocks = 0;
    int rows_per_block = 0;
    /// CUDA: the most strictly lower entries a row of F has.
    size_type max_lower = 0;
};

}  // namespace loom::sparse::detail

#define LOOM_DECLARE_ILU_KERNELS(Exec)                                                          \
    /* a_f = A gathered onto F's pattern, plus shift * scale on the diagonal (scale may be  */ \
    /* nullptr) */                                                                             \
    template <typename V, typename I>                                                          \
    void ilu_assemble(const Exec& exec, const detail::FactorPattern<I>& f, const V* a,         \
                      const I* gather_ptrs, const I* sources, const V* scale, V shift,         \
                      V* a_f);                                                                 \
    /* values = the IKJ incomplete factorization of A assembled onto F, rows level by      */ \
    /* level; returns the first row whose pivot breaks it (rows.hpp: bad_pivot), or n       */ \
    template <typename V, typename I>                                                          \
    size_type ilu_factorize(const Exec& exec, const detail::FactorPattern<I>& f,               \
                            const detail::IluSchedule<I>& schedule,                            \
                            const detail::Assembly<V, I>& a, bool cholesky, V* values);        \
    /* values = Chow-Patel's starting point */                                                 \
    template <typename V, typename I>                                                          \
    void ilu_initial_guess(const Exec& exec, const detail::FactorPattern<I>& f, const V* a_f,  \
                           V* values);                                                         \
    /* values = one fixed-point sweep from old (a Jacobi sweep: old is only read) */           \
    template <typename V, typename I>                                                          \
    void ilu_sweep(const Exec& exec, const detail::FactorPattern<I>& f, const V* a_f,          \
                   const V* old, V* values);                                                   \
    /* The first row whose pivot breaks the factorization (rows.hpp: bad_pivot), or n */       \
    template <typename V, typename I>                                                          \
    size_type ilu_first_bad_pivot(const Exec& exec, const detail::FactorPattern<I>& f,         \
                                  const V* a_f, const V* values, bool cholesky);               \
    /* F's values into L and U (rows.hpp: extract_row) */                                      \
    template <typename V, typename I>                                                          \
    void ilu_extract(const Exec& exec, const detail::FactorPattern<I>& f, const V* values,     \
                     const I* l_index, const I* u_index, bool cholesky, V* l, V* u)

#define LOOM_INSTANTIATE_ILU_KERNELS(Exec, V, I)                                                \
    template void ilu_assemble(const Exec&, const detail::FactorPattern<I>&, const V*,          \
                               const I*, const I*, const V*, V, V*);                           \
    template size_type ilu_factorize(const Exec&, const detail::FactorPattern<I>&,             \
                                     const detail::IluSchedule<I>&,                            \
                                     const detail::Assembly<V, I>&, bool, V*);                 \
    template void ilu_initial_guess(const Exec&, const detail::FactorPattern<I>&, const V*,    \
                                    V*);                                                       \
    template void ilu_sweep(const Exec&, const detail::FactorPattern<I>&, const V*, const V*,  \
                            V*);                                                               \
    template size_type ilu_first_bad_pivot(const Exec&, const detail::FactorPattern<I>&,       \
                                           const V*, const V*, bool);                          \
    template void ilu_extract(const Exec&, const detail::FactorPattern<I>&, const V*,          \
                              const I*, const I*, bool, V*, V*);

/// ParILUT / ParICT's pattern search on the host (the reference backend's; OpenMP and CUDA
/// search in their own memory, threshold_search.hpp): F's pattern (ptrs, cols) grown from the
/// base pattern `f` with A's values `a_f` on it (host memory).
#define LOOM_DECLARE_ILU_THRESHOLD(Exec)                                                        \
    template <typename V, typename I>                                                          \
    void ilu_threshold_pattern(const Exec& exec, const detail::FactorPattern<I>& f,            \
                               const V* a_f, const detail::ThresholdParams& params,            \
                               std::vector<I>& ptrs, std::vector<I>& cols)

#define LOOM_INSTANTIATE_ILU_THRESHOLD(Exec, V, I)                                              \
    template void ilu_threshold_pattern(const Exec&, const detail::FactorPattern<I>&,          \
                                        const V*, const detail::ThresholdParams&,              \
                                        std::vector<I>&, std::vector<I>&);

/// ISAI on the host (isai_row.hpp): M's values on its pattern, for every row; the first row
/// whose system is singular, or n.
#define LOOM_DECLARE_ISAI(Exec)                                                                 \
    template <typename V, typename I>                                                          \
    size_type isai_rows(const Exec& exec, size_type n, const I* a_ptrs, const I* a_cols,       \
                        const V* a_vals, const I* m_ptrs, const I* m_cols, V* m_vals)

#define LOOM_INSTANTIATE_ISAI(Exec, V, I)                                                       \
    template size_type isai_rows(const Exec&, size_type, const I*, const I*, const V*,         \
                                 const I*, const I*, V*);

namespace loom::sparse::reference {
LOOM_DECLARE_ILU_KERNELS(ReferenceExecutor);
LOOM_DECLARE_ILU_THRESHOLD(ReferenceExecutor);
LOOM_DECLARE_ISAI(ReferenceExecutor);
}  // namespace loom::sparse::reference
namespace loom::sparse::omp {
LOOM_DECLARE_ILU_KERNELS(OmpExecutor);
LOOM_DECLARE_ISAI(OmpExecutor);
}  // namespace loom::sparse::omp
namespace loom::sparse::cuda {
LOOM_DECLARE_ILU_KERNELS(CudaExecutor);

/// schedule's blocks (IluSchedule) from its host level pointers, for F's pattern.
template <typename I>
void ilu_level_blocks(const CudaExecutor& exec, const detail::FactorPattern<I>& f,
                      detail::IluSchedule<I>& schedule);

/// reversed_order: the rows of schedule's levels in reverse level order, each level's rows
/// in their order, level l (backwards) from reversed_ptrs[l] (IluHandle::reversed_levels).
template <typename I>
void ilu_reversed_levels(const CudaExecutor& exec, const detail::IluSchedule<I>& schedule,
                         const I* reversed_ptrs, I* reversed_order);

/// cuSPARSE csrilu02 (cusparse.cu; IluAlgorithm::vendor, ILU(0), 32-bit indices checked by
/// the caller): its buffer and analysis of F's pattern.
template <typename V, typename I>
std::shared_ptr<void> ilu_vendor_analysis(const CudaExecutor& exec,
                                          const detail::FactorPattern<I>& f);
/// values (A on F's pattern) replaced in place by csrilu02's ILU(0); returns the row of the
/// first zero pivot cuSPARSE reports, or n.
template <typename V, typename I>
size_type ilu_vendor_factorize(const CudaExecutor& exec, const std::shared_ptr<void>& vendor,
                               const detail::FactorPattern<I>& f, V* values);
}  // namespace loom::sparse::cuda
