// Incomplete factorizations of a square CSR matrix A: A ~ L U (ILU kinds: L unit lower with
// its diagonal stored, U upper) or A ~ L L^H (IC kinds: L lower; U is not used), split into a
// symbolic phase (the factors' patterns, kept in a handle) and a numeric phase that can be
// repeated for new values of A with the same pattern:
//
//     sparse::IluHandle<double> handle({.kind = sparse::IluKind::iluk, .level = 2});
//     matrix::Csr<double> L, U;
//     sparse::ilu_symbolic(handle, A, L, U);   // patterns of L and U
//     sparse::ilu_numeric(handle, A, L, U);    // their values
//     ...                                      // new values in A, same pattern
//     sparse::ilu_numeric(handle, A, L, U);
//
// A's rows may be unsorted; duplicates are summed. The factors have sorted rows. IC kinds
// read A's lower triangle only (A is taken as Hermitian).
#pragma once

#include <string>

#include "loom/base/analysis.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// Which factorization (ilu NOTES.md describes each).
enum class IluKind {
    /// ILU(0): the factors keep A's pattern (plus the diagonal).
    ilu0,
    /// ILU(k): the pattern of level-of-fill symbolic factorization with k = IluOptions::level.
    iluk,
    /// IC(0), IC(k): the incomplete Cholesky counterparts, on A's lower triangle.
    ic0,
    ick,
    /// ParILU / ParIC: Chow-Patel fixed-point sweeps on the ILU(0) (IC(0)) pattern.
    parilu,
    paric,
    /// ParILUT / ParICT: a threshold pattern built iteratively (Anzt, Chow, Dongarra): add the
    /// residual's pattern, sweep, drop the smallest entries down to the fill limit, sweep.
    parilut,
    parict,
    /// ILUT(p, tau) (Saad): row by row elimination in a sparse work row, dropping entries below
    /// drop_tolerance times their row's norm and keeping the p largest of L and of U a row
    /// (p from fill_limit); a zero pivot is replaced (IluHandle::replaced_pivots). Computed on
    /// the host for every executor (the factors are copied to a CUDA executor's memory).
    ilut
};

LOOM_NAME_TABLE(IluKind, ilu_kind_names, "incomplete factorization",
    {IluKind::ilu0, "ilu0", "ILU(0)", {"ilu"}},
    {IluKind::iluk, "iluk", "ILU(k), k the level of fill"},
    {IluKind::ic0, "ic0", "IC(0)", {"ic"}},
    {IluKind::ick, "ick", "IC(k), k the level of fill"},
    {IluKind::parilu, "parilu", "ILU(0) by Chow-Patel sweeps"},
    {IluKind::paric, "paric", "IC(0) by Chow-Patel sweeps"},
    {IluKind::parilut, "parilut", "threshold ILU built by sweeps"},
    {IluKind::parict, "parict", "threshold IC built by sweeps", {"ict"}},
    {IluKind::ilut, "ilut", "threshold ILU(p, tau) by elimination (Saad), on the host"},
);

IluKind parse_ilu_kind(const std::string& text);
/// Whether `kind` is an incomplete Cholesky (A ~ L L^H).
bool is_cholesky(IluKind kind) noexcept;

/// Whether a numeric phase may add to the diagonal when a pivot breaks down.
enum class DiagonalShift {
    /// IC kinds shift, ILU kinds do not (as Eigen's IncompleteCholesky and IncompleteLUT).
    automatic,
    /// A zero, tiny or (IC) non-positive pivot raises NumericalError naming its row.
    off,
    /// Factor A + s diag(r) instead, r_i the largest |a_ij| of row i, with s = initial_shift
    /// doubled until every pivot holds (IluHandle::shift() reports s).
    on
};

LOOM_NAME_TABLE(DiagonalShift, diagonal_shift_names, "diagonal shift",
    {DiagonalShift::automatic, "automatic", "IC kinds shift, ILU kinds do not", {"auto"}},
    {DiagonalShift::off, "off", "a breaking pivot is a NumericalError"},
    {DiagonalShift::on, "on", "shift the diagonal until every pivot holds"},
);

/// Who computes a numeric phase.
enum class IluAlgorithm {
    /// Loom's kernels: every kind, executor and type.
    native,
    /// cuSPARSE's csrilu02 (ILU(0) on CUDA with 32-bit indices), kept as a peer to compare
    /// with: its analysis runs in ilu_symbolic, its factorization in ilu_numeric.
    vendor
};

LOOM_NAME_TABLE(IluAlgorithm, ilu_algorithm_names, "ILU algorithm",
    {IluAlgorithm::native, "native", "Loom's kernels"},
    {IluAlgorithm::vendor, "vendor", "cuSPARSE csrilu02 (ILU(0), CUDA)", {"csrilu02"}},
);

