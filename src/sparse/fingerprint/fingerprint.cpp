// Pattern fingerprints: dispatch, the plan-cache slot that keeps them, and the pattern
// check of every analysis handle (include/loom/sparse/fingerprint.hpp).
#include "loom/sparse/fingerprint.hpp"

#include <memory>
#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "sparse/fingerprint/kernels.hpp"

namespace loom::sparse {
namespace {

/// The plan-cache slot of a matrix's fingerprint. The matrix drops it whenever its pattern
/// is handed out for writing, so a cached one still describes the pattern.
struct CachedFingerprint {
    PatternFingerprint print;
};

}  // namespace

template <typename V, typename I>
PatternFingerprint pattern_fingerprint(const matrix::Csr<V, I>& M)
{
    PatternFingerprint print{M.size(), M.nnz(), 0};
    // A default-constructed matrix has no executor and no arrays: nothing to hash.
    if (M.executor()) {
        print.hash = LOOM_RUN_KERNEL("loom::sparse::pattern_fingerprint", *M.executor(),
                                     pattern_hash, M.row_ptrs(), M.col_idxs());
    }
    return print;
}

template <typename V, typename I>
PatternFingerprint pattern_fingerprint(const matrix::Csr<V, I>& M, PatternCheck check)
{
    if (check == PatternCheck::always) return pattern_fingerprint(M);
    const auto still_valid = [](const CachedFingerprint&) { return true; };
    const auto compute = [&] {
        return std::make_shared<CachedFingerprint>(CachedFingerprint{pattern_fingerprint(M)});
    };
    return M.plans().template obtain<CachedFingerprint>(still_valid, compute)->print;
}

template <typename V, typename I>
void check_pattern(const char* where, const char* operand, const PatternFingerprint& seen,
                   const matrix::Csr<V, I>& M, PatternCheck check)
{
    const std::string name(operand);
    const std::string again = "; run the symbolic phase again for the new pattern";
    if (M.size() != seen.size) {
        throw BadInput(where, name + " is " + to_string(M.size()) + ", but was " +
                                  to_string(seen.size) + " at the symbolic phase" + again);
    }
    if (M.nnz() != seen.nnz) {
        throw BadInput(where, name + " has " + std::to_string(M.nnz()) +
                                  " stored entries, but had " + std::to_string(seen.nnz) +
                                  " at the symbolic phase" + again);
    }
    if (pattern_fingerprint(M, check).hash != seen.hash) {
        throw BadInput(where, "the row pointers or columns of " + name +
                                  " changed since the symbolic phase" + again);
    }
}

template <typename V, typename I>
void detail::remember_pattern_fingerprint(const matrix::Csr<V, I>& M,
                                          const PatternFingerprint& print)
{
    const auto replace = [](const CachedFingerprint&) { return false; };
    const auto known = [&] { return std::make_shared<CachedFingerprint>(CachedFingerprint{print}); };
    M.plans().template obtain<CachedFingerprint>(replace, known);
}

#define LOOM_INSTANTIATE_FINGERPRINT(V, I)                                                     \
    template PatternFingerprint pattern_fingerprint(const matrix::Csr<V, I>&);                 \
    template PatternFingerprint pattern_fingerprint(const matrix::Csr<V, I>&, PatternCheck);   \
    template void check_pattern(const char*, const char*, const PatternFingerprint&,           \
                                const matrix::Csr<V, I>&, PatternCheck);                       \
    template void detail::remember_pattern_fingerprint(const matrix::Csr<V, I>&,               \
                                                       const PatternFingerprint&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FINGERPRINT)

}  // namespace loom::sparse
