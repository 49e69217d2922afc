// Sparse matrix times sparse matrix, C = A * B in CSR, split into a symbolic phase (the
// pattern of C) and a numeric phase (its values) that can be repeated whenever the values of
// A and B change but their patterns do not. Also the Jacobi-fused product
// C = (I - omega D^-1 A) * B that smooths a multigrid prolongator in one numeric pass.
//
//     SpgemmHandle<double, int32> handle;
//     Csr<double, int32> C;
//     spgemm_symbolic(handle, A, B, C);   // C gets its size, row pointers and storage
//     spgemm_numeric(handle, A, B, C);    // columns and values
//     ... change the values of A or B ...
//     spgemm_numeric(handle, A, B, C);    // again, no new analysis
#pragma once

#include <memory>
#include <string>

#include "loom/base/analysis.hpp"
#include "loom/base/array.hpp"
#include "loom/base/names.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// Which implementation computes the product. `automatic` picks Loom's own kernels (on every
/// backend); `vendor` is cuSPARSE's SpGEMM on CUDA (NotSupported on the host backends and
/// for the Jacobi-fused product), which needs A and B with sorted rows free of duplicate
/// entries (BadInput otherwise; the native kernels take any order and sum duplicates).
enum class SpgemmAlgorithm { automatic, native, vendor };

LOOM_NAME_TABLE(SpgemmAlgorithm, spgemm_algorithm_names, "SpGEMM algorithm",
    {SpgemmAlgorithm::automatic, "automatic", "Loom's kernels", {"auto"}},
    {SpgemmAlgorithm::native, "native", "Loom's kernels"},
    {SpgemmAlgorithm::vendor, "vendor", "cuSPARSE (CUDA only)"},
);

/// A name of spgemm_algorithm_names; BadInput otherwise.
SpgemmAlgorithm parse_spgemm_algorithm(const std::string& text);

/// How a numeric call of a handle computed C's values (SpgemmHandle::values_path()): what that
/// call did, row by row, not only what the handle holds.
enum class SpgemmValuesPath {
    /// C's columns found again (hashing, sorting) and written with the values.
    full,
    /// Values only, C's columns known, but some rows found their products' places by a
    /// search in C's columns (CUDA: without a record, or where the record does not reach, or
    /// in the values-only call that fills the record's positions) or ran their full path
    /// (CUDA's longest rows without a record).
    known_columns,
    /// Values only, every row from a record kept in the handle (within
    /// SpgemmOptions::reuse_memory_limit): no hashing, no search, no column written. OpenMP
    /// records each multiply-add's place in C in the first numeric call; CUDA records the
    /// place in its row of each multiply-add of the short rows (a byte each, when B's rows
    /// hold strictly ascending columns; made by a symbolic phase that finds C's columns, else
    /// filled by the first values-only call) and every other entry's multiply-adds (then
    /// summed by one thread per entry), in product order either way (deterministic whatever
    /// SpgemmOptions::deterministic says).
    recorded,
};

LOOM_NAME_TABLE(SpgemmValuesPath, spgemm_values_path_names, "SpGEMM values path",
    {SpgemmValuesPath::full, "full", "columns and values computed again"},
    {SpgemmValuesPath::known_columns, "known-columns", "light rows look up C's known columns"},
    {SpgemmValuesPath::recorded, "recorded", "values only, from recorded positions"},
);

