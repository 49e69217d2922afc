// Per-backend entry points of the pattern fingerprint (include/loom/sparse/fingerprint.hpp),
// declared once with one signature for every backend; fingerprint.cpp dispatches and keeps
// fingerprints in the matrices' plan caches.
#pragma once

#include <cstdint>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/launch/macros.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "base/dispatch.hpp"

namespace loom::sparse::detail {

/// One term of a pattern hash: the hash is the sum (mod 2^64) of hash_term(i, row_ptrs[i])
/// over i in [0, row_ptrs.size()) and of hash_term(row_ptrs.size() + k, col_idxs[k]) over
/// the entries k. A sum of well-mixed terms (SplitMix64's finaliser) is a reduction on every
/// backend and changes with any changed pointer or column.
LOOM_HOST_DEVICE inline std::uint64_t hash_term(std::uint64_t position, std::uint64_t value)
{
    std::uint64_t z = position * 0x9E3779B97F4A7C15ull + value + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Stores `print` as M's cached fingerprint without a pass over M, for a caller that knows
/// M's pattern is the one `print` describes although it handed the pattern out for writing
/// (SpGEMM's values-only path, whose kernel reads C's columns through non-const access).
template <typename V, typename I>
void remember_pattern_fingerprint(const matrix::Csr<V, I>& M, const PatternFingerprint& print);

}  // namespace loom::sparse::detail

#define LOOM_DECLARE_FINGERPRINT_KERNELS(Exec)                                                 \
    /* the sum of detail::hash_term over row_ptrs, then col_idxs (0 when both are empty) */   \
    template <typename I>                                                                      \
    std::uint64_t pattern_hash(const Exec& exec, const Array<I>& row_ptrs,                     \
                               const Array<I>& col_idxs)

#define LOOM_INSTANTIATE_FINGERPRINT_KERNELS(Exec, I)                                          \
    template std::uint64_t pattern_hash(const Exec&, const Array<I>&, const Array<I>&);

LOOM_DECLARE_ON_EACH_BACKEND(loom::sparse, LOOM_DECLARE_FINGERPRINT_KERNELS)
