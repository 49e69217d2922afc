// Sparse matrix addition C = alpha * A + beta * B of two CSR matrices of one shape, split
// into a symbolic phase (C's pattern, and where every entry of A and of B lands in C) and a
// numeric phase that can be repeated for new values of A and B with the same patterns:
//
//     sparse::SpaddHandle<double> handle;
//     matrix::Csr<double> C;
//     sparse::spadd_symbolic(handle, A, B, C);
//     sparse::spadd_numeric(handle, 2.0, A, -1.0, B, C);
//     ...   // new values in A and B, same patterns
//     sparse::spadd_numeric(handle, 2.0, A, -1.0, B, C);
//
// Inputs may have unsorted rows and duplicate entries. C holds every column that A or B
// stores in a row, once, sorted (duplicates are summed into it); entries that add up to zero
// are kept, so that C's pattern depends on the patterns only.
#pragma once

#include <string>

#include "loom/base/analysis.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// Which kernels add. `native` is Loom's own; `vendor` is cuSPARSE's csrgeam2 on CUDA (32-bit
/// indices and rows sorted without duplicates: NotSupported otherwise, and on the host
/// backends). `automatic` is native.
enum class SpaddAlgorithm { automatic, native, vendor };

LOOM_NAME_TABLE(SpaddAlgorithm, spadd_algorithm_names, "SpAdd algorithm",
    {SpaddAlgorithm::automatic, "automatic", "Loom's kernels", {"auto"}},
    {SpaddAlgorithm::native, "native", "Loom's kernels"},
    {SpaddAlgorithm::vendor, "vendor", "cuSPARSE csrgeam2 (CUDA, sorted rows)", {"cusparse"}},
);

/// A name of spadd_algorithm_names; BadInput otherwise.
SpaddAlgorithm parse_spadd_algorithm(const std::string& text);

struct SpaddOptions {
    SpaddAlgorithm algorithm = SpaddAlgorithm::automatic;
    /// How numeric calls make sure that A, B and C still have the patterns of the symbolic
    /// phase (loom/base/analysis.hpp).
    PatternCheck pattern_check = PatternCheck::cached;
};

namespace detail {
template <typename V, typename I>
struct SpaddState;
}

/// What the symbolic phase leaves for the numeric phase; bound to the executor and the
/// patterns it was computed for. An analysis handle (loom/base/analysis.hpp): options(),
/// analyzed(), reset(). Move-only.
template <typename V, typename I = int32>
class SpaddHandle : public AnalysisHandle<SpaddOptions, detail::SpaddState<V, I>> {
public:
    using AnalysisHandle<SpaddOptions, detail::SpaddState<V, I>>::AnalysisHandle;

    /// The algorithm that runs (`automatic` resolved); `automatic` before the symbolic phase.
    SpaddAlgorithm algorithm() const noexcept;
    /// What the symbolic phase found: C's number of entries. BadInput before it.
    size_type result_nnz() const;
};

/// C's pattern for alpha * A + beta * B: row pointers and sorted, distinct columns; C's values
/// are allocated but not set (spadd_numeric sets them). C is replaced by a matrix on A's
/// executor. DimensionMismatch when A and B differ in shape, BadInput when they live on
/// different executors, NotSupported when nnz(A) + nnz(B) does not fit I (C might not) or when
/// the handle asks for cuSPARSE where it cannot run. C and the handle are unchanged on failure.
template <typename V, typename I>
LOOM_EXPORT void spadd_symbolic(SpaddHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                                const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);

/// C's values = alpha * A + beta * B, with the patterns of the symbolic phase. BadInput when
/// no symbolic phase has run, or when A, B or C do not have the patterns it saw (see
/// SpaddOptions::pattern_check); C is unchanged then.
template <typename V, typename I>
LOOM_EXPORT void spadd_numeric(const SpaddHandle<V, I>& handle, V alpha, const matrix::Csr<V, I>& A,
                               V beta, const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);

/// Both phases at once: alpha * A + beta * B as a new matrix.
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> spadd(V alpha, const matrix::Csr<V, I>& A, V beta,
                                    const matrix::Csr<V, I>& B, const SpaddOptions& options = {});

}  // namespace loom::sparse

LOOM_PUBLIC_END