struct SpgemmOptions {
    SpgemmAlgorithm algorithm = SpgemmAlgorithm::automatic;
    /// Columns ascending within every row of C. false leaves the order to the kernel, which
    /// saves a sort per row on some backends; the set of entries is the same.
    bool sort_output = true;
    /// How numeric calls make sure that A and B still have the patterns of the symbolic
    /// phase, and that C still has the columns the handle last wrote (loom/base/analysis.hpp).
    PatternCheck pattern_check = PatternCheck::cached;
    /// A numeric call whose C still holds the columns that this handle's previous numeric
    /// call wrote computes values only (native kernels with sort_output: CUDA looks the light
    /// rows' products up in C's columns, OpenMP uses a record, see reuse_memory_limit; the
    /// reference backend has no such path). false: every numeric call writes columns and
    /// values, and the handle keeps no fingerprint of C.
    bool reuse_columns = true;
    /// Run-to-run bitwise identical values on one executor and thread count: the products
    /// that land in one entry of C are added in one fixed order (product order: A's entries
    /// in order, each one's row of B in order). The host kernels are so by construction; the
    /// CUDA kernels add the products of a team's step that meet in one entry one after the
    /// other in rank order (a few more barriers per step, no extra pass). With sort_output
    /// false the values of the entries are so too, their order within a row of C is not.
    /// false lets CUDA add with atomics in arrival order, which may differ in the last bits
    /// between runs.
    bool deterministic = true;
    /// Bytes a handle may keep so that repeated numeric calls compute values only, for every
    /// row, from a record (native kernels with sort_output and reuse_columns). OpenMP: the
    /// first numeric call records where in C each multiply-add lands (one index per
    /// multiply-add). CUDA: the symbolic phase, when it finds C's columns (see
    /// SpgemmHandle::columns_from_symbolic), else the first values-only call, records, for
    /// rows of at most 128 entries of a B whose rows hold strictly ascending columns, each
    /// multiply-add's place in its row (a byte per multiply-add), and for every other entry
    /// of C its multiply-adds as (entry of A, entry of B) pairs (2 indices per multiply-add
    /// and 4 bytes per entry of C), when that also fits in 3/4 of the device's free memory
    /// with what building it needs (about 3x the pairs, freed after). A full numeric call
    /// (reuse_columns off) of a product with rows too long for the shared-memory teams may
    /// also take, and free, that much for a record of those rows for the call. Above the
    /// limit nothing is recorded: OpenMP runs the full phase on every call, CUDA looks the
    /// light rows up in C's known columns (values_path() `known_columns`). 0 forces that.
    /// SpgemmHandle::recorded_bytes() says what was kept.
    size_type reuse_memory_limit = size_type{8} << 30;
};

namespace detail {
template <typename I>
struct SpgemmState;
}  // namespace detail

/// What the symbolic phase learns about one product, kept for its numeric phases: C's row
/// pointers, the multiply-adds of every row, the rows grouped by the work they need (GPU),
/// and fingerprints of the patterns of A and B, so that a numeric call with a changed
/// pattern is refused (BadInput) instead of computing garbage. An analysis handle
/// (loom/base/analysis.hpp): options(), analyzed(), reset(). Move-only.
template <typename V, typename I = int32>
class SpgemmHandle : public AnalysisHandle<SpgemmOptions, detail::SpgemmState<I>> {
public:
    using AnalysisHandle<SpgemmOptions, detail::SpgemmState<I>>::AnalysisHandle;

    // What the last symbolic phase found; BadInput before any symbolic phase.

    /// The algorithm `automatic` resolved to (native or vendor).
    SpgemmAlgorithm algorithm() const;
    /// Whether it was spgemm_jacobi_symbolic, i.e. the pattern of (I + A) * B.
    bool jacobi() const;
    dim2 result_size() const;
    size_type result_nnz() const;
    /// Multiply-adds of one numeric phase: the sum over A's stored entries of the length of
    /// the row of B they select (plus B's row lengths for the identity of the Jacobi product).
    size_type multiply_adds() const;
    /// C's row pointers (rows + 1) and the multiply-adds of every row of C, on the product's
    /// executor.
    const Array<I>& row_ptrs() const;
    const Array<int64>& row_flops() const;
    /// Numeric calls since the symbolic phase that computed values only, C's columns being
    /// those this handle wrote before (see SpgemmOptions::reuse_columns).
    size_type values_only_calls() const;
    /// Whether the symbolic phase also wrote C's columns (CUDA, with sort_output and
    /// reuse_columns, when every row of C is short enough for the shared-memory teams, or,
    /// for products with longer rows, when B has at most 2^23 columns and the record fits
    /// SpgemmOptions::reuse_memory_limit): the first numeric call then computes values only
    /// too, from a record that the symbolic phase made with the columns (rows of short
    /// products only when B's rows hold strictly ascending columns).
    bool columns_from_symbolic() const;
    /// How the last numeric call computed C's values (`full` before the first).
    SpgemmValuesPath values_path() const;
    /// Bytes kept for values-only calls (0: nothing recorded, or not yet: CUDA records in the
    /// symbolic phase or the first values-only call; see SpgemmOptions::reuse_memory_limit).
    size_type recorded_bytes() const;
};