struct IluOptions {
    IluKind kind = IluKind::ilu0;
    /// iluk / ick: the level of fill k (0 is ILU(0)).
    int level = 1;
    /// parilu, paric, parilut, parict: fixed-point sweeps of a numeric phase.
    int sweeps = 5;
    /// parilut / parict: the add-sweep-drop-sweep steps of the symbolic phase's search. 3,
    /// not 5: on 3D Poisson and the real matrices tried, steps 4 and 5 only trade entries at
    /// the fill limit (the same iterations of BiCGSTAB) for 40% more setup (src/sparse/ilu
    /// NOTES.md).
    int steps = 3;
    /// parilut / parict: the factors keep at most fill_limit * nnz(A) entries besides the
    /// unit diagonal of L (IC: L keeps at most fill_limit * nnz(tril(A))). ilut: L and U each
    /// keep at most p = fill_limit * nnz(A) / (2n) off-diagonal entries a row (at least 1).
    double fill_limit = 2.0;
    /// parilut / parict / ilut: also drop off-diagonal entries smaller than drop_tolerance
    /// times the 2-norm of their row of A.
    double drop_tolerance = 0.0;
    DiagonalShift diagonal_shift = DiagonalShift::automatic;
    /// The first shift tried when shifting (Eigen's IncompleteCholesky uses 1e-3).
    double initial_shift = 1e-3;
    /// How numeric calls make sure that A, L and U still have the analysed patterns
    /// (loom/base/analysis.hpp).
    PatternCheck pattern_check = PatternCheck::cached;
    /// vendor: NotSupported by ilu_symbolic for another kind, executor or index type.
    IluAlgorithm algorithm = IluAlgorithm::native;
};

namespace detail {
template <typename V, typename I>
struct IluState;
}

/// What the symbolic phase leaves for numeric phases; bound to the executor and the patterns
/// it saw. An analysis handle (loom/base/analysis.hpp): options(), analyzed(), reset().
/// Move-only. The queries raise BadInput before a symbolic phase.
template <typename V, typename I = int32>
class IluHandle : public AnalysisHandle<IluOptions, detail::IluState<V, I>> {
public:
    using AnalysisHandle<IluOptions, detail::IluState<V, I>>::AnalysisHandle;

    /// Entries of L (with its diagonal) and of U (0 for IC kinds).
    size_type l_nnz() const;
    size_type u_nnz() const;
    /// The levels of the rows' dependencies that a level-scheduled numeric phase runs (0 for
    /// the sweeping kinds parilu, paric, parilut and parict, whose numeric phase has none, and
    /// for IluAlgorithm::vendor, whose csrilu02 schedules its own rows).
    size_type levels() const;
    /// The diagonal shift s the last numeric phase used (0: none was needed).
    double shift() const;
    /// ilut: the zero or tiny pivots the last numeric phase replaced (0 for the other kinds).
    size_type replaced_pivots() const;
    /// The level schedule the numeric phase runs F's rows by, L's as sptrsv_levels gives it
    /// (a copy, on the analysis' executor): a solve with L takes it instead of finding it
    /// (sptrsv_symbolic with levels). Empty where levels() is 0.
    SptrsvLevels<I> lower_levels() const;
    /// lower_levels' levels in reverse order (each level's rows still ascending): a valid
    /// schedule of L^H's solve (IC), and of U's where F's pattern is symmetric (U's row i
    /// then depends on the rows whose L rows name i), which sptrsv_symbolic checks before
    /// taking it. Empty where levels() is 0.
    SptrsvLevels<I> reversed_levels() const;
};

/// The patterns of the factors: L (and U for ILU kinds) are replaced by matrices on A's
/// executor with sorted rows; their values are set by ilu_numeric. ParILUT / ParICT and ILUT
/// find the pattern from A's values; a numeric phase with new values keeps it (ILUT repeats
/// the symbolic phase's elimination with its dropping decisions: the same factors for the
/// same values). U is untouched for IC kinds.
/// DimensionMismatch when A is not square, BadInput for a bad option; the handle and the
/// outputs are unchanged on failure.
template <typename V, typename I>
LOOM_EXPORT void ilu_symbolic(IluHandle<V, I>& handle, const matrix::Csr<V, I>& A, matrix::Csr<V, I>& L,
                  matrix::Csr<V, I>& U);

/// The factors' values for A's current values on the analysed patterns. BadInput when no
/// symbolic phase ran or A, L or U changed pattern; NumericalError naming the row of a zero,
/// tiny or (IC) non-positive pivot unless shifting is on. L and U are untouched on failure.
template <typename V, typename I>
LOOM_EXPORT void ilu_numeric(IluHandle<V, I>& handle, const matrix::Csr<V, I>& A, matrix::Csr<V, I>& L,
                 matrix::Csr<V, I>& U);

}  // namespace loom::sparse

LOOM_PUBLIC_END
