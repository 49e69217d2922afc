// Sparse triangular solve x = op(T)^-1 b for a triangular CSR matrix T, split into an analysis
// (symbolic) phase kept in a handle and a solve phase that can be repeated for new right-hand
// sides and for new values of T with the same pattern:
//
//     sparse::SptrsvHandle<double> handle({.uplo = blas::Uplo::lower});
//     sparse::sptrsv_symbolic(handle, L);     // checks L, finds its levels
//     sparse::sptrsv_solve(handle, L, b, x);  // x = L^-1 b; b, x: n x k, any k
//     ...                                     // new values in L, same pattern
//     sparse::sptrsv_numeric(handle, L);      // checks the new diagonal, refreshes kept values
//     sparse::sptrsv_solve(handle, L, b, x);
//
// T's rows may be unsorted; duplicate entries are summed. An entry in the other triangle is
// an error, not ignored, so that a full matrix handed over by mistake is noticed.
#pragma once

#include <string>
#include <vector>

#include "loom/base/analysis.hpp"
#include "loom/base/array.hpp"
#include "loom/base/types.hpp"
#include "loom/blas/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/base/export.hpp"
#include "loom/base/names.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// How a solve is scheduled (sptrsv NOTES.md compares them).
enum class SptrsvAlgorithm {
    /// Chosen by the analysis from the executor and the level structure it found.
    automatic,
    /// Rows grouped by level (a row's level is one more than its dependencies'); the rows of a
    /// level run in parallel, and consecutive thin levels run chained in one launch (CUDA) or
    /// one serial stretch (OpenMP) instead of paying a launch or a barrier each.
    level_set,
    /// CUDA: one launch; rows are taken in level order and each waits on the readiness flags
    /// of the rows it depends on (no launch or barrier per level).
    sync_free,
    /// Rows cut into supernodes (runs of consecutive rows with a dense diagonal block, as the
    /// factors of a supernodal Cholesky or LU have) whose diagonal blocks are inverted once
    /// (batched TRTRI): a solve is a dense product per supernode, level by level of the
    /// supernodal elimination tree. Every executor.
    supernodal,
    /// cuSPARSE SpSV (CUDA; 32-bit indices, sorted rows, one right-hand side of stride 1).
    vendor
};

LOOM_NAME_TABLE(SptrsvAlgorithm, sptrsv_algorithm_names, "SpTRSV algorithm",
    {SptrsvAlgorithm::automatic, "automatic", "chosen from the executor and the levels",
     {"auto"}},
    {SptrsvAlgorithm::level_set, "level_set", "levels in parallel, thin levels chained",
     {"level-set", "levels"}},
    {SptrsvAlgorithm::sync_free, "sync_free", "rows wait on their dependencies' flags (CUDA)",
     {"sync-free"}},
    {SptrsvAlgorithm::supernodal, "supernodal", "inverted diagonal blocks of supernodes"},
    {SptrsvAlgorithm::vendor, "vendor", "cuSPARSE SpSV (CUDA)", {"cusparse"}},
);

SptrsvAlgorithm parse_sptrsv_algorithm(const std::string& text);

struct SptrsvOptions {
    SptrsvAlgorithm algorithm = SptrsvAlgorithm::automatic;
    /// Which triangle of the matrix holds T.
    blas::Uplo uplo = blas::Uplo::lower;
    /// unit: T's diagonal is all ones; stored diagonal entries are ignored.
    blas::Diag diag = blas::Diag::non_unit;
    /// op(T): T, T^T or T^H.
    blas::Op op = blas::Op::none;
    /// How solves and value updates make sure that T still has the analysed pattern
    /// (loom/base/analysis.hpp).
    PatternCheck pattern_check = PatternCheck::cached;
    /// Where op(T)'s supernodes start, n last: a supernodal factorization's partition (e.g.
    /// CholeskyFactor::supernodes, loom/sparse/cholmod.hpp) instead of the one the analysis
    /// finds. Any partition into runs of consecutive rows solves correctly; runs wider than
    /// 64 rows are cut. Empty: found by the analysis.
    std::vector<size_type> supernodes{};
};

namespace detail {
template <typename V, typename I>
struct SptrsvState;
}

/// What the analysis of one triangular matrix leaves for its solves; bound to the executor
/// and the pattern it saw. An analysis handle (loom/base/analysis.hpp): options(),
/// analyzed(), reset(). Move-only. The queries raise BadInput before an analysis.
template <typename V, typename I = int32>
class SptrsvHandle : public AnalysisHandle<SptrsvOptions, detail::SptrsvState<V, I>> {
public:
    using AnalysisHandle<SptrsvOptions, detail::SptrsvState<V, I>>::AnalysisHandle;

