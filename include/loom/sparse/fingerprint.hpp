// Pattern fingerprints: enough of a CSR pattern to notice that it changed between the
// symbolic and the numeric call of an analysis handle (loom/base/analysis.hpp). One pass
// over the row pointers and columns on the matrix's executor; one value read back.
#pragma once

#include <cstdint>

#include "loom/base/analysis.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// A pattern's shape and a 64-bit hash of its row pointers and columns. The hash is the
/// sum (mod 2^64) of a mix of (position, value) over row_ptrs followed by col_idxs, so it
/// changes with any moved, changed, added or removed pointer or column, and every backend
/// computes the same value (a sum is a reduction in any order).
struct PatternFingerprint {
    dim2 size;
    size_type nnz = 0;
    std::uint64_t hash = 0;
    bool operator==(const PatternFingerprint&) const = default;
};

/// M's fingerprint, computed now.
template <typename V, typename I>
LOOM_EXPORT PatternFingerprint pattern_fingerprint(const matrix::Csr<V, I>& M);

/// M's fingerprint as `check` says: `cached` takes it from M's plan cache (and computes it
/// there once after the pattern was handed out for writing), `always` computes it now.
template <typename V, typename I>
LOOM_EXPORT PatternFingerprint pattern_fingerprint(const matrix::Csr<V, I>& M, PatternCheck check);

/// The rule of every numeric call of an analysis handle: BadInput (from `where`, naming
/// `operand` and what changed) unless M has the pattern `seen` describes, compared as
/// `check` says. Touches nothing.
template <typename V, typename I>
LOOM_EXPORT void check_pattern(const char* where, const char* operand, const PatternFingerprint& seen,
                   const matrix::Csr<V, I>& M, PatternCheck check);

}  // namespace loom::sparse

LOOM_PUBLIC_END