/// The pattern of C = A * B: C becomes an A.rows() x B.cols() matrix on A's executor with
/// its row pointers set and its columns and values allocated (not yet computed, except with
/// the vendor algorithm, which computes the columns here). Input rows may be unsorted and
/// hold duplicate entries (they are summed); C never holds duplicates. A and B on one
/// executor; DimensionMismatch when A.cols() != B.rows(). Replaces what the handle held.
template <typename V, typename I>
LOOM_EXPORT void spgemm_symbolic(SpgemmHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                                 const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);

/// The columns and values of C = A * B, for A and B with the patterns that
/// spgemm_symbolic(handle, ...) saw (values may differ). C is the matrix it produced. BadInput
/// when the handle holds no symbolic phase of a plain product, when the pattern of A or B
/// changed (different sizes, number of entries, row pointers or columns), or when C does not
/// have the size and number of entries of the symbolic result (SpgemmOptions::pattern_check
/// says how patterns are compared). On failure C is not modified.
template <typename V, typename I>
LOOM_EXPORT void spgemm_numeric(SpgemmHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                                const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);

/// C = A * B in one call (symbolic and numeric with a handle of its own).
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> spgemm(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                     const SpgemmOptions& options = {});

/// The pattern of C = (I + A) * B, the pattern of the Jacobi-fused product (whatever omega
/// and the diagonal): A square n x n, B n x m. Otherwise as spgemm_symbolic.
template <typename V, typename I>
LOOM_EXPORT void spgemm_jacobi_symbolic(SpgemmHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                                        const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);

/// C = (I - omega D^-1 A) * B in one numeric pass without forming I - omega D^-1 A, where
/// D_inv holds the inverse diagonal (n x 1, or an array of n values) on A's executor. Needs a
/// handle from spgemm_jacobi_symbolic; otherwise as spgemm_numeric.
template <typename V, typename I>
LOOM_EXPORT void spgemm_jacobi_numeric(SpgemmHandle<V, I>& handle, V omega,
                                       const matrix::Dense<V>& D_inv, const matrix::Csr<V, I>& A,
                                       const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);
template <typename V, typename I>
LOOM_EXPORT void spgemm_jacobi_numeric(SpgemmHandle<V, I>& handle, V omega, const Array<V>& D_inv,
                                       const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                       matrix::Csr<V, I>& C);

/// C = (I - omega D^-1 A) * B with D the diagonal of A itself (duplicate diagonal entries
/// summed). BadInput naming the row when a diagonal entry is zero or not stored; otherwise
/// as the overloads above.
template <typename V, typename I>
LOOM_EXPORT void spgemm_jacobi_numeric(SpgemmHandle<V, I>& handle, V omega,
                                       const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                       matrix::Csr<V, I>& C);

/// C = (I - omega D^-1 A) * B in one call.
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> spgemm_jacobi(V omega, const Array<V>& D_inv,
                                            const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                            const SpgemmOptions& options = {});
/// ... with D the diagonal of A (BadInput when a diagonal entry is zero or not stored).
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> spgemm_jacobi(V omega, const matrix::Csr<V, I>& A,
                                            const matrix::Csr<V, I>& B,
                                            const SpgemmOptions& options = {});

}  // namespace loom::sparse

LOOM_PUBLIC_END