    /// The algorithm that runs (`automatic` resolved); `automatic` before the analysis.
    SptrsvAlgorithm algorithm() const noexcept;
    /// The number of levels of op(T): the length of its longest dependency chain.
    size_type levels() const;
    /// The most rows in one level.
    size_type max_level_width() const;
    /// Kernel launches (CUDA) or parallel stages (OpenMP) of one level-set solve once thin
    /// levels are chained; equal to levels() without chaining; 1 where CUDA runs every level
    /// in one persistent launch; supernodal: two per level of supernodes; 1 for other
    /// algorithms.
    size_type stages() const;
    /// The supernodes the analysis found in op(T) (every algorithm; 1-row ones included).
    size_type supernodes() const;
    /// op(T)'s level schedule, on the analysis' executor: level l holds the rows
    /// level_rows()[level_ptrs()[l]] .. level_rows()[level_ptrs()[l + 1] - 1], ascending;
    /// a row's level is one more than the highest level of the rows it depends on (0 for
    /// none); level_ptrs() has levels() + 1 entries. What a kernel needs that runs op(T)'s
    /// rows level by level (the incomplete factorizations schedule their rows by it). Kept by
    /// level_set and sync_free only: BadInput for the other algorithms (ask for level_set).
    const Array<I>& level_ptrs() const;
    const Array<I>& level_rows() const;
};

/// op(T)'s level schedule alone, as SptrsvHandle::level_ptrs() / level_rows() give it, on
/// T's executor: level l holds the rows level_rows[level_ptrs[l]] .. level_rows[level_ptrs[l
/// + 1] - 1], ascending. For a kernel that runs op(T)'s rows level by level (the incomplete
/// factorizations): the analysis' triangle check and levels without what only a solve needs
/// (the diagonal check, supernodes, a copy of T, the pattern's fingerprint).
template <typename I>
struct SptrsvLevels {
    Array<I> level_ptrs;
    Array<I> level_rows;
};

/// The level schedule of op(T) for options.uplo and options.op (the other options are not
/// read). DimensionMismatch when T is not square; BadInput naming an entry outside the
/// triangle.
template <typename V, typename I>
LOOM_EXPORT SptrsvLevels<I> sptrsv_levels(const matrix::Csr<V, I>& T,
                                          const SptrsvOptions& options = {});

/// Analyses T (the handle's uplo triangle of a square matrix) for solves with op(T).
/// DimensionMismatch when T is not square; BadInput naming the row and column of an entry
/// outside the triangle; NumericalError naming the row of a zero or missing diagonal entry
/// (non-unit diagonal); NotSupported for an algorithm the executor or T cannot run. The
/// handle is unchanged on failure.
template <typename V, typename I>
LOOM_EXPORT void sptrsv_symbolic(SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T);

/// sptrsv_symbolic with op(T)'s level schedule handed over (as sptrsv_levels gives it, on T's
/// executor), e.g. the one an incomplete factorization ran L's rows by (IluHandle::
/// lower_levels), so that the analysis need not find it. Any valid schedule will do: every row
/// once, each in a later level than the rows it depends on (not necessarily the earliest).
/// The device analysis (CUDA: level_set, sync_free, automatic) checks that in two passes and
/// finds the levels itself when it does not hold; the host analysis always finds its own.
/// Empty `levels`: as sptrsv_symbolic(handle, T). Errors as there.
template <typename V, typename I>
LOOM_EXPORT void sptrsv_symbolic(SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T,
                                 const SptrsvLevels<I>& levels);

/// Takes new values of T (same pattern): checks its diagonal again (NumericalError naming
/// the row of a zero) and refreshes whatever the algorithm keeps of them (cuSPARSE's copy;
/// on CUDA, the level-ordered copy of the level set and sync-free solves).
/// BadInput when no analysis ran or T's pattern changed.
template <typename V, typename I>
LOOM_EXPORT void sptrsv_numeric(SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T);

/// x = op(T)^-1 b for b and x of n x k (any k, any strides), distinct, on T's executor.
/// After changing T's values, call sptrsv_numeric first: the solve does not check the
/// diagonal, and an algorithm that keeps values (vendor; level_set and sync_free on CUDA)
/// solves with the values it was last given. BadInput when
/// no analysis ran, T's pattern changed or b and x overlap; DimensionMismatch for wrong
/// shapes. x is untouched on failure.
template <typename V, typename I>
LOOM_EXPORT void sptrsv_solve(const SptrsvHandle<V, I>& handle, const matrix::Csr<V, I>& T,
                  const matrix::Dense<V>& b, matrix::Dense<V>& x);

/// Both phases at once.
template <typename V, typename I>
LOOM_EXPORT void sptrsv(const matrix::Csr<V, I>& T, const matrix::Dense<V>& b, matrix::Dense<V>& x,
            const SptrsvOptions& options = {});

}  // namespace loom::sparse

LOOM_PUBLIC_END
